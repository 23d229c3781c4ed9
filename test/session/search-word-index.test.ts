// The file backend's word index (src/session/search-index/word-index.ts): a search answers from
// the index kept on disk without the text it was built from, an index of another write of the
// entries is never used, a file of it cut short is never believed, a change to the store goes
// into a delta beside the base without rewriting it, and a first index of many files says how
// far it has got.
import fs, {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import { indexRecord } from '../../src/session/search-index/record.js';
import { FileBackend } from '../../src/session/search-index/search-file.js';
import { SearchIndex, type IndexEntry } from '../../src/session/search-index/search-index.js';
import { shardOf } from '../../src/session/search-index/word-index.js';
import { searchSessions } from '../harness/search-store.js';
import { session, tempHome } from '../harness/temp-store.js';

const FILE = { mtimeMs: 1, size: 1, seenMs: 10_000 };
const META = { dirMtimeMs: 1, seenMs: 10_000, unreadable: [] };
const records = searchSessions().map((s) => ({ record: indexRecord(s), file: FILE }));
const found = async (b: FileBackend, words: string[]): Promise<Array<[string, number]>> =>
  (await b.search(words, {}, undefined)).map((h) => [h.entry.id, h.score]);

/** The fixed store's index written to disk by one backend, and what a search for `retry` answered there. */
async function builtIndex(): Promise<{ dir: string; file: string; built: Array<[string, number]> }> {
  const dir = path.join(await tempHome(), 'search');
  mkdirSync(dir);
  const file = path.join(dir, 'index.ndjson');
  const first = new FileBackend(file);
  await first.apply(records, [], META);
  const built = await found(first, ['retry']);
  first.close();
  return { dir, file, built };
}

describe('the word index of the file backend', () => {
  it('answers from the word index on disk without the text it was built from', async () => {
    const { dir, file, built } = await builtIndex();
    expect(built).toEqual([
      ['s1', 4],
      ['s5', 3],
      ['s4', 3],
      ['s2', 1],
    ]);
    // 64 shards, the entries' line bounds and their files' states.
    expect(readdirSync(path.join(dir, 'words'))).toHaveLength(66);
    rmSync(path.join(dir, 'index.text.ndjson'));
    const again = new FileBackend(file);
    expect(await found(again, ['retry'])).toEqual(built);
    expect(await found(again, ['wrong', 'duplicate'])).toEqual([['s1', 4]]);
  });

  it('builds the word index from the entries file as read, a title past ASCII before a hit, and reads those lines again at the right bytes', async () => {
    const { dir, file, built } = await builtIndex();
    const entries = async (b: FileBackend, words: string[]) =>
      (await b.search(words, {}, undefined)).map((h) => h.entry);
    const want = await entries(new FileBackend(file), ['retry']);
    // s2's title (café) comes before s1 in the file: a line's place counted in characters would miss s1's by a byte.
    expect(want.map((e) => e.id)).toContain('s1');
    rmSync(path.join(dir, 'words'), { recursive: true });
    const rebuilt = new FileBackend(file);
    expect(await found(rebuilt, ['retry'])).toEqual(built);
    rebuilt.close();
    expect(readdirSync(path.join(dir, 'words'))).toHaveLength(65);
    // A later run parses only the lines shown, at the places the rebuilt word index names.
    const later = new FileBackend(file);
    expect(await entries(later, ['retry'])).toEqual(want);
    expect((await entries(later, ['cache'])).map((e) => e.title)).toEqual(['café cache']);
  });

  it('never uses a word index of another write of the entries', async () => {
    const dir = path.join(await tempHome(), 'search');
    mkdirSync(dir);
    const file = path.join(dir, 'index.ndjson');
    const b = new FileBackend(file);
    await b.apply(records, [], META);
    expect((await found(b, ['jitter'])).map(([id]) => id)).toEqual(['s5']);
    b.close();
    // s5 is removed and s2's question changed: entry numbers shift, and the kept words are of the write before.
    const s2 = searchSessions().find((s) => s.id === 's2');
    const turn = s2?.turns[0];
    if (s2 === undefined || turn === undefined) throw new Error('the fixed store has no s2');
    turn.content = 'Does the cache need jitter?';
    await b.apply([{ record: indexRecord(s2), file: FILE }], ['s5'], { ...META, seenMs: 20_000 });
    b.close();
    const fresh = new FileBackend(file);
    expect(await found(fresh, ['jitter'])).toEqual([['s2', 3]]);
  });

  it.each([
    ['the shard of the word searched', `${String(shardOf('retry')).padStart(2, '0')}.bin`],
    ["the entries' line bounds", 'lines.bin'],
  ])('never believes %s cut short: builds the word index again', async (_what, name) => {
    const { dir, file, built } = await builtIndex();
    const cut = path.join(dir, 'words', name);
    const whole = statSync(cut).size;
    truncateSync(cut, whole - 4);
    const again = new FileBackend(file);
    expect(await found(again, ['retry'])).toEqual(built);
    again.close();
    expect(statSync(cut).size).toBe(whole);
  });

  it('keeps a change beside the base, never rewriting it, and reads the change again when the delta is cut short', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    for (const s of searchSessions()) await store.create(s);
    let clock = Date.now() + 60_000;
    const now = (): number => clock;
    const search = async (word: string): Promise<string[]> => {
      const index = SearchIndex.open(store, { backend: 'file', now });
      try {
        return (await index.search(word, {}, undefined)).map((h) => h.entry.id);
      } finally {
        index.close();
      }
    };
    expect(await search('jitter')).toEqual(['s5']);
    const dir = path.join(home, 'search');
    const baseFiles = ['index.ndjson', 'index.text.ndjson', 'words/lines.bin', 'words/files.bin'];
    const base = baseFiles.map((f) => readFileSync(path.join(dir, f)));
    await store.update('s2', (s) => {
      const q = s.turns[0];
      if (q !== undefined) q.content = 'Does the cache need jitter?';
    });
    clock += 60_000;
    expect(await search('jitter')).toEqual(['s2', 's5']);
    // The base as it was, the change in the delta beside it.
    expect(baseFiles.map((f) => readFileSync(path.join(dir, f)))).toEqual(base);
    const delta = path.join(dir, 'index.delta.ndjson');
    truncateSync(delta, statSync(delta).size - 10);
    clock += 60_000;
    expect(await search('jitter')).toEqual(['s2', 's5']);
    expect(await search('catalog')).toEqual(['s3', 's4']);
  });

  it('compares the session files with the states kept beside the entries, never with states of another write or cut short', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    for (const s of searchSessions()) await store.create(s);
    const now = (): number => Date.now() + 60_000;
    const refreshed = async (rebuild = false): Promise<{ read: number; removed: number }> => {
      const index = SearchIndex.open(store, { backend: 'file', now });
      try {
        return rebuild ? await index.rebuild() : await index.refresh();
      } finally {
        index.close();
      }
    };
    expect(await refreshed()).toEqual({ read: 6, removed: 0 });
    const states = path.join(home, 'search', 'words', 'files.bin');
    const before = readFileSync(states);
    // Every file touched, then the index rebuilt: states of a new write, each file's new mtime in them.
    const later = new Date(Date.now() - 30_000);
    for (const name of readdirSync(store.dir)) utimesSync(path.join(store.dir, name), later, later);
    expect(await refreshed(true)).toEqual({ read: 6, removed: 0 });
    expect(await refreshed()).toEqual({ read: 0, removed: 0 });
    // The states of the write before hold the old mtimes: believed, they would have every file read again.
    const kept = readFileSync(states);
    writeFileSync(states, before);
    expect(await refreshed()).toEqual({ read: 0, removed: 0 });
    writeFileSync(states, kept.subarray(0, kept.length - 8));
    expect(await refreshed()).toEqual({ read: 0, removed: 0 });
    // Either refresh, finding no states of this base, parsed the entries and wrote the states again.
    expect(readFileSync(states)).toEqual(kept);
    rmSync(states);
    expect(await refreshed()).toEqual({ read: 0, removed: 0 });
    expect(readFileSync(states)).toEqual(kept);
  });

  it('tells how far a first index has got, and nothing when there is nothing to read', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    for (const s of searchSessions()) await store.create(s);
    const reports: unknown[] = [];
    const progress = { every: 2, report: (p: unknown) => void reports.push(p) };
    // Stamped well after the files' mtimes, so the entries are settled and a second look reads nothing.
    const now = (): number => Date.now() + 60_000;
    const first = SearchIndex.open(store, { backend: 'file', now, progress });
    expect(await first.refresh()).toEqual({ read: 6, removed: 0 });
    first.close();
    expect(reports).toEqual([
      { read: 2, seen: expect.any(Number) as number, total: 6, done: false },
      { read: 4, seen: expect.any(Number) as number, total: 6, done: false },
      { read: 6, seen: 6, total: 6, done: false },
      { read: 6, seen: 6, total: 6, done: true },
    ]);
    reports.length = 0;
    const second = SearchIndex.open(store, { backend: 'file', now, progress });
    expect(await second.refresh()).toEqual({ read: 0, removed: 0 });
    second.close();
    expect(reports).toEqual([]);
  });
});

