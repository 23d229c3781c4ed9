import { stat } from 'node:fs/promises';
import { usageError } from '../errors.js';
import { readInputText, type ReadBounds } from '../files/read-input.js';
import { isLoopbackHost } from '../protocol/loopback.js';
import type { TokenSource } from './settings.js';

/** Marker recorded as a session's orchestrator when it ran on the in-process simulator. */
export const SIM_ORCHESTRATOR = 'sim';

/** A token file holds one token: past this it is the wrong file. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/**
 * The bearer token from where the settings say it is (RunSettings.token): the trimmed contents
 * of a file (--token-file or the config file's token_file), or the environment variable that
 * holds it. Never a flag value (docs/reliability.md #73), never in the config file itself.
 */
export async function readToken(
  source: TokenSource,
  from: string,
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
  bounds: ReadBounds = {},
): Promise<string | undefined> {
  if (source.kind === 'none') return undefined;
  if (source.kind === 'env') return env[source.name]?.trim();
  const label = from === 'token_file' ? 'token_file (config file)' : from;
  const tokenFile = source.file;
  // Read by the one reader of files a flag names (docs/usage.md "Files nsed reads"): a FIFO or a device
  // in its place cannot hold the run past --timeout.
  const text = await readInputText(tokenFile, { label, maxBytes: MAX_TOKEN_FILE_BYTES, ...bounds });
  const mode = (await stat(tokenFile)).mode;
  if ((mode & 0o077) !== 0) warn(`warning: token file ${tokenFile} is readable by other users; chmod 600 it`);
  const token = text.trim();
  if (token === '') throw usageError(`${label} ${tokenFile} is empty`);
  return token;
}

/** docs/reliability.md #80: a bearer token over plain HTTP to anything but loopback travels in clear; say so once. */
export function cleartextWarning(url: string, token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' || isLoopbackHost(parsed.hostname)) return undefined;
  return `warning: sending the bearer token over plain http:// to ${parsed.host}; use https://`;
}
