import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { storeError } from '../errors.js';
import { writeAtomic } from '../files/atomic-write.js';
import { isValidId } from './ids.js';
import { withLock, type LockRequest } from './lock.js';

/**
 * Which session an `--idempotency-key` names, kept beside the sessions as one small file per key
 * (`<home>/keys/<hash of the key>.json`), so a re-run finds it without reading every session.
 * The session records the key itself (Session.idempotency) and is the truth: a pointer whose
 * session is gone, or names another key, is ignored; one that cannot be read is a cache miss and
 * is replaced by the next write (it holds nothing the session does not). The caller hashes the
 * key, so that this module needs no node:crypto on the plain ask path.
 */

const HASH = /^[0-9a-f]{64}$/;

export function keysDir(home: string): string {
  return path.join(home, 'keys');
}

function pointerFile(home: string, keyHash: string): string {
  if (!HASH.test(keyHash)) throw new Error(`not a key hash: ${keyHash.slice(0, 80)}`);
  return path.join(keysDir(home), `${keyHash}.json`);
}

/** The id of the session last started under the key, if one was recorded here. */
export async function readKeyPointer(home: string, keyHash: string, key: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(pointerFile(home, keyHash), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as { key?: unknown; session?: unknown };
    return v.key === key && typeof v.session === 'string' && isValidId(v.session) ? v.session : undefined;
  } catch {
    return undefined;
  }
}

/** Points the key at `sessionId` (atomically: never a half-written pointer). */
export async function writeKeyPointer(home: string, keyHash: string, key: string, sessionId: string): Promise<void> {
  const file = pointerFile(home, keyHash);
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeAtomic(file, `${JSON.stringify({ key, session: sessionId })}\n`);
  } catch (err) {
    throw storeError(`cannot record the idempotency key in ${keysDir(home)}: ${(err as Error).message}`);
  }
}

/**
 * Runs `fn` holding the key's claim: a lock beside its pointer file, so that of two runs under
 * one key started at once, one looks, records its session and points the key at it before the
 * other looks at all (docs/reliability.md #133). Held while deciding, never while a turn runs.
 */
export async function withKeyClaim<T>(
  home: string,
  keyHash: string,
  lock: Pick<LockRequest, 'label' | 'timeoutMs' | 'onWait' | 'held'>,
  fn: () => Promise<T>,
): Promise<T> {
  const file = pointerFile(home, keyHash);
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  } catch (err) {
    throw storeError(`cannot record the idempotency key in ${keysDir(home)}: ${(err as Error).message}`);
  }
  return withLock({ ...lock, target: file }, () => fn());
}
