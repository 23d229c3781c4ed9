import { constants as fsConstants } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { NsedError, storeError } from '../errors.js';
import { realDisk, writeAtomic, type DiskHandle, type DiskOps } from '../files/atomic-write.js';
import { redactDeep } from '../secrets.js';
import { isAlive } from '../process-alive.js';

export interface AtomicAdapterOptions<T> {
  /** Turns parsed JSON (and its text) into a record, or throws an Error whose message says what is wrong. */
  validate: (value: unknown, text: string) => T;
  /**
   * `create` refuses to replace an existing file (exit 7); `replace` renames over it; `link` creates
   * as `create` does, by an exclusive hard link only (NoHardLinks where there are none).
   */
  mode?: 'create' | 'link' | 'replace';
  /** Runs once the new content is durable, just before it replaces the file; throwing aborts. */
  beforeCommit?: () => void;
  /** Applied to every string of the record before it is written (the run's secrets, docs/reliability.md #89). */
  redact?: (text: string) => string;
  /**
   * In place of `redact`: the record redacted as `redact` would, given its JSON text, which shows
   * most records to hold nothing to redact without walking them (`Secrets.redactRecord`).
   */
  redactRecord?: <R>(record: R, json: string) => R;

  disk?: DiskOps;
  /** Makes each write's rename durable instead of its own directory fsync (a group commit). */
  syncDir?: (dir: string) => Promise<void>;
}

// Temp files of a write, and lock directories renamed aside for removal (lock.ts).
const LEFTOVERS = [/^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/, /\.lock\.(?:new|gone|stale)-(\d+)-[0-9a-f]{8}$/];
const FULL = new Set(['ENOSPC', 'EDQUOT']);
const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

// Windows has no O_NOFOLLOW (and needs privileges to make links at all).
export const NO_FOLLOW = fsConstants.O_NOFOLLOW ?? 0;

/** A session file that is a symbolic link is refused, not followed (exit 8). */
export function symlinkRefused(file: string, cause?: unknown): NsedError {
  return storeError(`session file ${file} is a symbolic link; nsed does not follow links in its store`, {
    cause,
    hint: 'replace the link with the file itself, or remove it',
  });
}

/** Removes what processes that died mid-write left in `dir` (docs/reliability.md #56). */
export async function removeStaleTemps(dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    if (!name.endsWith('.tmp') && !name.includes('.lock.')) continue;
    const match = LEFTOVERS.map((re) => re.exec(name)).find((m) => m !== null);
    const pid = Number(match?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    await rm(path.join(dir, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Decodes and parses a record; throws a plain Error saying what is wrong with the bytes. */
export function decodeRecord<T>(bytes: Uint8Array, validate: (value: unknown, text: string) => T): T {
  // Strict: invalid UTF-8 or a BOM must not be silently "repaired" by the next rewrite.
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  if (text.trim() === '') throw new Error('the file is empty');
  return validate(JSON.parse(text), text);
}

/** decodeRecord, with any defect as exit 8 naming the file, which stays as it is (docs/reliability.md #57). */
export function parseRecord<T>(file: string, bytes: Uint8Array, validate: (value: unknown, text: string) => T): T {
  try {
    return decodeRecord(bytes, validate);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw storeError(`session file ${file} cannot be parsed: ${reason}; it was left untouched`, {
      cause: err,
      hint: 'repair or remove the file by hand; other sessions are not affected',
    });
  }
}

/**
 * A record's file text. One line, not indented: a long session's file is a third smaller that way,
 * and `sessions show` reads and parses all of it; `sessions show
 * --json` is the indented view.
 */
export const recordText = (record: unknown): string => `${JSON.stringify(record)}\n`;

/**
 * The record's file text, every string and key redacted (docs/reliability.md #89). With
 * `redactRecord` the text is made first and looked at: a record it shows holds nothing to redact
 * (most do: every string came through the same redaction already) is written as it is, without a
 * walk of its strings; any other is redacted string by string and made again.
 */
export function redactedJson<T>(data: T, opts: Pick<AtomicAdapterOptions<never>, 'redact' | 'redactRecord'>): string {
  if (opts.redactRecord !== undefined) {
    const text = recordText(data);
    const record = opts.redactRecord(data, text);
    return record === data ? text : recordText(record);
  }
  return recordText(opts.redact === undefined ? data : redactDeep(data, opts.redact));
}

/** Disk errors become exit 8 naming the file; anything else (a lost lock, a conflict) passes. */
function writeError(file: string, err: unknown): unknown {
  const code = errCode(err);
  if (err instanceof NsedError || code === undefined) return err;
  const hint = FULL.has(code)
    ? 'free some disk space, or set NSED_HOME to a directory on another disk'
    : 'make the store writable, or set NSED_HOME (or --home) to a writable directory';
  return storeError(`cannot write session file ${file}: ${code}`, { cause: err, hint });
}

/**
 * lowdb's adapter for one session file. Unlike lowdb's stock JSONFile (steno: one fixed temp
 * name, no fsync), each write is nsed's one atomic write (files/atomic-write.ts): its own temp
 * file, fsynced, renamed into place and the directory fsynced, so a crash at any moment leaves
 * the old or the new file (docs/reliability.md #55/#56).
 */
export class AtomicJsonAdapter<T extends object> implements Adapter<T | null> {
  /** false: the next writes leave the directory unsynced after their rename (see UpdateOptions). */
  durableRename = true;
  private readonly disk: DiskOps;

  constructor(
    readonly file: string,
    private readonly opts: AtomicAdapterOptions<T>,
  ) {
    this.disk = opts.disk ?? realDisk;
  }

  async read(): Promise<T | null> {
    let bytes: Uint8Array;
    let handle: DiskHandle | undefined;
    try {
      // Never through a link: a session file pointing elsewhere would let nsed read, and then
      // rewrite, a file outside the store.
      handle = await this.disk.open(this.file, fsConstants.O_RDONLY | NO_FOLLOW);
      bytes = await handle.readFile();
    } catch (err) {
      if (errCode(err) === 'ENOENT') return null;
      if (errCode(err) === 'ELOOP') throw symlinkRefused(this.file, err);
      throw storeError(`cannot read session file ${this.file}: ${errCode(err) ?? String(err)}`, { cause: err });
    } finally {
      await handle?.close().catch(() => undefined);
    }
    return parseRecord(this.file, bytes, this.opts.validate);
  }

  async write(data: T | null): Promise<void> {
    if (data === null) return;
    const text = redactedJson(data, this.opts);
    try {
      await writeAtomic(this.file, text, {
        durable: this.durableRename,
        exclusive: this.opts.mode === 'link' ? 'link' : this.opts.mode === 'create',
        disk: this.disk,
        ...(this.opts.beforeCommit === undefined ? {} : { beforeCommit: this.opts.beforeCommit }),
        ...(this.opts.syncDir === undefined ? {} : { syncDir: this.opts.syncDir }),
      });
    } catch (err) {
      if (errCode(err) === 'EEXIST' && this.opts.mode !== 'replace') {
        throw new NsedError('conflict', `session file ${this.file} already exists; it was not overwritten`);
      }
      throw writeError(this.file, err);
    }
  }
}
