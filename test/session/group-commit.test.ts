// The batch's group-committing store (docs/reliability.md #260): writes of sessions that end
// together share a directory fsync, and each write still resolves only after a directory fsync
// that began after its own rename. Driven through a recording disk whose directory fsyncs the
// test ends by hand: no clock.
import { describe, expect, it } from 'vitest';
import { poolSyncDisk, type DiskOps } from '../../src/files/atomic-write.js';
import { openFileStore } from '../../src/session/file-store.js';
import { session, tempHome } from '../harness/temp-store.js';

/** The real disk, logging renames and directory fsyncs; the fsyncs of a directory wait for `endDirSyncs`. */
function recordingDisk() {
  const log: string[] = [];
  const renameWaiters: Array<{ n: number; resolve: () => void }> = [];
  const renamed = (): void => {
    const count = log.filter((l) => l.startsWith('rename ')).length;
    for (const w of renameWaiters.filter((x) => x.n <= count)) w.resolve();
  };
  const held: Array<() => void> = [];
  let dirSyncs = 0;
  const disk: DiskOps = {
    ...poolSyncDisk,
    rename: async (from, to) => {
      await poolSyncDisk.rename(from, to);
      log.push(`rename ${to.split('/').pop() ?? ''}`);
      renamed();
    },
    link: async (from, to) => {
      await poolSyncDisk.link(from, to);
      log.push(`rename ${to.split('/').pop() ?? ''}`);
      renamed();
    },
    open: async (file, flags, mode) => {
      const handle = await poolSyncDisk.open(file, flags, mode);
      if (flags !== 'r') return handle;
      return {
        ...handle,
        sync: async () => {
          const n = ++dirSyncs;
          log.push(`dir sync ${n} begins`);
          await new Promise<void>((resolve) => held.push(resolve));
          await handle.sync();
          log.push(`dir sync ${n} ends`);
        },
      };
    },
  };
  const endDirSyncs = (): void => {
    for (const end of held.splice(0)) end();
  };
  /** Resolves once `n` files have been renamed into place. */
  const renames = (n: number): Promise<void> =>
    new Promise((resolve) => {
      renameWaiters.push({ n, resolve });
      renamed();
    });
  return { disk, log, endDirSyncs, renames, dirSyncs: () => dirSyncs };
}

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('group commit in the store (reliability #260)', () => {
  it('writes that end together share a directory fsync, and none resolves before one that began after its rename', async () => {
    const rec = recordingDisk();
    const store = openFileStore(await tempHome(), { groupCommit: true, disk: rec.disk });
    const ids = ['a', 'b', 'c', 'd'];
    const done = new Map<string, number>();
    const writes = ids.map((id) =>
      store.create(session(id)).then(() => done.set(id, rec.log.push(`resolved ${id}`) - 1)),
    );
    // The first directory fsync is held until every write has renamed its file: the other three
    // asked while it ran, so they wait for the next one, which they share.
    await rec.renames(ids.length);
    while (done.size < ids.length) {
      await settled();
      rec.endDirSyncs();
    }
    await Promise.all(writes);
    for (const id of ids) {
      const renamed = rec.log.indexOf(`rename ${id}.json`);
      const resolved = done.get(id) ?? -1;
      // Some directory fsync began after the rename and ended before the write resolved.
      const covered = rec.log.some((line, i) => {
        const m = /^dir sync (\d+) begins$/.exec(line);
        return m !== null && i > renamed && rec.log.indexOf(`dir sync ${m[1]} ends`) < resolved;
      });
      expect(covered, rec.log.join('\n')).toBe(true);
    }
    expect(rec.dirSyncs()).toBe(2);
  });

  it('a store without it makes one directory fsync per write', async () => {
    const rec = recordingDisk();
    const store = openFileStore(await tempHome(), { disk: rec.disk });
    const writes = ['a', 'b', 'c'].map((id) => store.create(session(id)));
    let all = false;
    void Promise.all(writes).then(() => (all = true));
    while (!all) {
      await settled();
      rec.endDirSyncs();
    }
    expect(rec.dirSyncs()).toBe(3);
  });
});
