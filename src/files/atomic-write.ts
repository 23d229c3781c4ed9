import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomHex } from '../session/random-hex.js';

/**
 * The one way nsed replaces a file: the store's session files, its listing index and policy
 * cache, the config file and every file written outside the store (outside-file.ts).
 *
 * The fsync rule (docs/reliability.md #56, #82): the new content goes to a temp file beside the
 * target, created exclusively with mode 0600 (set again after creation, whatever the umask); it is
 * written whole and fsynced, then renamed over the target, then the directory is fsynced so that
 * the rename survives a power loss. A crash at any moment leaves the old file or the new one,
 * never a part. The one exception is `durable: false`, which skips the directory fsync: only for a
 * write whose loss the file as it was already recovers (the store's pending-job marker over a
 * durable turn claim, docs/reliability.md #36).
 */

/** The calls made on an open file. */
export interface DiskHandle {
  chmod(mode: number): Promise<void>;
  writeFile(data: string | Uint8Array): Promise<void>;
  readFile(): Promise<Buffer>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file-system calls a write makes, so a test can hand it a failing disk. */
export interface DiskOps {
  open(file: string, flags: string | number, mode?: number): Promise<DiskHandle>;
  rename(from: string, to: string): Promise<void>;
  link(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  access(file: string): Promise<void>;
}

function syncHandle(fd: number): DiskHandle {
  return {
    // A chmod is a journaled metadata write even when it changes nothing; an fstat is not.
    chmod: async (mode) => {
      if ((fs.fstatSync(fd).mode & 0o7777) !== mode) fs.fchmodSync(fd, mode);
    },
    writeFile: async (data) => fs.writeFileSync(fd, data),
    readFile: async () => fs.readFileSync(fd),
    sync: async () => fs.fsyncSync(fd),
    close: async () => fs.closeSync(fd),
  };
}

/**
 * The real disk, through synchronous calls behind the promise-shaped DiskOps. A locked write is
 * some twenty small calls, and each asynchronous one is a round trip through libuv's thread pool
 * and the event loop; on a busy machine those round trips, not the fsyncs, were most of the time
 * between the response headers and the first event shown. The event
 * loop is held for the write itself (an fsync is ~0.5 ms here), as it was awaited anyway.
 */
export const realDisk: DiskOps = {
  open: async (file, flags, mode) => syncHandle(fs.openSync(file, flags, mode)),
  rename: async (from, to) => fs.renameSync(from, to),
  link: async (from, to) => fs.linkSync(from, to),
  unlink: async (file) => fs.unlinkSync(file),
  access: async (file) => fs.accessSync(file),
};

/**
 * The real disk for many writes at once in one process (the batch's store,
 * docs/reliability.md #260): the same synchronous calls, except the fsyncs, which go through the thread pool, so
 * the event loop serves the other turns' streams while the disk syncs, and the file system
 * commits the fsyncs that wait together in one journal commit.
 */
export const poolSyncDisk: DiskOps = {
  ...realDisk,
  open: async (file, flags, mode) => {
    const fd = fs.openSync(file, flags, mode);
    return {
      ...syncHandle(fd),
      sync: () => new Promise<void>((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve()))),
    };
  },
};

/** `.<name>.<pid>.<8 hex>.tmp`: unique per process and per write (docs/reliability.md #55). */
export function tempName(fileName: string): string {
  return `.${fileName}.${process.pid}.${randomHex(4)}.tmp`;
}

export interface AtomicWriteOptions {
  /** false: the directory is not fsynced after the rename (see the rule above). Default true. */
  durable?: boolean;
  /**
   * Refuse to replace an existing file: the write fails with an EEXIST error. `link`: only by an
   * exclusive hard link, which needs no lock around it; where the file system has none, the write
   * fails with NoHardLinks (and the caller retries with `true` under its lock).
   */
  exclusive?: boolean | 'link';
  /** Runs once the new content is durable, just before it replaces the file; throwing aborts. */
  beforeCommit?: () => void;
  disk?: DiskOps;
  /** Makes the rename durable in place of this write's own directory fsync (a group commit, files/sync-group.ts). */
  syncDir?: (dir: string) => Promise<void>;
}

/** An exclusive write by hard link (`exclusive: 'link'`) on a file system that has none: nothing was written. */
export class NoHardLinks extends Error {}

const UNSUPPORTED_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);
const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/**
 * Replaces `file` with `data` (a string is written as UTF-8) by the rule above. Errors are the file system's own (with their
 * errno `code`), or whatever `beforeCommit` threw; the caller says what they mean to the user.
 * The temp file never outlives a failed write.
 */
export async function writeAtomic(
  file: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const disk = opts.disk ?? realDisk;
  const dir = path.dirname(file);
  const tmp = path.join(dir, tempName(path.basename(file)));
  let handle: DiskHandle | undefined;
  let placed = false;
  try {
    handle = await disk.open(tmp, 'wx', 0o600);
    // The open mode passes through the umask; the file must be 0600 whatever it is (docs/reliability.md #76).
    await handle.chmod(0o600);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    opts.beforeCommit?.();
    placed = await (opts.exclusive === undefined || opts.exclusive === false
      ? replace(tmp, file, disk)
      : placeNew(tmp, file, disk, opts.exclusive === 'link'));
  } catch (err) {
    await handle?.close().catch(() => undefined);
    throw err;
  } finally {
    if (!placed) await disk.unlink(tmp).catch(() => undefined);
  }
  if (opts.durable === false) return;
  await (opts.syncDir === undefined ? fsyncDir(dir, disk) : opts.syncDir(dir));
}

function exists(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EEXIST: ${file} already exists`), { code: 'EEXIST' });
}

/** Hard-linking the temp file is atomic and exclusive: the file appears complete or not at all. */
async function placeNew(tmp: string, file: string, disk: DiskOps, linkOnly: boolean): Promise<boolean> {
  try {
    await disk.link(tmp, file);
    await disk.unlink(tmp).catch(() => undefined);
    return true;
  } catch (err) {
    if (errCode(err) === 'EEXIST') throw exists(file);
    if (!UNSUPPORTED_LINK.has(errCode(err) ?? '')) throw err;
    if (linkOnly) throw new NoHardLinks(`no hard links where ${file} is`);
  }
  // No hard links on this file system: the caller's lock keeps the check and rename together.
  const present = await disk.access(file).then(
    () => true,
    () => false,
  );
  if (present) throw exists(file);
  return replace(tmp, file, disk);
}

/** Windows refuses a rename while another process holds the target open: retry a while (docs/reliability.md #63). */
async function replace(tmp: string, file: string, disk: DiskOps): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await disk.rename(tmp, file);
      return true;
    } catch (err) {
      const busy = ['EPERM', 'EBUSY', 'EACCES'].includes(errCode(err) ?? '');
      if (process.platform !== 'win32' || !busy || attempt >= 20) throw err;
      await sleep(100);
    }
  }
}

/** Makes the rename durable (POSIX); some platforms cannot open or sync a directory, which is harmless. */
export async function fsyncDir(dir: string, disk: DiskOps): Promise<void> {
  const handle = await disk.open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close().catch(() => undefined);
}
