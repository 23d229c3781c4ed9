import fs from 'node:fs';
import { FIELD_WEIGHTS, FIELDS, type IndexRecord } from './record.js';
import {
  scoreOf,
  type FileState,
  type Filters,
  type IndexBackend,
  type IndexEntry,
  type IndexMeta,
  type SearchHit,
} from './query.js';

// What this module uses of node:sqlite (Node >= 22.13, or 22.5 with --experimental-sqlite); its
// types are not in the @types/node this package builds with for Node 20.
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Array<Record<string, unknown>>;
  /** Rows as arrays of their columns (Node >= 22.16 and 24): absent on older Nodes. */
  setReturnArrays?: (on: boolean) => void;
  /** The rows one at a time (Node >= 22.13 has it; the type says maybe, as for setReturnArrays). */
  iterate?: (...params: unknown[]) => Iterable<Record<string, unknown> | unknown[]>;
}
interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}
interface SqliteModule {
  DatabaseSync: new (path: string) => Database;
}

/** Bumped when the tables change: an index of another version is dropped and rebuilt, never read. */
const SCHEMA = '2';
/** The longest wait for another process's write to the index (SQLite's busy handler), then exit 8. */
const BUSY_MS = 5_000;

/**
 * node:sqlite when this Node has it and its SQLite has FTS5, else undefined. Loaded without the
 * ExperimentalWarning Node prints on its first use: a line on stderr that says nothing about the
 * command the person ran.
 */
export function loadSqlite(): SqliteModule | undefined {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof get !== 'function') return undefined;
  const emit = process.emitWarning;
  let mod: SqliteModule | undefined;
  try {
    process.emitWarning = (() => undefined) as typeof process.emitWarning;
    mod = get.call(process, 'node:sqlite') as SqliteModule | undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emit;
  }
  if (mod === undefined || typeof mod.DatabaseSync !== 'function') return undefined;
  try {
    const probe = new mod.DatabaseSync(':memory:');
    try {
      probe.exec('CREATE VIRTUAL TABLE probe USING fts5(x)');
    } finally {
      probe.close();
    }
    return mod;
  } catch {
    return undefined;
  }
}

const TABLES = `
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE docs(
  n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, created TEXT NOT NULL, updated TEXT NOT NULL,
  policy TEXT, gate TEXT, state TEXT NOT NULL, batch TEXT, archived INTEGER NOT NULL,
  mtime REAL NOT NULL, size INTEGER NOT NULL, seen REAL NOT NULL, entry TEXT NOT NULL);
CREATE INDEX docs_recent ON docs(archived, updated DESC, id DESC);
CREATE VIRTUAL TABLE fts USING fts5(question, claims, answer, tokenize = 'unicode61 remove_diacritics 0');
`;

/** The columns a shown row is read with, in the order rowOf takes them. */
const SHOWN = 'updated, id, entry, mtime, size, seen';
type Row = unknown[];

/**
 * How a search is planned (the defaults are what the 100,000-session figure was tuned with; a
 * test sets them to force each plan on a small store).
 */
export interface SearchPlan {
  /** At most this many sessions holding every term: their text is read and scored here. */
  fewMatches: number;
  /**
   * A signature held by at least 1/denseShare of the sessions is found by walking them newest
   * first (soon done, since it is common); a rarer one by reading its matches and sorting them.
   */
  denseShare: number;
  /** The most terms ranked signature by signature (7^terms queries at worst); more go through one query. */
  rankedTerms: number;
  /**
   * The most sessions read newest first, their text scored here, looking for a page of the best
   * score any session could have; when they do not fill it, another plan answers. A page larger
   * than this is not looked for that way.
   */
  walkRows: number;
}
/** The most terms a field holds for which bestScore tries each set one term short (one scan each when none is held). */
const SHORT_SETS = 4;
const PLAN: SearchPlan = { fewMatches: 2_000, denseShare: 50, rankedTerms: 2, walkRows: 1_000 };

