// sessions search, stats and ls over one fixed store, on both backends of the search index: the
// file of its own (every Node) and SQLite with FTS5 (Node >= 22.13). One table of expected
// answers, run against each backend; on a Node without node:sqlite the SQLite rows run in the
// built CLI under Node 22, found offline through npx's cache. When no Node 22 can be had, those
// rows are skipped and say so in their name.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import { indexRecord } from '../../src/session/search-index/record.js';
import { FileBackend } from '../../src/session/search-index/search-file.js';
import { loadSqlite } from '../../src/session/search-index/search-sqlite.js';
import { runCliInProcess } from '../harness/cli.js';
import { spawnCli } from '../harness/process.js';
import { searchSessions } from '../harness/search-store.js';
import { tempHome } from '../harness/temp-store.js';

/** A Node 22 binary when this Node has no node:sqlite: from npx's cache, never the network's answer being waited on for long. */
function otherNode(): string | undefined {
  if (loadSqlite() !== undefined) return undefined;
  try {
    const out = execFileSync('npx', ['-y', '--offline', 'node@22', '-p', 'process.execPath'], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const bin = out.trim().split('\n').at(-1) ?? '';
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const node22 = otherNode();
const sqliteHere = loadSqlite() !== undefined;

type Runner = (home: string, args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

const inProcess =
  (backend: 'file' | 'sqlite'): Runner =>
  (home, args) =>
    runCliInProcess(args, { env: { NO_COLOR: '1', NSED_HOME: home, NSED_SEARCH_INDEX: backend } });

const spawned: Runner = async (home, args) => {
  const r = await spawnCli(args, { env: { NSED_HOME: home, NSED_SEARCH_INDEX: 'sqlite' }, node: node22 }).result;
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
};

async function fixedStore(): Promise<string> {
  const home = await tempHome();
  const store = openFileStore(home);
  for (const s of searchSessions()) await store.create(s);
  return home;
}

/**
 * The fixed store with its file index left as a change to a large store leaves it: a base taken
 * when s1 and s4 said other words and a session s9 (holding every word searched) still existed,
 * and beside it the delta that puts s1 and s4 as they are and drops s9. Every entry is stamped
 * as settled, so the commands answer from the two as they are, reading no session file.
 */
async function deltaStore(): Promise<string> {
  const home = await fixedStore();
  const store = openFileStore(home);
  const seen = (mtimeMs: number): number => mtimeMs + 10_000;
  const record = async (id: string): Promise<{ record: ReturnType<typeof indexRecord>; file: typeof file }> => {
    const st = statSync(path.join(store.dir, `${id}.json`));
    const file = { mtimeMs: st.mtimeMs, size: st.size, seenMs: seen(st.mtimeMs) };
    return { record: indexRecord(await store.read(id)), file };
  };
  const current = await Promise.all(searchSessions().map((s) => record(s.id)));
  const words =
    'retry budget cafe catalog wrong duplicate thundering herds retries contested backoff upload cache jitter';
  const stale = (r: (typeof current)[number]): (typeof current)[number] =>
    ['s1', 's4'].includes(r.record.id)
      ? { ...r, record: { ...r.record, text: { question: ' obsolete ', answer: ' obsolete ', claims: ' ' } } }
      : r;
  const s9 = current[0] as (typeof current)[number];
  const gone = {
    ...s9,
    record: {
      ...s9.record,
      id: 's9',
      updated: '2027-01-01T00:00:00.000Z',
      text: { question: ` ${words} `, answer: ' ', claims: ' ' },
    },
  };
  const dirMtimeMs = statSync(store.dir).mtimeMs;
  const meta = { dirMtimeMs, seenMs: seen(dirMtimeMs), unreadable: [] };
  mkdirSync(path.join(home, 'search'), { mode: 0o700 });
  const b = new FileBackend(path.join(home, 'search', 'index.ndjson'));
  await b.apply([...current.map(stale), gone], [], meta);
  await b.apply(
    current.filter((r) => ['s1', 's4'].includes(r.record.id)),
    ['s9'],
    meta,
  );
  b.close();
  if (!existsSync(path.join(home, 'search', 'index.delta.ndjson'))) throw new Error('the change went into no delta');
  return home;
}

const BACKENDS: Array<{ name: string; run: Runner; skip: boolean; store: () => Promise<string> }> = [
  { name: 'file', run: inProcess('file'), skip: false, store: fixedStore },
  { name: 'file, its last changes in a delta beside the base', run: inProcess('file'), skip: false, store: deltaStore },
  sqliteHere
    ? { name: 'sqlite', run: inProcess('sqlite'), skip: false, store: fixedStore }
    : {
        name: `sqlite (the built CLI under ${node22 === undefined ? 'Node 22: none in the npx cache, skipped' : 'Node 22'})`,
        run: spawned,
        skip: node22 === undefined,
        store: fixedStore,
      },
];

const ids = (stdout: string): string[] => (JSON.parse(stdout) as Array<{ id: string }>).map((h) => h.id);

/** [args after `sessions search`, the ids expected, best first]. */
const SEARCHES: Array<[string, string[], string[]]> = [
  // Question 3, claims 2, answer 1: s1 has retry in the question and the answer (its claim says 'retries', another word),
  // s5 and s4 in the question (ties: the newer first), s2 in the answer; s6 is archived.
  ['ranks the question over claims over the answer; ties by recency', ['retry'], ['s1', 's5', 's4', 's2']],
  ['needs every word', ['retry', 'budget'], ['s4', 's1']],
  ['matches whole words, ignoring case and accents', ['CAFE'], ['s2']],
  ['never inside a word', ['cat'], []],
  ['finds a claim by its verdict', ['wrong', 'duplicate'], ['s1']],
  ['filters by policy', ['retry', '--policy', 'fast'], ['s2']],
  ['filters by gate outcome', ['retry', '--gate', 'passed'], ['s1']],
  ['filters by gate outcome (inconclusive)', ['catalog', '--gate', 'inconclusive'], ['s3']],
  ['filters by creation time', ['retry', '--since', '2026-03-02'], ['s5', 's4', 's2']],
  ['stops at -n', ['retry', '-n', '2'], ['s1', 's5']],
  ['matches punctuation as a word break', ['thundering-herds'], ['s1']],
  // What a word index could get wrong: whole words only, no stems, a word said twice, every field, and the filters.
  ['never stems: retries finds only the word retries (a claim)', ['retries'], ['s1']],
  ['counts a word given twice once', ['retry', 'RETRY'], ['s1', 's5', 's4', 's2']],
  ['finds a claim by its verdict word alone', ['contested'], ['s2']],
  ['ranks a word in the question and the answer over one in the question', ['catalog'], ['s3', 's4']],
  ['leaves out an archived session whose words match', ['archived'], []],
  ['finds a word no session holds in none', ['zebra'], []],
  ['needs every word, each in any field', ['backoff', 'upload'], ['s1']],
  ['filters by gate, a word in the answer', ['budget', '--gate', 'passed'], ['s1']],
  ['filters by creation time, the only holder too old', ['herds', '--since', '2026-03-02'], []],
  ['filters by policy, the word held by others', ['cache', '--policy', 'deep'], []],
];

describe.each(BACKENDS)('the $name backend', ({ run, skip, store: fixedStore }) => {
  it.skipIf(skip).each(SEARCHES)('search %s', async (_what, args, expected) => {
    const home = await fixedStore();
    const r = await run(home, ['sessions', 'search', ...args, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(ids(r.stdout)).toEqual(expected);
  });

  it.skipIf(skip)('gives each hit its score and the fields it matched', async () => {
    const home = await fixedStore();
    const r = await run(home, ['sessions', 'search', 'retry', '-n', '1', '--json']);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({ id: 's1', score: 4, matched: ['question', 'answer'], gate: 'pass' }),
    ]);
  });

  it.skipIf(skip)('sums the sessions by policy, an unknown cost counted apart and never as 0', async () => {
    const home = await fixedStore();
    const r = await run(home, ['sessions', 'stats', '--by', 'policy', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        key: 'nsed:deep',
        sessions: 5,
        turns: 8,
        answers: 3,
        input_tokens: 1810,
        output_tokens: 520,
        cost_usd: 0.875,
        unknown_cost_answers: 0,
        gates: { pass: 1, fail: 0, inconclusive: 1, none: 3 },
        convergence: { mean: 0.95, sessions: 2 },
        leader_changed: { sessions: 2, changed: 1, share: 0.5 },
      },
      {
        key: 'nsed:fast',
        sessions: 1,
        turns: 2,
        answers: 1,
        input_tokens: 500,
        output_tokens: 100,
        cost_usd: null,
        unknown_cost_answers: 1,
        gates: { pass: 0, fail: 1, inconclusive: 0, none: 0 },
        convergence: { mean: 0.6, sessions: 1 },
        leader_changed: { sessions: 1, changed: 1, share: 1 },
      },
    ]);
  });

  it.skipIf(skip)('sums by day and by batch, since a date', async () => {
    const home = await fixedStore();
    const byDay = await run(home, ['sessions', 'stats', '--by', 'day', '--since', '2026-03-03', '--json']);
    expect(
      (JSON.parse(byDay.stdout) as Array<{ key: string; sessions: number }>).map((r) => [r.key, r.sessions]),
    ).toEqual([
      ['2026-03-03', 2],
      ['2026-03-04', 1],
      ['2026-03-05', 1],
    ]);
    const byBatch = await run(home, ['sessions', 'stats', '--by', 'batch', '--json']);
    expect(
      (JSON.parse(byBatch.stdout) as Array<{ key: string | null; sessions: number }>).map((r) => [r.key, r.sessions]),
    ).toEqual([
      ['batch-aa', 2],
      [null, 4],
    ]);
  });

  it.skipIf(skip)('lists newest first, a page at a time, the archived apart', async () => {
    const home = await fixedStore();
    expect((await run(home, ['sessions', 'ls', '--ids'])).stdout).toBe('s5\ns4\ns3\ns2\ns1\n');
    expect((await run(home, ['sessions', 'ls', '-n', '2', '--ids'])).stdout).toBe('s5\ns4\n');
    expect((await run(home, ['sessions', 'ls', '--archived', '--ids'])).stdout).toBe('s6\n');
  });

  it.skipIf(skip)('gives the same answers from an index deleted, or left stale, and rebuilt', async () => {
    const home = await fixedStore();
    const ask = async (): Promise<string[]> => [
      (await run(home, ['sessions', 'search', 'retry', '--json'])).stdout,
      (await run(home, ['sessions', 'stats', '--by', 'day', '--json'])).stdout,
      (await run(home, ['sessions', 'ls', '--json'])).stdout,
    ];
    const first = await ask();
    const dir = path.join(home, 'search');
    const file = existsSync(path.join(dir, 'index.sqlite')) ? 'index.sqlite' : 'index.ndjson';
    // Deleted: rebuilt from the session files on the next question.
    rmSync(dir, { recursive: true, force: true });
    expect(await ask()).toEqual(first);
    // Stale: an index taken before a session was removed and another changed, put back behind nsed's back.
    copyFileSync(path.join(dir, file), path.join(home, 'kept'));
    for (const f of ['-wal', '-shm']) rmSync(path.join(dir, `${file}${f}`), { force: true });
    const store = openFileStore(home);
    await store.remove('s4');
    await store.update('s3', (s) => {
      s.title = 'retry catalog';
      const q = s.turns[0];
      if (q !== undefined) q.content = 'Design the catalog schema with retry';
    });
    const after = await ask();
    copyFileSync(path.join(home, 'kept'), path.join(dir, file));
    for (const f of ['-wal', '-shm']) rmSync(path.join(dir, `${file}${f}`), { force: true });
    expect(await ask()).toEqual(after);
    expect(ids(after[0] ?? '')).toEqual(['s1', 's3', 's5', 's2']);
    // Garbled: dropped and built again.
    writeFileSync(path.join(dir, file), 'not an index at all\n'.repeat(100));
    expect(await ask()).toEqual(after);
    // And `reindex` from nothing gives them again.
    const re = await run(home, ['sessions', 'reindex']);
    expect(re.code).toBe(0);
    expect(re.stderr).toMatch(/^indexed 5 sessions \((sqlite|file)\)\n$/);
    expect(await ask()).toEqual(after);
  });
});