describe('the file backend read a block at a time', () => {
  const minute = (i: number): string => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
  /** 300 sessions of titles past ASCII and one of a title longer than two blocks of the read, written by one backend. */
  async function written(): Promise<{ file: string; want: IndexEntry[] }> {
    const dir = path.join(await tempHome(), 'search');
    mkdirSync(dir);
    const file = path.join(dir, 'index.ndjson');
    const sessions = Array.from({ length: 300 }, (_, i) =>
      session(`m${String(i).padStart(3, '0')}`, { title: `naïve ${'é'.repeat(i)} ${i}`, updated: minute(i) }),
    );
    sessions.push(session('long', { title: 'ü'.repeat(100_000), updated: minute(150) }));
    const writer = new FileBackend(file);
    await writer.apply(
      sessions.map((s) => ({ record: indexRecord(s), file: FILE })),
      [],
      META,
    );
    // What the backend that wrote it holds in memory, never read back.
    const want = writer.page({}, undefined);
    writer.close();
    expect(statSync(file).size).toBeGreaterThan(4 * 64 * 1024);
    return { file, want };
  }

  it('lists every entry as written, across many blocks, a line longer than a block and titles past ASCII', async () => {
    const { file, want } = await written();
    expect(want).toHaveLength(301);
    // Never the whole file at once: a block at a time (a whole read would give the same entries).
    const whole = vi.spyOn(fs, 'readFileSync');
    try {
      expect(new FileBackend(file).page({}, undefined)).toEqual(want);
      expect(whole.mock.calls.map(([read]) => read)).not.toContain(file);
    } finally {
      whole.mockRestore();
    }
    expect(new FileBackend(file).page({}, 160)).toEqual(want.slice(0, 160));
    // A page that ends on the long line, which starts past the first block.
    const upTo = want.findIndex((e) => e.id === 'long') + 1;
    expect(upTo).toBeGreaterThan(100);
    expect(new FileBackend(file).page({}, upTo).at(-1)?.title).toBe('ü'.repeat(100_000));
  });

  it('leaves out a line garbled in place and lists the others', async () => {
    const { file, want } = await written();
    const bytes = readFileSync(file);
    // The same size, so the meta line still vouches for the file: one entry's opening brace overwritten.
    const at = bytes.indexOf('{"id":"m200"');
    bytes[at] = 0x78;
    writeFileSync(file, bytes);
    expect(new FileBackend(file).page({}, undefined)).toEqual(want.filter((e) => e.id !== 'm200'));
  });
});
