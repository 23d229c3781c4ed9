import fs, { constants as fsConstants } from 'node:fs';
import { mkdir, readlink, lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NsedError, usageError } from '../errors.js';
import { writeAtomic } from './atomic-write.js';

/**
 * The one way nsed writes a file outside its store: `sessions export --out`, the config file,
 * and the reports. The rule (docs/reliability.md #82-#85, docs/usage.md "Files nsed writes"):
 *
 * - a regular file, or a path where nothing is, is replaced atomically (atomic-write.ts, mode 0600);
 * - a character device, a FIFO or a socket is written directly, never replaced, so `/dev/null`,
 *   `/dev/stdout` and a named pipe work, and `/dev/full` fails with ENOSPC named;
 * - a directory or a block device is refused (exit 2), nothing written;
 * - a symbolic link is followed: what it finally points to is treated by the rules above, and a
 *   regular target is replaced where it is, so the link stays a link;
 * - `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` (or a link to one) name nsed's
 *   own descriptor, which is written as it is, whatever it is: a pipe, a socket (a parent that
 *   spawned nsed from Node.js, systemd), or a file the shell opened (`>>` still appends).
 *
 * With `append`, a regular file (or a path where nothing is) is appended to instead of replaced:
 * opened with O_APPEND (created 0600 when missing), written whole and fsynced, so what others
 * wrote to it stays (GitHub's `$GITHUB_OUTPUT`, docs/ci.md "Step outputs"); every other kind of
 * target is treated as above.
 *
 * A failed write is exit 11 (io) naming the file and the error.
 */
export interface OutsideWriteOptions {
  /** What the file is, for messages (`the config file`); by default the path alone names it. */
  label?: string;
  /** Creates missing parent folders (mode 0700), as for the config file. */
  makeDirs?: boolean;
  /** Longest wait for a process to open a FIFO for reading, and for a stalled device to take bytes (default 10 s). */
  waitMs?: number;
  /** The pause between two tries while waiting; tests make the wait short, never the pause racy. */
  pauseMs?: number;
  /** Appends to a regular file instead of replacing it (see above). */
  append?: boolean;
}

/** How the target was written, for the caller's tests and messages. */
export type OutsideKind = 'replaced' | 'appended' | 'device' | 'fifo' | 'socket' | 'descriptor';

const DEFAULT_WAIT_MS = 10_000;
const MAX_LINKS = 40;
const errCode = (err: unknown): string => (err as NodeJS.ErrnoException | null)?.code ?? String(err);

export async function writeOutsideFile(
  file: string,
  data: string,
  opts: OutsideWriteOptions = {},
): Promise<OutsideKind> {
  const target = path.resolve(file);
  const label = opts.label === undefined ? '' : `${opts.label} `;
  const fd = await ownDescriptor(target, label);
  if (fd !== undefined) {
    await writeAll(fd, target, label, Buffer.from(data, 'utf8'), opts);
    return 'descriptor';
  }
  let st: fs.Stats | undefined;
  try {
    st = await stat(target);
  } catch (err) {
    if (errCode(err) === 'ELOOP') throw usageError(`${label}${target} is a loop of symbolic links`);
    if (errCode(err) !== 'ENOENT') throw ioError(label, target, err);
  }
  if (st === undefined || st.isFile()) {
    const real = await finalTarget(target, label);
    try {
      if (opts.makeDirs === true) await mkdir(path.dirname(real), { recursive: true, mode: 0o700 });
      if (opts.append === true) {
        appendWhole(real, Buffer.from(data, 'utf8'));
        return 'appended';
      }
      await writeAtomic(real, data);
    } catch (err) {
      throw ioError(label, target, err);
    }
    return 'replaced';
  }
  if (st.isDirectory()) {
    throw usageError(`${label}${target} is a directory; nsed writes a file, never into a folder`, 'name a file');
  }
  if (st.isCharacterDevice() || st.isFIFO()) {
    await writeDirect(target, label, Buffer.from(data, 'utf8'), opts);
    return st.isFIFO() ? 'fifo' : 'device';
  }
  if (st.isSocket()) {
    await writeSocket(target, label, data, opts.waitMs ?? DEFAULT_WAIT_MS);
    return 'socket';
  }
  throw usageError(`${label}${target} is a block device; nsed does not write to it`, 'name a regular file');
}

/**
 * Checked before anything is spent (a deliberation, a batch): a path the write would refuse for
 * its shape is a usage error (exit 2) now, not a failure after the work: its folder is missing,
 * it names a folder, or its links loop (docs/usage.md "Files nsed writes").
 */
export async function checkOutsidePath(file: string, label: string): Promise<void> {
  const target = path.resolve(file);
  const st = await statRefusingLoop(file, label);
  if (st?.isDirectory() === true)
    throw usageError(`${label} ${file} is a folder`, `name a file in it, e.g. ${path.join(file, 'nsed-report')}`);
  if (st !== undefined) return;
  const dir = await stat(path.dirname(target)).catch(() => undefined);
  if (dir === undefined || !dir.isDirectory())
    throw usageError(`${label} ${file}: the folder ${path.dirname(target)} does not exist`, 'create it first');
}

