import fs from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomHex } from './random-hex.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { storeError } from '../errors.js';
import type * as ProperLockfileModule from 'proper-lockfile';

/** The lock as its holder sees it; `compromised` is set when another process took it over. */
export interface HeldLock {
  readonly compromised: Error | undefined;
}

export interface LockRequest {
  /** The file the lock protects. */
  target: string;
  /** The lock directory; `<target>.lock` by default. */
  lockPath?: string;
  /** How messages name the locked thing, e.g. `session 20261130-3f9a2c1b`. */
  label: string;
  /** Longest wait for another holder before giving up with exit 8. */
  timeoutMs: number;
  /** Called once when the wait passes WAIT_NOTICE_MS, with the holder's pid when known. */
  onWait?: (pid: number | undefined) => void;
}

export const STALE_MS = 10_000;
const UPDATE_MS = 2_000;
const WAIT_NOTICE_MS = 250;
const OWNER_FILE = 'owner';

interface Owner {
  pid: number;
  host: string;
}

type ProperLockfile = Pick<typeof ProperLockfileModule, 'lock'>;
let properLockfile: Promise<ProperLockfile> | undefined;
// Loaded on first use: `sessions ls` rarely needs a lock and should not pay for it.
const loadLockfile = (): Promise<ProperLockfile> =>
  (properLockfile ??= import('proper-lockfile').then((m): ProperLockfile => m.default));

const ownerPath = (lockDir: string): string => path.join(lockDir, OWNER_FILE);
/** `<lock>.<why>-<pid>-<8 hex>`: a lock directory being built or removed (see removeStaleTemps). */
const asideName = (lockDir: string, why: 'new' | 'gone' | 'stale'): string =>
  `${lockDir}.${why}-${process.pid}-${randomHex(4)}`;

/*
 * proper-lockfile's lock is a directory. Ours holds an `owner` file ("<pid> <host>") so waiters
 * can say who holds it and take over at once from a holder that died. The directory is built
 * under another name and renamed into place, so a lock is never seen without its owner, even
 * after a kill -9 at any instruction: an ownerless lock could only be recovered by going stale.
 * (A rename replaces an *empty* directory, which no nsed process leaves behind.)
 */
const lockFs = {
  mkdir(dir: string, cb: (err: NodeJS.ErrnoException | null) => void): void {
    // Waiters poll: a held lock should cost them one stat, not a directory built and thrown away.
    if (fs.existsSync(dir)) {
      process.nextTick(cb, Object.assign(new Error(`${dir} is held`), { code: 'EEXIST' }));
      return;
    }
    const fresh = asideName(dir, 'new');
    try {
      fs.mkdirSync(fresh);
      fs.writeFileSync(ownerPath(fresh), `${process.pid} ${os.hostname()}`, { mode: 0o600 });
    } catch (err) {
      fs.rmSync(fresh, { recursive: true, force: true });
      process.nextTick(cb, err as NodeJS.ErrnoException);
      return;
    }
    try {
      fs.renameSync(fresh, dir);
    } catch (err) {
      fs.rmSync(fresh, { recursive: true, force: true });
      // The directory could be made beside the lock, so any failure to rename it into place means
      // the lock exists (the code varies by platform), even if it is gone again by now.
      process.nextTick(cb, Object.assign(new Error(`${dir} is held`), { code: 'EEXIST', cause: err }));
      return;
    }
    process.nextTick(cb, null);
  },
  // Renamed away first, so no lock directory is ever seen without its owner file, even if the
  // process dies half-way through removing it; removeStaleTemps sweeps what such a death leaves.
  rmdir(dir: string, cb: (err: NodeJS.ErrnoException | null) => void): void {
    const aside = asideName(dir, 'gone');
    fs.rename(dir, aside, (err) => {
      if (err) return cb(err);
      fs.unlink(ownerPath(aside), () => fs.rmdir(aside, () => cb(null)));
    });
  },
  rmdirSync(dir: string): void {
    const aside = asideName(dir, 'gone');
    fs.renameSync(dir, aside);
    fs.rmSync(aside, { recursive: true, force: true });
  },
  stat: fs.stat,
  utimes: fs.utimes,
  realpath: fs.realpath,
};

async function readOwner(lockDir: string): Promise<Owner | undefined> {
  try {
    const [pid, host] = (await readFile(ownerPath(lockDir), 'utf8')).split(' ');
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 && host ? { pid: n, host } : undefined;
  } catch {
    return undefined;
  }
}

/** False only when the pid certainly names no process (EPERM means it exists, as someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

const errCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? 'unknown error';

/**
 * Removes a lock whose holder on this host is dead, without waiting for the mtime to go stale
 * (docs/reliability.md #59). The lock is renamed aside first so that, of several waiters, only one
 * removes it; if what was moved turns out to be a newer live lock, it is put back.
 */
async function takeOverFromDead(lockDir: string, owner: Owner): Promise<boolean> {
  if (owner.host !== os.hostname() || isAlive(owner.pid)) return false;
  const aside = asideName(lockDir, 'stale');
  try {
    await rename(lockDir, aside);
  } catch (err) {
    // Gone already: try to lock again. Anything else: wait for it to go stale instead.
    return errCode(err) === 'ENOENT';
  }
  const moved = await readOwner(aside);
  if (moved?.pid === owner.pid && moved.host === owner.host) {
    await rm(aside, { recursive: true, force: true });
    return true;
  }
  await rename(aside, lockDir).catch(() => rm(aside, { recursive: true, force: true }));
  return true;
}

/** Runs `fn` while holding the cross-process lock; waits a bounded time for another holder. */
export async function withLock<T>(req: LockRequest, fn: (held: HeldLock) => Promise<T>): Promise<T> {
  const lockfile = await loadLockfile();
  const lockPath = req.lockPath ?? `${req.target}.lock`;
  const held: { compromised: Error | undefined } = { compromised: undefined };
  const start = Date.now();
  let delay = 2;
  let noticed = false;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lockfile.lock(req.target, {
        realpath: false,
        stale: STALE_MS,
        update: UPDATE_MS,
        retries: 0,
        lockfilePath: lockPath,
        fs: lockFs,
        // The default throws from a timer and kills the process; the writer checks this instead.
        onCompromised: (err) => {
          held.compromised = err;
        },
      });
      break;
    } catch (err) {
      if (errCode(err) !== 'ELOCKED') {
        throw storeError(`cannot lock ${req.label}: ${errCode(err)}`, { cause: err });
      }
      const owner = await readOwner(lockPath);
      if (owner && (await takeOverFromDead(lockPath, owner))) continue;
      const waited = Date.now() - start;
      if (waited >= req.timeoutMs) {
        const who = owner ? ` (pid ${owner.pid})` : '';
        throw storeError(`${req.label} is locked by another nsed process${who}`, {
          hint: `try again when it has finished; a lock left by a crashed process expires after ${STALE_MS / 1000} s`,
        });
      }
      if (!noticed && waited >= WAIT_NOTICE_MS) {
        noticed = true;
        req.onWait?.(owner?.pid);
      }
      // Jittered backoff, so waiters spread out instead of retrying in lock-step.
      await sleep(Math.min(delay * (0.5 + Math.random()), req.timeoutMs - waited + 1));
      delay = Math.min(delay * 1.5, 25);
    }
  }
  try {
    return await fn(held);
  } finally {
    // A compromised lock is already released; there is nothing left to undo.
    await release().catch(() => undefined);
  }
}
