import fs from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomHex } from './random-hex.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { storeError } from '../errors.js';
import { isAlive, thisHost } from '../process-alive.js';

/** The lock as its holder sees it. */
export interface HeldLock {
  /** Set once the lock's mtime or owner changed behind the holder's back (another process took it over). */
  readonly compromised: Error | undefined;
  /**
   * Checks, synchronously and just before a commit, that the lock directory still names this
   * holder's token; sets `compromised` when it does not (the fencing check of docs/reliability.md #60).
   */
  stillHeld(): boolean;
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
  /** The error when another holder keeps it past `timeoutMs` (default: exit 8, the store's). */
  held?: (pid: number | undefined) => Error;
}

export const STALE_MS = 10_000;
const UPDATE_MS = 2_000;
const WAIT_NOTICE_MS = 250;
const OWNER_FILE = 'owner';

interface Owner {
  pid: number;
  host: string;
  /** Names one acquisition; older nsed versions wrote none. */
  token: string | undefined;
}

const ownerPath = (lockDir: string): string => path.join(lockDir, OWNER_FILE);
/** `<lock>.<why>-<pid>-<8 hex>`: a lock directory being built or removed (see removeStaleTemps). */
const asideName = (lockDir: string, why: 'new' | 'gone' | 'stale'): string =>
  `${lockDir}.${why}-${process.pid}-${randomHex(4)}`;

function parseOwner(text: string): Owner | undefined {
  const [pid, host, token] = text.split(' ');
  const n = Number(pid);
  return Number.isInteger(n) && n > 0 && host ? { pid: n, host, token } : undefined;
}

async function readOwner(lockDir: string): Promise<Owner | undefined> {
  try {
    return parseOwner(await readFile(ownerPath(lockDir), 'utf8'));
  } catch {
    return undefined;
  }
}

function readOwnerSync(lockDir: string): Owner | undefined {
  try {
    return parseOwner(fs.readFileSync(ownerPath(lockDir), 'utf8'));
  } catch {
    return undefined;
  }
}

const errCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? 'unknown error';

/*
 * The lock is a directory holding an `owner` file ("<pid> <host> <token>"), so waiters can say
 * who holds it and take over at once from a holder that died, and a holder can tell its own
 * lock from a successor's. The directory is built under another name and renamed into place,
 * so a lock is never seen without its owner, even after a kill -9 at any instruction: an
 * ownerless lock could only be recovered by going stale. (A rename replaces an *empty*
 * directory, which no nsed process leaves behind.) Taking a free lock is three synchronous
 * steps (the directory, its owner file, the rename): the turn's writes sit between the response
 * headers and the first event shown.
 */
function tryAcquire(lockDir: string, token: string, polling: boolean): boolean {
  // Waiters poll: a held lock should cost them one stat, not a directory built and thrown away. A
  // first try expects a free lock, as it nearly always is, and spends no stat on asking.
  if (polling && fs.existsSync(lockDir)) return false;
  const fresh = asideName(lockDir, 'new');
  try {
    fs.mkdirSync(fresh);
    fs.writeFileSync(ownerPath(fresh), `${process.pid} ${thisHost()} ${token}`, { mode: 0o600 });
  } catch (err) {
    fs.rmSync(fresh, { recursive: true, force: true });
    throw err;
  }
  try {
    fs.renameSync(fresh, lockDir);
    return true;
  } catch {
    fs.rmSync(fresh, { recursive: true, force: true });
    // The directory could be made beside the lock, so any failure to rename it into place means
    // the lock exists (the code varies by platform), even if it is gone again by now.
    return false;
  }
}

/**
 * Removes a lock that is free to take: its holder on this host is dead (at once), or its mtime is
 * older than STALE_MS (a lock of another host, or one without an owner file). The lock is renamed
 * aside first so that, of several waiters, only one removes it; if what was moved turns out to be
 * a newer lock, it is put back. True when the caller should try to lock again at once.
 */
