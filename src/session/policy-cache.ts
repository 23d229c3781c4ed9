import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeAtomic } from '../files/atomic-write.js';

/** How long the tags of the last `nsed policies` are offered by completion. */
export const POLICY_CACHE_TTL_MS = 24 * 60 * 60 * 1000;

export function policyCacheFile(home: string): string {
  return path.join(home, 'policies-cache.json');
}

/**
 * Remembers the tags of the last full listing so that shell completion of `-p` can offer them
 * without asking the orchestrator (a completion function must answer at once, offline too).
 * Best effort: a store that cannot be written must not fail the listing that was asked for.
 */
export async function writePolicyCache(home: string, entry: { url: string; tags: string[]; now: Date }): Promise<void> {
  try {
    await mkdir(home, { recursive: true, mode: 0o700 });
    const body = { written: entry.now.toISOString(), url: entry.url, tags: [...new Set(entry.tags)] };
    await writeAtomic(policyCacheFile(home), `${JSON.stringify(body)}\n`);
  } catch {
    // A cache: the listing that was asked for has been shown; completion goes without the tags.
  }
}

/** The cached tags, or none when the cache is missing, unreadable or older than the TTL. */
export async function readPolicyCache(home: string, now: Date): Promise<string[]> {
  try {
    const v: unknown = JSON.parse(await readFile(policyCacheFile(home), 'utf8'));
    if (typeof v !== 'object' || v === null) return [];
    const { written, tags } = v as { written?: unknown; tags?: unknown };
    const at = typeof written === 'string' ? Date.parse(written) : NaN;
    if (!Number.isFinite(at) || now.getTime() - at > POLICY_CACHE_TTL_MS || !Array.isArray(tags)) return [];
    // A tag goes into a shell's word list: only plain words are offered.
    return tags.filter((t): t is string => typeof t === 'string' && /^[A-Za-z0-9._:*-]{1,64}$/.test(t));
  } catch {
    return [];
  }
}
