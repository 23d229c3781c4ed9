import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { realDisk, type DiskOps } from '../../src/files/atomic-write.js';
import { openFileStore } from '../../src/session/file-store.js';
import { withLock } from '../../src/session/lock.js';
import { session, tempHome } from '../harness/temp-store.js';
import { failingDisk } from './fixtures/failing-disk.js';

async function failure(p: Promise<unknown>): Promise<NsedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof NsedError)) throw new Error(`expected an NsedError, got ${String(err)}`);
  return err;
}

/** A lock directory as another nsed process leaves it: `owner` holds "<pid> <host>". */
async function plantLock(lockDir: string, owner: string | undefined, ageMs: number): Promise<void> {
  await mkdir(lockDir);
  if (owner !== undefined) await writeFile(path.join(lockDir, 'owner'), owner);
  const t = new Date(Date.now() - ageMs);
  await utimes(lockDir, t, t);
}

const DEAD_PID = 2147483646;

describe('the per-session lock', () => {
  it.each([
    ['with no owner file', undefined],
    ['held by a pid on another host', `${process.ppid} another-host`],
  ])('takes over a stale lock %s once its mtime is older than 10 s (#59)', async (_what, owner) => {
    const waits: Array<number | undefined> = [];
    const store = openFileStore(await tempHome(), { lockTimeoutMs: 2_000, onLockWait: (pid) => waits.push(pid) });
    await store.create(session('s'));
    await plantLock(path.join(store.dir, 's.json.lock'), owner, 60_000);
    await store.update('s', (s) => {
      s.title = 'taken over';
    });
    // Taken over without waiting for it (the store reports every wait), however slow the machine.
    expect(waits).toEqual([]);
    expect((await store.read('s')).title).toBe('taken over');
    expect(await readdir(store.dir)).toEqual(['s.json']);
  });

  it('takes over at once from a holder on this host whose process is gone (reliability #59)', async () => {
    const waits: Array<number | undefined> = [];
    const store = openFileStore(await tempHome(), { lockTimeoutMs: 2_000, onLockWait: (pid) => waits.push(pid) });
    await store.create(session('s'));
    await plantLock(path.join(store.dir, 's.json.lock'), `${DEAD_PID} ${os.hostname()}`, 0);
    await store.update('s', (s) => {
      s.title = 'taken over';
    });
    expect(waits).toEqual([]);
    expect(await readdir(store.dir)).toEqual(['s.json']);
  });

  it('gives up on a live holder after the bounded wait, naming its pid, with the file unchanged', async () => {
    const waits: Array<number | undefined> = [];
    const store = openFileStore(await tempHome(), { lockTimeoutMs: 600, onLockWait: (pid) => waits.push(pid) });
    await store.create(session('busy'));
    const file = path.join(store.dir, 'busy.json');
    const before = await readFile(file, 'utf8');
    await plantLock(`${file}.lock`, `${process.ppid} ${os.hostname()}`, 0);
    const started = Date.now();
    const err = await failure(
      store.update('busy', (s) => {
        s.title = 'never';
      }),
    );
    const waited = Date.now() - started;
    expect(err.exitCode).toBe(8);
    expect(err.message).toBe(`session busy is locked by another nsed process (pid ${process.ppid})`);
    // Never gives up early; how late a busy machine lets it give up is not a test's business.
    expect(waited).toBeGreaterThanOrEqual(550);
    expect(waits).toEqual([process.ppid]);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('creates a new session by an exclusive link, without its lock: no process locks a session that does not exist yet (reliability #54)', async () => {
    const store = openFileStore(await tempHome(), { lockTimeoutMs: 1 });
    const lockDir = path.join(store.dir, 'fresh.json.lock');
    await mkdir(store.dir, { recursive: true });
    // A lock held by a live process on the id: a create that took the lock would fail here (exit 8).
    await plantLock(lockDir, `${process.ppid} ${os.hostname()} theirs`, 0);
    await store.create(session('fresh'));
    expect((await store.read('fresh')).id).toBe('fresh');
    // Theirs, untouched.
    expect(await readFile(path.join(lockDir, 'owner'), 'utf8')).toBe(`${process.ppid} ${os.hostname()} theirs`);
    // Of two creates of one id, the second is refused (exit 7) and the first file stays.
    const err = await failure(store.create({ ...session('fresh'), title: 'second' }));
    expect(err.exitCode).toBe(7);
    expect((await store.read('fresh')).title).not.toBe('second');
  });

  it('creates under the lock where the file system has no hard links (the check and the rename together)', async () => {
    const store = openFileStore(await tempHome(), { lockTimeoutMs: 1, disk: failingDisk('link', 'EPERM') });
    const lockDir = path.join(store.dir, 'held.json.lock');
    await mkdir(store.dir, { recursive: true });
    await plantLock(lockDir, `${process.ppid} ${os.hostname()} theirs`, 0);
    const err = await failure(store.create(session('held')));
    expect(err.exitCode).toBe(8);
    await rm(lockDir, { recursive: true });
    await store.create(session('held'));
    expect((await store.read('held')).id).toBe('held');
  });

  it('waits for a holder that releases in time, then writes', async () => {
    // The holder lets go once the writer has started waiting for it, not after a guessed pause.
    let writerWaits = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (writerWaits = resolve));
    const store = openFileStore(await tempHome(), { lockTimeoutMs: 60_000, onLockWait: () => writerWaits() });
    await store.create(session('w'));
    const file = path.join(store.dir, 'w.json');
    let released = 0;
    let holding = (): void => undefined;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = withLock({ target: file, label: 'test', timeoutMs: 1_000 }, async () => {
      holding();
      await waiting;
      released = Date.now();
    });
    await held;
    await store.update('w', (s) => {
      s.title = 'after the wait';
    });
    await holder;
    expect(released).toBeGreaterThan(0);
    expect((await stat(file)).mtimeMs).toBeGreaterThanOrEqual(released - 5);
    expect((await store.read('w')).title).toBe('after the wait');
  });

  it('survives a compromised lock without crashing, and redoes the write under a fresh lock (reliability #60)', async () => {
    const home = await tempHome();
    await openFileStore(home).create(session('c'));
    const lockDir = path.join(home, 'sessions', 'c.json.lock');
    let stalled = false;
    // A write that stalls past the lock's refresh, as after a laptop sleep, while another
    // process decides the lock is stale (its mtime is made old).
    const disk: DiskOps = {
      ...realDisk,
      open: (async (file: string, ...rest: unknown[]) => {
        if (!stalled && String(file).endsWith('.tmp')) {
          stalled = true;
          const old = new Date(Date.now() - 60_000);
          await utimes(lockDir, old, old);
          await sleep(2_300);
        }
        return (realDisk.open as (...a: unknown[]) => ReturnType<DiskOps['open']>)(file, ...rest);
      }) as DiskOps['open'],
    };
    const store = openFileStore(home, { disk });
    let runs = 0;
    const written = await store.update('c', (s) => {
      runs++;
      s.turns.push({ id: `t${runs}`, role: 'user', kind: 'message', content: 'x', status: 'complete', ts: 'now' });
    });
    expect(stalled).toBe(true);
    expect(runs).toBe(2);
    expect(written.turns.map((t) => t.id)).toEqual(['t2']);
    expect((await store.read('c')).turns.map((t) => t.id)).toEqual(['t2']);
  });

  it('still writes and lists correctly while the index lock is held by someone else', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    await store.create(session('i'));
    await plantLock(path.join(home, 'index.lock'), `${process.ppid} ${os.hostname()}`, 0);
    await store.update('i', (s) => {
      s.title = 'index was busy';
    });
    expect((await store.list()).sessions[0]?.title).toBe('index was busy');
  });

  it('reports a session removed while it waited for the lock as not found (reliability #64)', async () => {
    let writerWaits = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (writerWaits = resolve));
    const store = openFileStore(await tempHome(), { lockTimeoutMs: 60_000, onLockWait: () => writerWaits() });
    await store.create(session('doomed'));
    const file = path.join(store.dir, 'doomed.json');
    let holding = (): void => undefined;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = withLock({ target: file, label: 'test', timeoutMs: 1_000 }, async () => {
      holding();
      await waiting;
      await rm(file);
    });
    await held;
    const err = await failure(
      store.update('doomed', (s) => {
        s.title = 'resurrected';
      }),
    );
    await holder;
    expect(err.exitCode).toBe(3);
    expect(await readdir(store.dir)).toEqual([]);
  });
});
