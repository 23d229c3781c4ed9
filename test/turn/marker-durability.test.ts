// What the pending-job marker must be before the job is shown (docs/reliability.md #36): over a
// file that holds the turn's durable claim, in place with its content fsynced, but without the
// directory fsync, since a power loss that undoes the rename leaves the claim, which is recovered
// like a kill -9 before the first byte (test/e2e/turn-lease.test.ts). Every other write, and a
// marker with no claim under it (resume, inject), stays fully durable.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realDisk, type DiskOps } from '../../src/files/atomic-write.js';
import { openFileStore } from '../../src/session/file-store.js';
import { sessionFile, sessionsDir } from '../../src/session/paths.js';
import type { PendingJob } from '../../src/session/model.js';
import { emptyTranscript } from '../../src/events/transcript.js';
import { TurnRecorder } from '../../src/turn/record-turn.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

/** The real disk, counting fsyncs of the sessions directory (fsyncDir opens it read-only) and of files. */
function countingDisk(dir: string): { disk: DiskOps; dirSyncs: () => number; fileSyncs: () => number } {
  let dirOpens = 0;
  let fileSyncs = 0;
  const disk: DiskOps = {
    ...realDisk,
    open: (async (file: string, ...rest: unknown[]) => {
      const handle = await (realDisk.open as (...a: unknown[]) => ReturnType<DiskOps['open']>)(file, ...rest);
      if (path.resolve(String(file)) === dir) dirOpens++;
      else {
        const sync = handle.sync.bind(handle);
        handle.sync = async () => {
          fileSyncs++;
          await sync();
        };
      }
      return handle;
    }) as DiskOps['open'],
  };
  return { disk, dirSyncs: () => dirOpens, fileSyncs: () => fileSyncs };
}

const marker = (turnId: string): PendingJob => ({
  job_id: 'oc-conv-1',
  turn: turnId,
  path: 'compat',
  policy: 'nsed:deep',
  started: '2026-01-01T00:00:00.000Z',
});

describe('the pending-job marker (reliability #36)', () => {
  it('over the turn claim: the file fsynced, the directory not; the claim gives way to the marker', async () => {
    const home = await tempHome();
    const counted = countingDisk(path.join(home, 'sessions'));
    const store = openFileStore(home, { disk: counted.disk });
    const claim = { turn: 'u1', pid: process.pid, host: os.hostname(), token: 'ab', since: '2026-01-01T00:00:00.000Z' };
    await store.create(session('m', { turns: [turn('u1')], claim }));
    const created = { dir: counted.dirSyncs(), file: counted.fileSyncs() };
    expect(created).toEqual({ dir: 1, file: 1 });

    const recorder = new TurnRecorder(store, 'm');
    await recorder.pending(marker('u1'));
    expect({ dir: counted.dirSyncs(), file: counted.fileSyncs() }).toEqual({ dir: 1, file: 2 });
    const marked = await store.read('m');
    expect(marked.pending_job?.job_id).toBe('oc-conv-1');
    expect(marked.claim).toBeUndefined();

    // The answer that ends the turn is fully durable again, and with it the marker's rename.
    recorder.answer({
      id: 'a1',
      transcript: { ...emptyTranscript(), content: 'done', jobId: 'oc-conv-1' },
      status: 'complete',
      policy: 'nsed:deep',
      path: 'compat',
      ts: '2026-01-01T00:00:01.000Z',
      userTurn: 'u1',
    });
    await recorder.flush();
    expect({ dir: counted.dirSyncs(), file: counted.fileSyncs() }).toEqual({ dir: 2, file: 3 });
    expect((await store.read('m')).pending_job).toBeUndefined();
  });

  it('with no claim of this turn under it (resume, inject, a claim of another turn): fully durable', async () => {
    for (const claim of [undefined, { turn: 'other', pid: 1, host: 'h', token: 'cd', since: 'x' }]) {
      const home = await tempHome();
      const counted = countingDisk(path.join(home, 'sessions'));
      const store = openFileStore(home, { disk: counted.disk });
      await store.create(session('m', { turns: [turn('u1')], ...(claim === undefined ? {} : { claim }) }));
      await new TurnRecorder(store, 'm').pending(marker('u1'));
      expect({ dir: counted.dirSyncs(), file: counted.fileSyncs() }).toEqual({ dir: 2, file: 2 });
      expect((await store.read('m')).pending_job?.turn).toBe('u1');
    }
  });

  it('resolves once the file holds the marker; the lock release follows, and flush waits for it', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    const claim = { turn: 'u1', pid: process.pid, host: os.hostname(), token: 'ab', since: '2026-01-01T00:00:00.000Z' };
    await store.create(session('m', { turns: [turn('u1')], claim }));
    const file = sessionFile(sessionsDir(home), 'm');

    const recorder = new TurnRecorder(store, 'm');
    await recorder.pending(marker('u1'));
    // What may be shown now is on disk: the file as renamed into place holds the marker.
    expect((JSON.parse(readFileSync(file, 'utf8')) as { pending_job?: PendingJob }).pending_job?.job_id).toBe(
      'oc-conv-1',
    );
    // The rest of the write comes later, still under the session lock.
    expect(existsSync(`${file}.lock`)).toBe(true);

    await recorder.flush();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('a marker write that fails settles too: the job is not left waiting, and flush reports the failure (exit 8)', async () => {
    const home = await tempHome();
    const failing: DiskOps = {
      ...realDisk,
      rename: async () => {
        throw Object.assign(new Error('no space'), { code: 'ENOSPC' });
      },
    };
    await openFileStore(home).create(session('m', { turns: [turn('u1')] }));
    const recorder = new TurnRecorder(openFileStore(home, { disk: failing }), 'm');
    await recorder.pending(marker('u1'));
    await expect(recorder.flush()).rejects.toMatchObject({ exitCode: 8 });
    expect((await openFileStore(home).read('m')).pending_job).toBeUndefined();
  });
});
