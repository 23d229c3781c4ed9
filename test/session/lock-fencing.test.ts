// The fencing check of docs/reliability.md #60: a holder that was starved while it wrote (a
// machine at load 35, a laptop sleep) and whose lock another process took over meanwhile must
// notice before its rename, and redo its write under a fresh lock instead of committing over the
// new holder's. Driven through the disk: the takeover happens inside the write, not after a pause.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realDisk, type DiskOps } from '../../src/files/atomic-write.js';
import { openFileStore } from '../../src/session/file-store.js';
import { withLock } from '../../src/session/lock.js';
import { session, tempHome } from '../harness/temp-store.js';

describe('a lock taken over while its holder writes (reliability #60)', () => {
  it('is noticed before the rename; the write is redone after the new holder lets go, whose lock is left alone', async () => {
    const home = await tempHome();
    await openFileStore(home).create(session('f'));
    const lockDir = path.join(home, 'sessions', 'f.json.lock');
    const successor = `${process.ppid} ${os.hostname()} successor`;
    let tookOver = false;
    // Another process decides the lock is stale and takes it: the old directory goes, a new one
    // with its own owner takes its place, while this write is still on its way to the rename.
    const disk: DiskOps = {
      ...realDisk,
      open: (async (file: string, ...rest: unknown[]) => {
        if (!tookOver && String(file).endsWith('.tmp')) {
          tookOver = true;
          await rename(lockDir, `${lockDir}.taken`);
          await rm(`${lockDir}.taken`, { recursive: true });
          await mkdir(lockDir);
          await writeFile(path.join(lockDir, 'owner'), successor);
        }
        return (realDisk.open as (...a: unknown[]) => ReturnType<DiskOps['open']>)(file, ...rest);
      }) as DiskOps['open'],
    };
    const seenWhileWaiting: string[] = [];
    const store = openFileStore(home, {
      disk,
      lockTimeoutMs: 60_000,
      // The redo waits for the successor; by then the first attempt has let go of what it held.
      onLockWait: () => {
        void readFile(path.join(lockDir, 'owner'), 'utf8').then(async (owner) => {
          seenWhileWaiting.push(owner);
          await rm(lockDir, { recursive: true });
        });
      },
    });
    let runs = 0;
    const written = await store.update('f', (s) => {
      runs++;
      s.turns.push({ id: `t${runs}`, role: 'user', kind: 'message', content: 'x', status: 'complete', ts: 'now' });
    });
    expect(tookOver).toBe(true);
    // The first attempt did not remove the successor's lock on its way out.
    expect(seenWhileWaiting).toEqual([successor]);
    expect(runs).toBe(2);
    expect(written.turns.map((t) => t.id)).toEqual(['t2']);
    expect((await store.read('f')).turns.map((t) => t.id)).toEqual(['t2']);
  });

  it('tells a holder its own lock from a successor that reused its pid', async () => {
    const home = await tempHome();
    const target = path.join(home, 'x');
    const lockDir = `${target}.lock`;
    const seen = await withLock({ target, label: 'x', timeoutMs: 1_000 }, async (held) => {
      const before = held.stillHeld();
      const [pid, host] = (await readFile(path.join(lockDir, 'owner'), 'utf8')).split(' ');
      await writeFile(path.join(lockDir, 'owner'), `${pid} ${host} another-token`);
      return { before, after: held.stillHeld(), why: held.compromised?.message };
    });
    expect(seen).toEqual({ before: true, after: false, why: 'the lock was taken over by another process' });
    // Left to the process that holds it now.
    expect(await readFile(path.join(lockDir, 'owner'), 'utf8')).toMatch(/ another-token$/);
  });
});
