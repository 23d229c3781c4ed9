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
const SCHEMA = '1';
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
  file TEXT NOT NULL, entry TEXT NOT NULL);
CREATE INDEX docs_recent ON docs(archived, updated DESC, id DESC);
CREATE VIRTUAL TABLE fts USING fts5(question, claims, answer, tokenize = 'unicode61 remove_diacritics 0');
`;

/**
 * The index in SQLite with FTS5: a row per session and its text in an FTS5 table of the same
 * rowid. The text is the normalised text (record.ts searchText), already split into words FTS5's
 * tokenizer leaves as they are, and the score is computed from which field holds which word
 * (scoreOf), so the answers are the file backend's; FTS5 only finds the rows fast.
 */
export class SqliteBackend implements IndexBackend {
  readonly kind = 'sqlite';
  private readonly db: Database;

  constructor(
    sqlite: SqliteModule,
    readonly path: string,
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
    const rows = this.db.prepare('SELECT id, file FROM docs').all();
    return new Map(rows.map((r) => [r.id as string, JSON.parse(r.file as string) as FileState]));
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
      'INSERT INTO docs(id, created, updated, policy, gate, state, batch, archived, file, entry) VALUES(?,?,?,?,?,?,?,?,?,?) RETURNING n',
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
          JSON.stringify(file),
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

  search(terms: readonly string[], filters: Filters, limit: number | undefined): Promise<SearchHit[]> {
    // One uncorrelated `n IN (… MATCH …)` per field and term: SQLite builds each set once.
    const quoted = terms.map((t) => `"${t}"`);
    const flags: string[] = [];
    const params: unknown[] = [];
    FIELDS.forEach((field) =>
      quoted.forEach((q) => {
        flags.push(`(n IN (SELECT rowid FROM fts WHERE fts MATCH ?))`);
        params.push(`${field} : ${q}`);
      }),
    );
    const score = FIELDS.map((field, f) =>
      terms.map((_, t) => `${FIELD_WEIGHTS[field]} * f${f * terms.length + t}`).join(' + '),
    ).join(' + ');
    const [where, whereParams] = filterSql(filters);
    const sql =
      `SELECT * FROM (SELECT entry, file, updated, id, ${flags.map((x, i) => `${x} AS f${i}`).join(', ')} FROM docs ` +
      `WHERE n IN (SELECT rowid FROM fts WHERE fts MATCH ?) AND ${where}) ` +
      `ORDER BY (${score}) DESC, updated DESC, id DESC${limit === undefined ? '' : ` LIMIT ${limit}`}`;
    const rows = this.db.prepare(sql).all(...params, quoted.join(' AND '), ...whereParams);
    return Promise.resolve(
      rows.map((r) => {
        const grid = FIELDS.map((_, f) => terms.map((__, t) => r[`f${f * terms.length + t}`] === 1));
        const scored = scoreOf(grid, terms.length) ?? { score: 0, fields: [] };
        return { entry: entryOf(r), ...scored };
      }),
    );
  }

  page(filters: Filters, limit: number | undefined): IndexEntry[] {
    const [where, params] = filterSql(filters);
    const sql = `SELECT entry, file FROM docs WHERE ${where} ORDER BY updated DESC, id DESC${limit === undefined ? '' : ` LIMIT ${limit}`}`;
    return this.db
      .prepare(sql)
      .all(...params)
      .map(entryOf);
  }

  close(): void {
    this.db.close();
  }
}

const entryOf = (r: Record<string, unknown>): IndexEntry => ({
  ...(JSON.parse(r.entry as string) as Omit<IndexRecord, 'text'>),
  file: JSON.parse(r.file as string) as FileState,
});

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