/**
 * The index in SQLite with FTS5: a row per session and its text in an FTS5 table of the same
 * rowid. The text is the normalised text (record.ts searchText), already split into words FTS5's
 * tokenizer leaves as they are, and the score is computed from which field holds which word
 * (scoreOf), so the answers are the file backend's; FTS5 only finds the rows.
 */
export class SqliteBackend implements IndexBackend {
  readonly kind = 'sqlite';
  private readonly db: Database;

  constructor(
    sqlite: SqliteModule,
    readonly path: string,
    private readonly plan: SearchPlan = PLAN,
  ) {
    // Created first, mode 0600 whatever the umask: SQLite gives its -wal and -shm files the mode of the database.
    fs.closeSync(fs.openSync(path, 'a', 0o600));
    this.db = new sqlite.DatabaseSync(path);
    this.db.exec(`PRAGMA busy_timeout = ${BUSY_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;`);
    const version = this.tryGet("SELECT v FROM meta WHERE k = 'schema'")?.v;
    if (version !== SCHEMA) this.recreate();
  }

  private tryGet(sql: string): Record<string, unknown> | undefined {
    try {
      return this.db.prepare(sql).get();
    } catch {
      return undefined;
    }
  }

  private rows(sql: string, params: readonly unknown[]): Row[] {
    return arrays(this.db.prepare(sql), params);
  }

  private recreate(): void {
    this.transaction(() => {
      this.db.exec('DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS fts;');
      this.db.exec(TABLES);
      this.db.prepare("INSERT INTO meta(k, v) VALUES('schema', ?)").run(SCHEMA);
    });
  }

