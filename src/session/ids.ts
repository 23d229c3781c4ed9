import { NsedError } from '../errors.js';

const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
// Windows refuses these as file names even with an extension; refusing them everywhere keeps a
// store portable between machines.
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/** True for ids that are safe as a file name on every platform (docs/reliability.md #77). */
export function isValidId(id: string): boolean {
  return ID_PATTERN.test(id) && !RESERVED.test(id);
}

/** The id as it may be echoed in a message: no control or format characters, at most 40 chars. */
export function printableId(id: string): string {
  const clean = id.replace(/[\p{Cc}\p{Cf}]/gu, '');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}

/** Refuses an id before it reaches the file system (exit 2). */
export function assertValidId(id: string, what = 'session id'): void {
  if (isValidId(id)) return;
  throw new NsedError('usage', `invalid ${what} '${printableId(id)}': use letters, digits, '-' and '_'`, {
    hint: 'ids are 1 to 128 characters long; run `nsed sessions ls` to see the existing ones',
  });
}

/** `20261130-3f9a2c1b`: sorts by creation day, short enough to type a prefix of. */
export function newSessionId(randomHex: (bytes: number) => string, now: Date): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '');
  return `${day}-${randomHex(4)}`;
}

export function newTurnId(randomHex: (bytes: number) => string): string {
  return `t${randomHex(6)}`;
}

/** The reference client's thread id shape (docs/protocol.md §1): never a room or job id. */
export function newConversationId(randomHex: (bytes: number) => string): string {
  return `thread-${randomHex(16)}`;
}
