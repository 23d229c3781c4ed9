// Generated stores for the listing figures. Ten thousand store.create() calls take minutes
// here (each one fsyncs twice and takes two locks), so the session files are written in the
// store's own format (its recordText, 0600 files in a 0700 directory) and the index journal is
// then built by the real store's list(), as a first `nsed sessions ls` would build it. A few
// sessions go through create() and update() as well. `bundle` is bundleStore's module: the
// store, and the verdict each answer records (sessions.mjs).
import { chmod, mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { session, turn } from './sessions.mjs';

const BATCH = 200;

/** `count` sessions of 2 to 6 turns under `home`; returns how many the store then lists. */
export async function generateStore(bundle, home, count) {
  const verdictOf = bundle.deriveVerdict;
  const store = bundle.openFileStore(home);
  const viaApi = Math.min(20, count);
  for (let n = 0; n < viaApi; n++) await store.create(session(n, 2, verdictOf));
  for (let n = 0; n < viaApi; n += 4) {
    await store.update(session(n, 2).id, (s) => {
      s.turns.push(
        turn(n, 2, Date.parse(s.updated) + 1_000, verdictOf),
        turn(n, 3, Date.parse(s.updated) + 2_000, verdictOf),
      );
    });
  }
  const dir = store.dir;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  for (let start = viaApi; start < count; start += BATCH) {
    const batch = [];
    for (let n = start; n < Math.min(count, start + BATCH); n++) {
      const s = session(n, 2 + (n % 5), verdictOf);
      batch.push(writeFile(path.join(dir, `${s.id}.json`), bundle.recordText(s), { mode: 0o600 }));
    }
    await Promise.all(batch);
  }
  // A store of this size is months of use: each file's mtime is its session's last update, so
  // the index trusts what it records (an entry taken within two seconds of its file's mtime is
  // read again each time: the racy-entry rule, src/session/index-journal.ts).
  for (let start = 0; start < count; start += BATCH) {
    const batch = [];
    for (let n = start; n < Math.min(count, start + BATCH); n++) {
      const s = session(n, 2);
      const at = new Date(Date.parse(s.updated) + 5_000);
      batch.push(utimes(path.join(dir, `${s.id}.json`), at, at));
    }
    await Promise.all(batch);
  }
  const { sessions, unreadable } = await store.list();
  if (unreadable.length > 0) throw new Error(`the generated store has unreadable files: ${unreadable[0].file}`);
  return sessions.length;
}

/**
 * One session of `turns` turns, written through store.create(); returns its id. `verdicts:
 * false`: its answers carry no recorded verdict, as an older nsed wrote them, so showing it
 * derives each one from the recorded rounds.
 */
export async function generateLongSession(bundle, home, turns, { verdicts = true } = {}) {
  const store = bundle.openFileStore(home);
  const s = session(1_000_000, turns, verdicts ? bundle.deriveVerdict : undefined);
  await store.create(s);
  await store.list();
  return s.id;
}