  private transaction(fn: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      fn();
      this.db.exec('COMMIT');
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  meta(): IndexMeta | undefined {
    const v = this.db.prepare("SELECT v FROM meta WHERE k = 'state'").get()?.v;
    return typeof v === 'string' ? (JSON.parse(v) as IndexMeta) : undefined;
  }

  files(): Map<string, FileState> {
    const rows = this.rows('SELECT id, mtime, size, seen FROM docs', []);
    return new Map(
      rows.map(([id, mtimeMs, size, seenMs]) => [
        id as string,
        { mtimeMs: mtimeMs as number, size: size as number, seenMs: seenMs as number },
      ]),
    );
  }

  apply(
    put: ReadonlyArray<{ record: IndexRecord; file: FileState }>,
    remove: readonly string[],
    meta: IndexMeta,
  ): Promise<void> {
    const find = this.db.prepare('SELECT n FROM docs WHERE id = ?');
    const dropDoc = this.db.prepare('DELETE FROM docs WHERE n = ?');
    const dropText = this.db.prepare('DELETE FROM fts WHERE rowid = ?');
    const addDoc = this.db.prepare(
      'INSERT INTO docs(id, created, updated, policy, gate, state, batch, archived, mtime, size, seen, entry) VALUES(?,?,?,?,?,?,?,?,?,?,?,?) RETURNING n',
    );
    const addText = this.db.prepare('INSERT INTO fts(rowid, question, claims, answer) VALUES(?,?,?,?)');
    const drop = (id: string): void => {
      const n = find.get(id)?.n;
      if (n === undefined) return;
      dropDoc.run(n);
      dropText.run(n);
    };
    this.transaction(() => {
      for (const id of remove) drop(id);
      for (const { record, file } of put) {
        drop(record.id);
        const { text, ...entry } = record;
        const n = addDoc.get(
          entry.id,
          entry.created,
          entry.updated,
          entry.policy,
          entry.gate,
          entry.state,
          entry.batch ?? null,
          entry.archived ? 1 : 0,
          file.mtimeMs,
          file.size,
          file.seenMs,
          JSON.stringify(entry),
        )?.n;
        addText.run(n, text.question, text.claims, text.answer);
      }
      this.db.prepare("INSERT OR REPLACE INTO meta(k, v) VALUES('state', ?)").run(JSON.stringify(meta));
    });
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.recreate();
    return Promise.resolve();
  }

  /**
   * Four plans, each giving the answer the file backend gives. Few sessions holding every term:
   * their text is read and scored here. Many, and a page asked for: the newest sessions are read
   * and scored until the page holds only sessions of the best score any could have. When that
   * score is rare: signature by signature (which fields hold which term, the best score first),
   * the newest rows of each, stopping at the page, so the work follows the page and not the
   * matches. Many and no page, or too many terms for that: one query over them all.
   */
  search(terms: readonly string[], filters: Filters, limit: number | undefined): Promise<SearchHit[]> {
    const all = terms.map((t) => `"${t}"`).join(' AND ');
    // Counted only as far as the choice needs: a full count of a word every session holds is a
    // scan of its every occurrence, 4-15 ms a word on 100,000 sessions.
    const enough = Number.isFinite(this.plan.fewMatches) ? this.plan.fewMatches + 1 : -1;
    const matches = this.db
      .prepare('SELECT count(*) AS c FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)')
      .get(all, enough)?.c as number;
    if (matches === 0) return Promise.resolve([]);
    if (matches <= this.plan.fewMatches) return Promise.resolve(this.searchFew(terms, all, filters, limit));
    if (limit !== undefined && limit <= this.plan.walkRows) {
      const walked = this.searchNewest(terms, filters, limit);
      if (walked !== undefined) return Promise.resolve(walked);
    }
    if (limit !== undefined && terms.length <= this.plan.rankedTerms)
      return Promise.resolve(this.searchRanked(terms, filters, limit));
    return Promise.resolve(this.searchAll(terms, all, filters, limit));
  }

  /** Reads the text of every session holding every term and scores it as the file backend does (a word is ` word `). */
  private searchFew(terms: readonly string[], all: string, filters: Filters, limit: number | undefined): SearchHit[] {
    const [where, whereParams] = filterSql(filters);
    // CROSS JOIN keeps FTS5 the outer loop: the other way SQLite tests every session against the MATCH, one by one.
    const rows = this.rows(
      `SELECT ${SHOWN}, fts.question, fts.claims, fts.answer FROM fts CROSS JOIN docs ON docs.n = fts.rowid ` +
        `WHERE fts MATCH ? AND ${where}`,
      [all, ...whereParams],
    );
    const hits: Scored[] = [];
    for (const row of rows) {
      const scored = scoreRow(row, terms);
      if (scored !== undefined) hits.push(scored);
    }
    hits.sort(byRank);
    return hits.slice(0, limit).map(hitOf);
  }

  /**
   * The sessions newest first, each one's text scored here, until `limit` of them have the best
   * score any session could have (bestScore): no session outranks those, and any other of that
   * score is older, so they are the page. Words every session holds in every field make it the
   * score of many, and the page is found in a few hundred rows (three such words: ~300 rows,
   * ~20 ms on 100,000 sessions, where one query over every match took 600 ms). Undefined when
   * `walkRows` rows did not find the page (that score is rare or never met): another plan
   * answers; when every session was read within them, the page is theirs.
   */
  private searchNewest(terms: readonly string[], filters: Filters, limit: number): SearchHit[] | undefined {
    const [where, params] = filterSql(filters);
    // CROSS JOIN keeps docs the outer loop, read along docs_recent; each row's text is found by rowid.
    const statement = this.db.prepare(
      `SELECT ${SHOWN}, fts.question, fts.claims, fts.answer FROM docs CROSS JOIN fts ON fts.rowid = docs.n ` +
        `WHERE ${where} ORDER BY updated DESC, id DESC`,
    );
    const rows = eachRow(statement, params);
    if (rows === undefined) return undefined;
    const best = this.bestScore(terms);
    const hits: Scored[] = [];
    const page: Scored[] = [];
    let read = 0;
    for (const row of rows) {
      if (read++ >= this.plan.walkRows) return undefined;
      const scored = scoreRow(row, terms);
      if (scored === undefined) continue;
      hits.push(scored);
      if (scored.score === best) page.push(scored);
      if (page.length === limit) return page.map(hitOf);
    }
    // Every session read: the page is the best of them.
    hits.sort(byRank);
    return hits.slice(0, limit).map(hitOf);
  }

  /**
   * A score no session can beat: in each field, its weight times the most terms some session
   * holds there together. Each is known from the first match of a column filter, soon found when
   * the words are common; a set no session holds together is a scan of its matches, so below the
   * whole set only the sets one term short are tried (a bound, when none is held, not the most).
   */
  private bestScore(terms: readonly string[]): number {
    const first = this.db.prepare('SELECT 1 AS x FROM fts WHERE fts MATCH ? LIMIT 1');
    const together = (field: string, set: readonly string[]): boolean =>
      first.get(set.map((t) => `${field} : "${t}"`).join(' AND ')) !== undefined;
    let best = 0;
    for (const field of FIELDS) {
      // Common words are mostly held together: one query then says it for the field.
      if (together(field, terms)) {
        best += FIELD_WEIGHTS[field] * terms.length;
        continue;
      }
      const held = terms.filter((t) => terms.length > 1 && together(field, [t]));
      let most = held.length;
      if (most > 1 && (most === terms.length || !together(field, held))) {
        // Not all of them: one fewer at most, and two fewer when no set one short is held either.
        const tried = most <= SHORT_SETS;
        const noneShort = tried && !held.some((_, i) => together(field, held.toSpliced(i, 1)));
        most = noneShort ? Math.max(1, most - 2) : most - 1;
      }
      best += FIELD_WEIGHTS[field] * most;
    }
    return best;
  }

  /**
   * Signature by signature, the best score first: for each, the newest rows whose fields hold the
   * terms exactly so (an FTS5 query of column filters and NOT), at most what the page still
   * wants. Each signature's matches are counted first (FTS5 alone, no row read): none, and it
   * costs nothing more; few, and they are read and sorted; many, and docs_recent is walked
   * newest first until enough are found, which is soon.
   */
  private searchRanked(terms: readonly string[], filters: Filters, limit: number): SearchHit[] {
    const [where, whereParams] = filterSql(filters);
    const count = this.db.prepare('SELECT count(*) AS c FROM fts WHERE fts MATCH ?');
    const total = this.db.prepare('SELECT count(*) AS c FROM docs').get()?.c as number;
    // SQLite walks docs_recent here, testing each row against the set of matches.
    const many = this.db.prepare(
      `SELECT ${SHOWN} FROM docs WHERE n IN (SELECT rowid FROM fts WHERE fts MATCH ?) AND ${where} ` +
        `ORDER BY updated DESC, id DESC LIMIT ?`,
    );
    // CROSS JOIN keeps the matches the outer loop: each is looked up by rowid, then the few sorted.
    const few = this.db.prepare(
      `SELECT ${SHOWN} FROM (SELECT rowid AS r FROM fts WHERE fts MATCH ?) CROSS JOIN docs ON docs.n = r ` +
        `WHERE ${where} ORDER BY updated DESC, id DESC LIMIT ?`,
    );
    // Which field holds each term in none of the sessions, or in all: a signature that wants it
    // there, or not there, is empty, and is skipped uncounted (a two-word query has 49).
    const cells = FIELDS.map((field) => terms.map((t) => count.get(`${field} : "${t}"`)?.c as number));
    const empty = (grid: boolean[][]): boolean =>
      cells.some((row, f) => row.some((c, t) => (grid[f]?.[t] === true ? c === 0 : c === total)));
    const hits: SearchHit[] = [];
    for (const level of signatureLevels(terms.length)) {
      const wanted = limit - hits.length;
      if (wanted <= 0) break;
      const found: Array<{ row: Row; fields: SearchHit['fields'] }> = [];
      for (const signature of level.signatures) {
        if (empty(signature.grid)) continue;
        const match = signatureMatch(terms, signature.grid);
        const matches = count.get(match)?.c as number;
        if (matches === 0) continue;
        const dense = matches * this.plan.denseShare >= total;
        const rows = arrays(dense ? many : few, [match, ...whereParams, wanted]);
        for (const row of rows) found.push({ row, fields: signature.fields });
      }
      found.sort((a, b) => byRecency(a.row, b.row));
      for (const { row, fields } of found.slice(0, wanted))
        hits.push({ entry: rowOf(row), score: level.score, fields });
    }
    return hits;
  }

  /** One query over every match: a set of rowids per field and term, every match scored and sorted. */
  private searchAll(terms: readonly string[], all: string, filters: Filters, limit: number | undefined): SearchHit[] {
    // One uncorrelated `n IN (… MATCH …)` per field and term: SQLite builds each set once.
    const flags: string[] = [];
    const params: unknown[] = [];
    FIELDS.forEach((field) =>
      terms.forEach((t) => {
        flags.push(`(n IN (SELECT rowid FROM fts WHERE fts MATCH ?))`);
        params.push(`${field} : "${t}"`);
      }),
    );
    const score = FIELDS.map((field, f) =>
      terms.map((_, t) => `${FIELD_WEIGHTS[field]} * f${f * terms.length + t}`).join(' + '),
    ).join(' + ');
    const [where, whereParams] = filterSql(filters);
    const sql =
      `SELECT * FROM (SELECT ${SHOWN}, ${flags.map((x, i) => `${x} AS f${i}`).join(', ')} FROM docs ` +
      `WHERE n IN (SELECT rowid FROM fts WHERE fts MATCH ?) AND ${where}) ` +
      `ORDER BY (${score}) DESC, updated DESC, id DESC${limit === undefined ? '' : ` LIMIT ${limit}`}`;
    return this.rows(sql, [...params, all, ...whereParams]).map((row) => {
      const grid = FIELDS.map((_, f) => terms.map((__, t) => row[6 + f * terms.length + t] === 1));
      const scored = scoreOf(grid, terms.length) ?? { score: 0, fields: [] };
      return { entry: rowOf(row), ...scored };
    });
  }

  page(filters: Filters, limit: number | undefined): IndexEntry[] {
    const [where, params] = filterSql(filters);
    const sql = `SELECT ${SHOWN} FROM docs WHERE ${where} ORDER BY updated DESC, id DESC${limit === undefined ? '' : ` LIMIT ${limit}`}`;
    const statement = this.db.prepare(sql);
    // A row at a time: each row's columns are garbage as soon as its entry is made, never all at once.
    const rows = eachRow(statement, params);
    if (rows === undefined) return arrays(statement, params).map(rowOf);
    const entries: IndexEntry[] = [];
    for (const row of rows) entries.push(rowOf(row));
    return entries;
  }

  close(): void {
    this.db.close();
  }
}

/** Every row of a statement as an array of its columns: no object per row where this Node can skip it. */
function arrays(statement: Statement, params: readonly unknown[]): Row[] {
  if (typeof statement.setReturnArrays === 'function') {
    statement.setReturnArrays(true);
    return statement.all(...params) as unknown as Row[];
  }
  return statement.all(...params).map((r) => Object.values(r));
}

/** The rows of a statement one at a time, each as an array of its columns; undefined where this Node cannot iterate. */
function eachRow(statement: Statement, params: readonly unknown[]): Iterable<Row> | undefined {
  const iterate = statement.iterate;
  if (typeof iterate !== 'function') return undefined;
  statement.setReturnArrays?.(true);
  return (function* () {
    for (const row of iterate.call(statement, ...params)) yield Array.isArray(row) ? row : Object.values(row);
  })();
}

/** An entry from a row read with SHOWN: one JSON.parse, the file state from its own columns. */
function rowOf(row: Row): IndexEntry {
  const entry = JSON.parse(row[2] as string) as IndexEntry;
  entry.file = { mtimeMs: row[3] as number, size: row[4] as number, seenMs: row[5] as number };
  return entry;
}

/** listOrder on rows read with SHOWN (updated, then id, both descending, byte order). */
function byRecency(a: Row, b: Row): number {
  const [ua, ia] = a as [string, string];
  const [ub, ib] = b as [string, string];
  if (ua !== ub) return ua < ub ? 1 : -1;
  return ia === ib ? 0 : ia < ib ? 1 : -1;
}

/** A row read with SHOWN and then the three texts, with its score and the fields that hold a term. */
interface Scored {
  row: Row;
  score: number;
  fields: SearchHit['fields'];
}

/** A row's score from its text, as the file backend scores it (a word is ` word `); undefined when a term is in no field. */
function scoreRow(row: Row, terms: readonly string[]): Scored | undefined {
  const texts = row.slice(6, 9) as string[];
  const scored = scoreOf(
    texts.map((text) => terms.map((t) => text.includes(` ${t} `))),
    terms.length,
  );
  return scored === undefined ? undefined : { row, ...scored };
}

/** rankOrder on scored rows: the higher score first, then listOrder. */
function byRank(a: Scored, b: Scored): number {
  return b.score - a.score || byRecency(a.row, b.row);
}

/** The hit a scored row shows: its entry parsed only now, for the page. */
function hitOf({ row, score, fields }: Scored): SearchHit {
  return { entry: rowOf(row), score, fields };
}

interface Signature {
  /** Whether each field holds each term, as [field][term]. */
  grid: boolean[][];
  fields: SearchHit['fields'];
}

/**
 * Every way `terms` terms can lie in the fields with each term in at least one (7^terms), grouped
 * by score (scoreOf), the best first.
 */
function signatureLevels(terms: number): Array<{ score: number; signatures: Signature[] }> {
  const subsets = 2 ** FIELDS.length;
  const levels = new Map<number, Signature[]>();
  for (let code = 0; code < subsets ** terms; code++) {
    const grid = FIELDS.map(() => new Array<boolean>(terms).fill(false));
    let rest = code;
    for (let t = 0; t < terms; t++) {
      const subset = rest % subsets;
      rest = Math.floor(rest / subsets);
      FIELDS.forEach((_, f) => {
        (grid[f] as boolean[])[t] = (subset & (1 << f)) !== 0;
      });
    }
    const scored = scoreOf(grid, terms);
    if (scored === undefined) continue;
    levels.set(scored.score, [...(levels.get(scored.score) ?? []), { grid, fields: scored.fields }]);
  }
  return [...levels.entries()].sort(([a], [b]) => b - a).map(([score, signatures]) => ({ score, signatures }));
}

/** The FTS5 query of the rows whose fields hold the terms exactly as `grid` says: column filters, and NOT for the rest. */
function signatureMatch(terms: readonly string[], grid: boolean[][]): string {
  return terms
    .map((term, t) => {
      const held = FIELDS.filter((_, f) => grid[f]?.[t] === true);
      const not = FIELDS.filter((_, f) => grid[f]?.[t] !== true);
      const has = held.map((field) => `${field} : "${term}"`).join(' AND ');
      return not.length === 0 ? `(${has})` : `((${has}) NOT {${not.join(' ')}} : "${term}")`;
    })
    .join(' AND ');
}

/** The filters as a WHERE clause and its parameters (query.ts `passes` says the same in JavaScript). */
function filterSql(f: Filters): [string, unknown[]] {
  const where = ['archived = ?'];
  const params: unknown[] = [f.archived === true ? 1 : 0];
  const eq = (column: string, value: string | undefined): void => {
    if (value === undefined) return;
    where.push(`${column} = ?`);
    params.push(value);
  };
  eq('policy', f.policy);
  eq('gate', f.gate);
  eq('state', f.state);
  eq('batch', f.batch);
  if (f.since !== undefined) {
    where.push('created >= ?');
    params.push(f.since);
  }
  return [where.join(' AND '), params];
}
