// The SQLite backend plans a search four ways (search-sqlite.ts: the text of few matches scored
// here; the newest sessions read and scored until -n of them have the best score any could have;
// many matches ranked signature by signature, stopping at -n; one query over all of them).
// A small store takes only the first, so here each plan is forced on a store of a few hundred
// sessions whose words lie in every mix of fields, and each must give what the file backend gives:
// the same sessions in the same order, with the same score and fields. Needs node:sqlite (Node >=
// 22.13): run it under Node 22 (`node22 node_modules/vitest/vitest.mjs run <this file>`).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexRecord, type IndexRecord } from '../../src/session/search-index/record.js';
import type { Filters, SearchHit } from '../../src/session/search-index/query.js';
import { FileBackend } from '../../src/session/search-index/search-file.js';
import { loadSqlite, SqliteBackend, type SearchPlan } from '../../src/session/search-index/search-sqlite.js';
import { searchSessions } from '../harness/search-store.js';
import { tempHome } from '../harness/temp-store.js';

const sqlite = loadSqlite();

/** A fixed pseudo-random sequence (a linear congruential generator), so every run builds the same store. */
function numbers(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta'];

/**
 * 400 sessions: `alpha` in nearly every one (a common word: the ranked plan's case), the others
 * rarer, each word in a random mix of the three fields; some archived, two policies, gates and
 * batches; `updated` often shared, so ties fall to the id.
 */
function records(): IndexRecord[] {
  const random = numbers(51);
  const template = indexRecord(searchSessions()[0] as Parameters<typeof indexRecord>[0]);
  const share: Record<string, number> = { alpha: 0.95, beta: 0.4, gamma: 0.1, delta: 0.02 };
  return Array.from({ length: 400 }, (_, i) => {
    const fields = { question: [] as string[], claims: [] as string[], answer: [] as string[] };
    for (const w of WORDS)
      if (random() < (share[w] ?? 0))
        for (const f of ['question', 'claims', 'answer'] as const) if (random() < 0.5) fields[f].push(w);
    // `omnia` in every question, `solo` only ever in answers: the ranked plan skips the signatures
    // that want them elsewhere (or, for omnia, not in the question) without a query.
    fields.question.push('omnia');
    if (random() < 0.5) fields.answer.push('solo');
    if (random() < 0.3) fields.claims.push('omnia');
    // `yin` and `yang` in every question and in the claims of every other session, never the same
    // one: no session holds both in its claims, though each is held there.
    fields.question.push('yin', 'yang');
    fields.claims.push(i % 2 === 0 ? 'yin' : 'yang');
    // And three held in the claims one at a time, or not at all: no session holds any two there.
    fields.question.push('tres', 'tria', 'trio');
    if (i % 4 !== 3) fields.claims.push(['tres', 'tria', 'trio'][i % 3] as string);
    const text = (ws: string[]): string => (ws.length === 0 ? ' ' : ` filler ${ws.join(' filler ')} `);
    const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
    return {
      ...template,
      id: `s${String(i).padStart(4, '0')}`,
      created: `2026-02-${day}T00:00:00.000Z`,
      updated: `2026-03-${day}T00:00:00.000Z`,
      policy: random() < 0.5 ? 'nsed:deep' : 'nsed:fast',
      gate: random() < 0.3 ? 'pass' : null,
      batch: random() < 0.2 ? 'batch-aa' : undefined,
      archived: random() < 0.05,
      text: { question: text(fields.question), claims: text(fields.claims), answer: text(fields.answer) },
    } as IndexRecord;
  });
}

const PLANS: Array<[string, SearchPlan]> = [
  ['few matches, their text scored here', { fewMatches: Infinity, denseShare: 50, rankedTerms: 2, walkRows: 0 }],
  [
    'newest first, stopping at a page of the best score any session could have',
    { fewMatches: 0, denseShare: 50, rankedTerms: 0, walkRows: Infinity },
  ],
  [
    'newest first, given up after 25 sessions, then ranked by signature',
    { fewMatches: 0, denseShare: 50, rankedTerms: 2, walkRows: 25 },
  ],
  [
    'ranked by signature, every signature walked newest first',
    { fewMatches: 0, denseShare: Infinity, rankedTerms: 2, walkRows: 0 },
  ],
  [
    'ranked by signature, every signature read and sorted',
    { fewMatches: 0, denseShare: 0, rankedTerms: 2, walkRows: 0 },
  ],
  ['ranked by signature, as tuned', { fewMatches: 0, denseShare: 50, rankedTerms: 2, walkRows: 0 }],
  ['one query over every match', { fewMatches: 0, denseShare: 50, rankedTerms: 0, walkRows: 0 }],
];

const QUERIES: Array<[string[], Filters, number | undefined]> = [
  [['alpha'], {}, 20],
  [['alpha'], {}, 1],
  [['alpha'], {}, 300],
  [['alpha'], {}, undefined],
  [['beta'], {}, 20],
  [['gamma'], {}, 20],
  [['delta'], {}, 20],
  [['alpha', 'beta'], {}, 20],
  [['alpha', 'beta'], {}, 150],
  [['beta', 'gamma'], {}, 20],
  [['alpha', 'beta', 'gamma'], {}, 20],
  [['alpha', 'omnia', 'solo'], {}, 20],
  [['alpha', 'beta', 'omnia'], { policy: 'nsed:deep' }, 5],
  [['alpha'], { archived: true }, 20],
  [['alpha'], { policy: 'nsed:fast' }, 20],
  [['alpha'], { gate: 'pass', since: '2026-02-10T00:00:00.000Z' }, 20],
  [['alpha', 'beta'], { batch: 'batch-aa' }, 20],
  [['omega'], {}, 20],
  [['omnia'], {}, 20],
  [['solo'], {}, 30],
  [['omnia', 'solo'], {}, 20],
  [['solo', 'beta'], { policy: 'nsed:deep' }, 20],
  [['yin', 'yang'], {}, 20],
  [['yin', 'yang', 'alpha'], {}, 20],
  [['tres', 'tria', 'trio'], {}, 20],
];

const shape = (hits: SearchHit[]): Array<[string, number, string[]]> =>
  hits.map((h) => [h.entry.id, h.score, h.fields]);

describe.skipIf(sqlite === undefined)(
  `the SQLite backend's search plans${sqlite === undefined ? ' (skipped: this Node has no node:sqlite; run under Node 22)' : ''}`,
  () => {
    it.each(PLANS)('%s: the answers of the file backend, for every query, filter and -n', async (_name, plan) => {
      const home = await tempHome();
      const put = records().map((record) => ({ record, file: { mtimeMs: 1, size: 2, seenMs: 3 } }));
      const meta = { dirMtimeMs: 1, seenMs: 3, unreadable: [] };
      const file = new FileBackend(path.join(home, 'index.ndjson'));
      const db = new SqliteBackend(sqlite as NonNullable<typeof sqlite>, path.join(home, 'index.sqlite'), plan);
      await file.apply(put, [], meta);
      await db.apply(put, [], meta);
      let nonEmpty = 0;
      for (const [terms, filters, limit] of QUERIES) {
        const expected = shape(await file.search(terms, filters, limit));
        if (expected.length > 0) nonEmpty++;
        expect({ terms, filters, limit, hits: shape(await db.search(terms, filters, limit)) }).toEqual({
          terms,
          filters,
          limit,
          hits: expected,
        });
      }
      // The store holds what the queries look for: most of them find sessions, ties and all.
      expect(nonEmpty).toBeGreaterThanOrEqual(16);
      expect(db.page({}, 3)).toEqual(file.page({}, 3));
      file.close();
      db.close();
    });

    it('drops an index of the schema before (file state as JSON) and builds it again, never reading it', async () => {
      const home = await tempHome();
      const at = path.join(home, 'index.sqlite');
      const old = new (sqlite as NonNullable<typeof sqlite>).DatabaseSync(at);
      old.exec(`CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
        INSERT INTO meta VALUES('schema', '1'), ('state', '{"dirMtimeMs":1,"seenMs":3,"unreadable":[]}');
        CREATE TABLE docs(n INTEGER PRIMARY KEY, id TEXT, file TEXT, entry TEXT);
        INSERT INTO docs VALUES(1, 's0001', '{"mtimeMs":1,"size":2,"seenMs":3}', '{}');`);
      old.close();
      const db = new SqliteBackend(sqlite as NonNullable<typeof sqlite>, at);
      expect(db.meta()).toBeUndefined();
      expect(db.files().size).toBe(0);
      const put = records().map((record) => ({ record, file: { mtimeMs: 1, size: 2, seenMs: 3 } }));
      await db.apply(put, [], { dirMtimeMs: 1, seenMs: 3, unreadable: [] });
      expect(db.files().get('s0001')).toEqual({ mtimeMs: 1, size: 2, seenMs: 3 });
      db.close();
    });
  },
);
