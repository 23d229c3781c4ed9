import { readFile, stat } from 'node:fs/promises';
import { NsedError, usageError } from './errors.js';
import { isLoopbackHost } from './protocol/loopback.js';

export const DEFAULT_URL = 'http://localhost:8080';

/** Marker recorded as a session's orchestrator when it ran on the in-process simulator. */
export const SIM_ORCHESTRATOR = 'sim';

/** --url, else NSED_URL, else what the session recorded, else the default; validated and without trailing '/'. */
export function resolveUrl(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, recorded?: string): string {
  const chosen = flag ?? nonEmpty(env['NSED_URL']) ?? (recorded !== SIM_ORCHESTRATOR ? recorded : undefined) ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(chosen);
  } catch {
    throw usageError(`invalid orchestrator URL '${chosen.slice(0, 80)}'`, 'give an http:// or https:// URL, e.g. --url http://localhost:8080');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw usageError(`unsupported URL scheme '${parsed.protocol}' in --url`, 'use http:// or https://');
  }
  if (parsed.username || parsed.password) {
    throw usageError('the orchestrator URL must not carry credentials', 'put the token in NSED_TOKEN or a --token-file');
  }
  return parsed.toString().replace(/\/+$/, '');
}

/** The bearer token: NSED_TOKEN, or the trimmed contents of --token-file. Never a flag value (#73). */
export async function readToken(
  tokenFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
): Promise<string | undefined> {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = await readFile(tokenFile, 'utf8');
      const mode = (await stat(tokenFile)).mode;
      if ((mode & 0o077) !== 0) warn(`warning: token file ${tokenFile} is readable by other users; chmod 600 it`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw usageError(`cannot read --token-file ${tokenFile}: ${code}`, 'check the path and its permissions');
    }
    const token = text.trim();
    if (token === '') throw usageError(`--token-file ${tokenFile} is empty`);
    return token;
  }
  return nonEmpty(env['NSED_TOKEN']?.trim());
}

/** #80: a bearer token over plain HTTP to anything but loopback travels in clear; say so once. */
export function cleartextWarning(url: string, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' || isLoopbackHost(parsed.hostname)) return undefined;
  return `warning: sending the bearer token over plain http:// to ${parsed.host}; use https://`;
}

export function secondsToMs(s: number): number {
  if (!Number.isFinite(s) || s <= 0) throw new NsedError('usage', 'timeouts must be positive numbers of seconds');
  return Math.round(s * 1000);
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