/** What the path names, links followed; undefined where nothing is; a loop of links is exit 2. */
export async function statRefusingLoop(file: string, label: string): Promise<fs.Stats | undefined> {
  try {
    return await stat(path.resolve(file));
  } catch (err) {
    if (errCode(err) === 'ELOOP')
      throw usageError(`${label} ${file} is a loop of symbolic links`, 'name a regular file, or fix the links');
    return undefined;
  }
}

/**
 * The file a path finally names once its links are followed, even when that file does not exist
 * yet (a dangling link names the file it would create). Relative links resolve against the
 * folder of the link.
 */
async function finalTarget(start: string, label: string): Promise<string> {
  let current = start;
  for (let hop = 0; hop < MAX_LINKS; hop++) {
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (err) {
      if (errCode(err) === 'ENOENT') return current;
      throw ioError(label, start, err);
    }
    if (!isLink) return current;
    current = path.resolve(path.dirname(current), await readlink(current));
  }
  throw usageError(`${label}${start} is a loop of symbolic links`);
}

/** The descriptor `/dev/stdout` and its kin name, following links to one; undefined for any other path. */
async function ownDescriptor(start: string, label: string): Promise<number | undefined> {
  let current = start;
  for (let hop = 0; hop < MAX_LINKS; hop++) {
    const fd = descriptorOf(current);
    if (fd !== undefined) return fd;
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch {
      return undefined;
    }
    if (!isLink) return undefined;
    current = path.resolve(path.dirname(current), await readlink(current));
  }
  throw usageError(`${label}${start} is a loop of symbolic links`);
}

const FD_PATH = /^\/(?:dev\/fd|proc\/(self|\d+)\/fd)\/(\d+)$/;

function descriptorOf(p: string): number | undefined {
  if (process.platform === 'win32') return undefined;
  if (p === '/dev/stdout') return 1;
  if (p === '/dev/stderr') return 2;
  const m = FD_PATH.exec(p);
  if (m === null || (m[1] !== undefined && m[1] !== 'self' && Number(m[1]) !== process.pid)) return undefined;
  return Number(m[2]);
}

/** One append of the whole text, fsynced before the file is closed; a regular file takes every byte or fails. */
function appendWhole(file: string, bytes: Buffer): void {
  const fd = fs.openSync(file, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT, 0o600);
  try {
    for (let off = 0; off < bytes.length;) off += fs.writeSync(fd, bytes, off, bytes.length - off);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const NON_BLOCK = fsConstants.O_WRONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOCTTY ?? 0);

/**
 * A device or FIFO, opened without blocking (a FIFO nobody reads would otherwise hold the open
 * forever) and written whole. A FIFO with no reader yet is retried for `waitMs`; a device that
 * takes no byte for `waitMs` is given up on. A reader that leaves (EPIPE) ends the write quietly,
 * as on standard output (docs/reliability.md #69).
 */
async function writeDirect(file: string, label: string, bytes: Buffer, opts: OutsideWriteOptions): Promise<void> {
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const pauseMs = opts.pauseMs ?? 20;
  let fd: number | undefined;
  for (let waited = 0; fd === undefined; waited += pauseMs) {
    try {
      fd = fs.openSync(file, NON_BLOCK);
    } catch (err) {
      if (errCode(err) !== 'ENXIO') throw ioError(label, file, err);
      if (waited >= waitMs) {
        throw new NsedError('io', `cannot write ${label}${file}: no process opened the FIFO for reading`, {
          cause: err,
          hint: `start its reader first (e.g. cat ${file}), or name a regular file`,
        });
      }
      await sleep(pauseMs);
    }
  }
  try {
    await writeAll(fd, file, label, bytes, opts);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes every byte to `fd`, waiting out a full pipe or device for at most `waitMs` without progress. */
async function writeAll(
  fd: number,
  file: string,
  label: string,
  bytes: Buffer,
  opts: OutsideWriteOptions,
): Promise<void> {
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const pauseMs = opts.pauseMs ?? 20;
  let off = 0;
  let idle = 0;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
      idle = 0;
    } catch (err) {
      if (errCode(err) === 'EPIPE') return;
      if (errCode(err) !== 'EAGAIN' || idle >= waitMs) throw ioError(label, file, err);
      idle += pauseMs;
      await sleep(pauseMs);
    }
  }
}

/** A Unix socket cannot be opened as a file: connect, send, close, each step bounded by `waitMs`. */
async function writeSocket(file: string, label: string, data: string, waitMs: number): Promise<void> {
  const { createConnection } = await import('node:net');
  await new Promise<void>((resolve, reject) => {
    const socket = createConnection({ path: file });
    socket.setTimeout(waitMs, () => socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    socket.on('error', (err) => reject(ioError(label, file, err)));
    socket.on('connect', () => socket.end(data));
    socket.on('close', (hadError) => {
      if (!hadError) resolve();
    });
  });
}

const FULL = new Set(['ENOSPC', 'EDQUOT']);

function ioError(label: string, file: string, err: unknown): NsedError {
  if (err instanceof NsedError) return err;
  const code = errCode(err);
  const hint = FULL.has(code)
    ? 'free some disk space, or name a file on another disk'
    : code === 'ENOENT' || code === 'ENOTDIR'
      ? 'check that the folder exists'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'check the permissions of the file and its folder'
        : undefined;
  return new NsedError('io', `cannot write ${label}${file}: ${code}`, {
    cause: err,
    ...(hint === undefined ? {} : { hint }),
  });
}