async function takeOver(lockDir: string, owner: Owner | undefined): Promise<boolean> {
  const dead = owner !== undefined && owner.host === thisHost() && !isAlive(owner.pid);
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(lockDir).mtimeMs;
  } catch {
    return true; // gone already
  }
  if (!dead && Date.now() - mtimeMs <= STALE_MS) return false;
  const aside = asideName(lockDir, 'stale');
  try {
    await rename(lockDir, aside);
  } catch (err) {
    // Gone already: try to lock again. Anything else: wait for it to go stale instead.
    return errCode(err) === 'ENOENT';
  }
  const moved = await readOwner(aside);
  const same = owner === undefined ? moved === undefined : moved?.pid === owner.pid && moved.token === owner.token;
  if (same) {
    await rm(aside, { recursive: true, force: true });
    return true;
  }
  await rename(aside, lockDir).catch(() => rm(aside, { recursive: true, force: true }));
  return true;
}

/**
 * What the holder keeps: the token it wrote, and the mtime it last gave the directory. Every
 * UPDATE_MS it refreshes the mtime so waiters do not find the lock stale; a refresh that finds
 * the mtime or the owner changed (another process decided it was stale: a laptop sleep, an event
 * loop blocked for seconds) marks the lock compromised instead (docs/reliability.md #60).
 */
class Holder implements HeldLock {
  compromised: Error | undefined;
  private mtimeMs: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly lockDir: string,
    private readonly token: string,
  ) {
    this.mtimeMs = fs.statSync(lockDir).mtimeMs;
    this.timer = setInterval(() => this.refresh(), UPDATE_MS).unref();
  }

  stillHeld(): boolean {
    if (this.compromised === undefined && readOwnerSync(this.lockDir)?.token !== this.token)
      this.lose('the lock was taken over by another process');
    return this.compromised === undefined;
  }

  release(): void {
    clearInterval(this.timer);
    // A lock that is no longer ours is left to its new holder.
    if (readOwnerSync(this.lockDir)?.token !== this.token) return;
    const aside = asideName(this.lockDir, 'gone');
    try {
      // Renamed away first, so no lock directory is ever seen without its owner file, even if the
      // process dies half-way through removing it; removeStaleTemps sweeps what such a death leaves.
      fs.renameSync(this.lockDir, aside);
    } catch {
      return;
    }
    try {
      // Two calls, not rmSync's recursive walk, which loads its own module on first use.
      fs.unlinkSync(ownerPath(aside));
      fs.rmdirSync(aside);
    } catch {
      // Whatever is left aside is swept by removeStaleTemps once this process is gone.
    }
  }

  private refresh(): void {
    if (this.compromised !== undefined) return;
    try {
      if (fs.statSync(this.lockDir).mtimeMs !== this.mtimeMs || !this.stillHeld()) {
        this.lose('the lock was changed by another process');
        return;
      }
      const now = new Date();
      fs.utimesSync(this.lockDir, now, now);
      this.mtimeMs = fs.statSync(this.lockDir).mtimeMs;
    } catch (err) {
      this.lose(`the lock could not be refreshed: ${errCode(err)}`);
    }
  }

  private lose(why: string): void {
    this.compromised ??= Object.assign(new Error(why), { code: 'ECOMPROMISED' });
    clearInterval(this.timer);
  }
}

/** Runs `fn` while holding the cross-process lock; waits a bounded time for another holder. */
export async function withLock<T>(req: LockRequest, fn: (held: HeldLock) => Promise<T>): Promise<T> {
  const lockPath = req.lockPath ?? `${req.target}.lock`;
  const token = randomHex(8);
  const start = Date.now();
  let delay = 2;
  let noticed = false;
  for (let polling = false; ; polling = true) {
    let acquired: boolean;
    try {
      acquired = tryAcquire(lockPath, token, polling);
    } catch (err) {
      throw storeError(`cannot lock ${req.label}: ${errCode(err)}`, { cause: err });
    }
    if (acquired) break;
    const owner = await readOwner(lockPath);
    if (await takeOver(lockPath, owner)) continue;
    const waited = Date.now() - start;
    if (waited >= req.timeoutMs) {
      if (req.held !== undefined) throw req.held(owner?.pid);
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
  let holder: Holder;
  try {
    holder = new Holder(lockPath, token);
  } catch (err) {
    throw storeError(`cannot lock ${req.label}: ${errCode(err)}`, { cause: err });
  }
  try {
    return await fn(holder);
  } finally {
    holder.release();
  }
}
