import { readFile, stat } from 'node:fs/promises';
import { usageError } from './errors.js';
import { isLoopbackHost } from './protocol/loopback.js';

export const DEFAULT_URL = 'http://localhost:8080';

/** Marker recorded as a session's orchestrator when it ran on the in-process simulator. */
export const SIM_ORCHESTRATOR = 'sim';

/**
 * --url, else NSED_URL, else what the session recorded, else the default. The client validates
 * it (scheme, no credentials) when it is created.
 */
export function resolveUrl(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, recorded?: string): string {
  return (flag ?? nonEmpty(env['NSED_URL']) ?? (recorded !== SIM_ORCHESTRATOR ? recorded : undefined) ?? DEFAULT_URL).replace(/\/+$/, '');
}

/** The bearer token: NSED_TOKEN, or the trimmed contents of --token-file; never a flag (docs/reliability.md #73). */
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

/** docs/reliability.md #80: a bearer token over plain HTTP to anything but loopback travels in clear; say so once. */
export function cleartextWarning(url: string, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' || isLoopbackHost(parsed.hostname)) return undefined;
  return `warning: sending the bearer token over plain http:// to ${parsed.host}; use https://`;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
