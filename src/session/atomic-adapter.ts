import fs, { constants as fsConstants } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { randomHex } from './random-hex.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Adapter } from 'lowdb';
import { NsedError, storeError } from '../errors.js';
import { isAlive } from '../process-alive.js';

/** The calls the adapter makes on an open file. */
export interface DiskHandle {
  chmod(mode: number): Promise<void>;
  writeFile(data: string, encoding: 'utf8'): Promise<void>;
  readFile(): Promise<Buffer>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file-system calls the adapter makes, so a test can hand it a failing disk. */
export interface DiskOps {
  open(file: string, flags: string | number, mode?: number): Promise<DiskHandle>;
  rename(from: string, to: string): Promise<void>;
  link(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  access(file: string): Promise<void>;
}

function syncHandle(fd: number): DiskHandle {
  return {
    chmod: async (mode) => fs.fchmodSync(fd, mode),
    writeFile: async (data, encoding) => fs.writeFileSync(fd, data, encoding),
    readFile: async () => fs.readFileSync(fd),
    sync: async () => fs.fsyncSync(fd),
    close: async () => fs.closeSync(fd),
  };
}

/**
 * The real disk, through synchronous calls behind the promise-shaped DiskOps. A locked write is
 * some twenty small calls, and each asynchronous one is a round trip through libuv's thread pool
 * and the event loop; on a busy machine those round trips, not the fsyncs, were most of the time
 * between the response headers and the first event shown (bench/RESULTS.md, round 3). The event
 * loop is held for the write itself (an fsync is ~0.5 ms here), as it was awaited anyway.
 */
export const realDisk: DiskOps = {
  open: async (file, flags, mode) => syncHandle(fs.openSync(file, flags, mode)),
  rename: async (from, to) => fs.renameSync(from, to),
  link: async (from, to) => fs.linkSync(from, to),
  unlink: async (file) => fs.unlinkSync(file),
  access: async (file) => fs.accessSync(file),
};

export interface AtomicAdapterOptions<T> {
  /** Turns parsed JSON into a record, or throws an Error whose message says what is wrong. */
  validate: (value: unknown) => T;
  /** `create` refuses to replace an existing file (exit 7); `replace` renames over it. */
  mode?: 'create' | 'replace';
  /** Runs once the new content is durable, just before it replaces the file; throwing aborts. */
  beforeCommit?: () => void;

  disk?: DiskOps;
}

// Temp files of a write, and lock directories renamed aside for removal (lock.ts).
const LEFTOVERS = [/^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/, /\.lock\.(?:new|gone|stale)-(\d+)-[0-9a-f]{8}$/];
const UNSUPPORTED_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);
const FULL = new Set(['ENOSPC', 'EDQUOT']);
const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

// Windows has no O_NOFOLLOW (and needs privileges to make links at all).
const NO_FOLLOW = fsConstants.O_NOFOLLOW ?? 0;

/** A session file that is a symbolic link is refused, not followed (exit 8). */
export function symlinkRefused(file: string, cause?: unknown): NsedError {
  return storeError(`session file ${file} is a symbolic link; nsed does not follow links in its store`, {
    cause,
    hint: 'replace the link with the file itself, or remove it',
  });
}

/** `.<name>.<pid>.<8 hex>.tmp`: unique per process and per write (docs/reliability.md #55). */
export function tempName(fileName: string): string {
  return `.${fileName}.${process.pid}.${randomHex(4)}.tmp`;
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
export function decodeRecord<T>(bytes: Uint8Array, validate: (value: unknown) => T): T {
  // Strict: invalid UTF-8 or a BOM must not be silently "repaired" by the next rewrite.
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  if (text.trim() === '') throw new Error('the file is empty');
  return validate(JSON.parse(text));
}

/** decodeRecord, with any defect as exit 8 naming the file, which stays as it is (docs/reliability.md #57). */
export function parseRecord<T>(file: string, bytes: Uint8Array, validate: (value: unknown) => T): T {
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
 * name, no fsync), each write goes to its own temp file, is fsynced, renamed into place and the
 * directory fsynced, so a crash at any moment leaves the old or the new file (docs/reliability.md #55/#56).
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
    const dir = path.dirname(this.file);
    const tmp = path.join(dir, tempName(path.basename(this.file)));
    let handle: DiskHandle | undefined;
    let placed = false;
    try {
      handle = await this.disk.open(tmp, 'wx', 0o600);
      // The open mode passes through the umask; the file must be 0600 whatever it is (docs/reliability.md #76).
      await handle.chmod(0o600);
      await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
      await handle.sync();
      await handle.close();
      handle = undefined;
      this.opts.beforeCommit?.();
      placed = await (this.opts.mode === 'create' ? this.placeNew(tmp) : this.replace(tmp));
    } catch (err) {
      await handle?.close().catch(() => undefined);
      throw writeError(this.file, err);
    } finally {
      if (!placed) await this.disk.unlink(tmp).catch(() => undefined);
    }
    if (this.durableRename) await fsyncDir(dir, this.disk);
  }

  /** Hard-linking the temp file is atomic and exclusive: the file appears complete or not at all. */
  private async placeNew(tmp: string): Promise<boolean> {
    try {
      await this.disk.link(tmp, this.file);
      await this.disk.unlink(tmp).catch(() => undefined);
      return true;
    } catch (err) {
      if (errCode(err) === 'EEXIST') throw this.exists();
      if (!UNSUPPORTED_LINK.has(errCode(err) ?? '')) throw err;
    }
    // No hard links on this file system: the caller's lock keeps the check and rename together.
    const present = await this.disk.access(this.file).then(
      () => true,
      () => false,
    );
    if (present) throw this.exists();
    return this.replace(tmp);
  }

  private exists(): NsedError {
    return new NsedError('conflict', `session file ${this.file} already exists; it was not overwritten`);
  }

  /** Windows refuses a rename while another process holds the target open: retry a while (docs/reliability.md #63). */
  private async replace(tmp: string): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.disk.rename(tmp, this.file);
        return true;
      } catch (err) {
        const busy = ['EPERM', 'EBUSY', 'EACCES'].includes(errCode(err) ?? '');
        if (process.platform !== 'win32' || !busy || attempt >= 20) throw err;
        await sleep(100);
      }
    }
  }
}

/** Makes the rename durable (POSIX); some platforms cannot open a directory, which is harmless. */
async function fsyncDir(dir: string, disk: DiskOps): Promise<void> {
  const handle = await disk.open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close().catch(() => undefined);
}
