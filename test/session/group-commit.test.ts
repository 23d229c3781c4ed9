// The batch's group-committing store (docs/reliability.md #260): writes of sessions that end
// together share a directory fsync, and each write still resolves only after a directory fsync
// that began after its own rename. Driven through a recording disk whose directory fsyncs the
// test ends by hand: no clock.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { poolSyncDisk, type DiskOps } from '../../src/files/atomic-write.js';
import { openFileStore } from '../../src/session/file-store.js';
import type { Session } from '../../src/session/model.js';
import { session, tempHome } from '../harness/temp-store.js';

/** `rename <name> in <directory name>`: a file placed by a rename or a link. */
const placed = (to: string): string => `rename ${path.basename(to)} in ${path.basename(path.dirname(to))}`;

/**
 * The real disk, logging renames and directory fsyncs (`dir sync N begins <directory name>`); the
 * fsyncs of a directory wait for `endDirSyncs`.
 */
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
      log.push(placed(to));
      renamed();
    },
    link: async (from, to) => {
      await poolSyncDisk.link(from, to);
      log.push(placed(to));
      renamed();
    },
    open: async (file, flags, mode) => {
      const handle = await poolSyncDisk.open(file, flags, mode);
      if (flags !== 'r') return handle;
      return {
        ...handle,
        sync: async () => {
          const n = ++dirSyncs;
          log.push(`dir sync ${n} begins ${path.basename(file)}`);
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

const syncBegins = (dir: string): RegExp => new RegExp(`^dir sync (\\d+) begins ${dir.replace(/\./g, '\\.')}$`);

/** The fsyncs of directory `dir` that began from log line `from` on. */
const syncsBegun = (log: string[], dir: string, from: number): string[] =>
  log.slice(from).filter((l) => syncBegins(dir).test(l));

/** Whether some fsync of directory `dir` began after log line `after` and ended before log line `before`. */
function syncedBetween(log: string[], dir: string, after: number, before: number): boolean {
  return log.some((line, i) => {
    const m = syncBegins(dir).exec(line);
    if (m === null || i <= after) return false;
    const ended = log.indexOf(`dir sync ${m[1]} ends`);
    return ended !== -1 && ended < before;
  });
}

const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Every held directory fsync ended, a turn of the event loop apart, until `promise` settles. */
async function endSyncsUntil(rec: ReturnType<typeof recordingDisk>, promise: Promise<unknown>): Promise<void> {
  let done = false;
  void promise.then(() => (done = true));
  while (!done) {
    await settled();
    rec.endDirSyncs();
  }
  await promise;
}

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
      const renamed = rec.log.indexOf(`rename ${id}.json in sessions`);
      const resolved = done.get(id) ?? -1;
      // Some directory fsync began after the rename and ended before the write resolved.
      expect(syncedBetween(rec.log, 'sessions', renamed, resolved), rec.log.join('\n')).toBe(true);
    }
    expect(rec.dirSyncs()).toBe(2);
  });

  it('answers that end together share the fsync that names their new rounds directories, and each transcript is renamed only after it (reliability #300)', async () => {
    const rec = recordingDisk();
    const store = openFileStore(await tempHome(), { groupCommit: true, disk: rec.disk });
    const ids = ['a', 'b', 'c', 'd'];
    await endSyncsUntil(rec, Promise.all(ids.map((id) => store.create(session(id)))));
    // An answer with its rounds still in the turn (an older nsed's, fixtures/v1-session.json): the
    // update puts them in a file of a new directory, `<id>.rounds/`, beside the transcript.
    const fixture = path.join(import.meta.dirname, 'fixtures', 'v1-session.json');
    const v1 = JSON.parse(await readFile(fixture, 'utf8')) as Session;
    const answer = v1.turns.find((t) => t.role === 'assistant' && (t.rounds?.length ?? 0) > 0);
    if (answer === undefined) throw new Error('the fixture has no answer with rounds');
    const start = rec.log.length;
    const renamesBefore = rec.log.filter((l) => l.startsWith('rename ')).length;
    const updates = Promise.all(ids.map((id) => store.update(id, (s) => s.turns.push(structuredClone(answer)))));
    // Nothing is let through until every rounds file is renamed into its new directory and every
    // update has asked for its directories' fsyncs: one fsync of the sessions directory runs (held),
    // and the other three updates wait for the next, which they share.
    await rec.renames(renamesBefore + ids.length);
    await settled();
    expect(syncsBegun(rec.log, 'sessions', start), rec.log.join('\n')).toHaveLength(1);
    await endSyncsUntil(rec, updates);
    for (const id of ids) {
      const rounds = rec.log.findIndex((l, i) => i >= start && l.endsWith(` in ${id}.rounds`));
      const transcript = rec.log.indexOf(`rename ${id}.json in sessions`, start);
      expect(rounds, rec.log.join('\n')).toBeGreaterThan(-1);
      // The new directory is named durably in the sessions directory, and its file in it, before
      // the transcript that names them replaces the old one.
      expect(syncedBetween(rec.log, 'sessions', rounds, transcript), rec.log.join('\n')).toBe(true);
      expect(syncedBetween(rec.log, `${id}.rounds`, rounds, transcript), rec.log.join('\n')).toBe(true);
    }
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
