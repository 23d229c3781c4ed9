import { readFile, stat } from 'node:fs/promises';
import { usageError } from './errors.js';
import { isLoopbackHost } from './protocol/loopback.js';

export const DEFAULT_URL = 'http://localhost:8080';

/** Marker recorded as a session's orchestrator when it ran on the in-process simulator. */
export const SIM_ORCHESTRATOR = 'sim';

/** Where the URL in use came from, as `nsed doctor` names it. */
export type UrlSource = 'flag' | 'env' | 'config' | 'session' | 'default';

/**
 * --url, else NSED_URL, else the config file's `url`, else what the session recorded, else the
 * default. The client validates it (scheme, no credentials) when it is created.
 */
export function resolveUrl(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  recorded?: string,
  configured?: string,
): string {
  return resolveUrlSource(flag, env, recorded, configured).url;
}

export function resolveUrlSource(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  recorded?: string,
  configured?: string,
): { url: string; source: UrlSource } {
  const session = recorded !== SIM_ORCHESTRATOR ? recorded : undefined;
  const [url, source]: [string, UrlSource] =
    flag !== undefined
      ? [flag, 'flag']
      : nonEmpty(env['NSED_URL']) !== undefined
        ? [env['NSED_URL'] ?? '', 'env']
        : configured !== undefined
          ? [configured, 'config']
          : session !== undefined
            ? [session, 'session']
            : [DEFAULT_URL, 'default'];
  return { url: url.replace(/\/+$/, ''), source };
}

/**
 * The bearer token: the trimmed contents of --token-file, else NSED_TOKEN, else the contents of
 * the config file's token_file. Never a flag value (docs/reliability.md #73), never in the config file itself.
 */
export async function readToken(
  tokenFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
  configTokenFile?: string,
): Promise<string | undefined> {
  const fromEnv = nonEmpty(env['NSED_TOKEN']?.trim());
  const fromConfig = tokenFile === undefined && fromEnv === undefined && configTokenFile !== undefined;
  if (fromConfig) tokenFile = configTokenFile;
  const label = fromConfig ? 'token_file (config file)' : '--token-file';
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = await readFile(tokenFile, 'utf8');
      const mode = (await stat(tokenFile)).mode;
      if ((mode & 0o077) !== 0) warn(`warning: token file ${tokenFile} is readable by other users; chmod 600 it`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw usageError(`cannot read ${label} ${tokenFile}: ${code}`, 'check the path and its permissions');
    }
    const token = text.trim();
    if (token === '') throw usageError(`${label} ${tokenFile} is empty`);
    return token;
  }
  return fromEnv;
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
