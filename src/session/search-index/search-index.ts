import fs from 'node:fs';
import path from 'node:path';
import { storeError } from '../../errors.js';
import { isValidId } from '../ids.js';
import type { SessionStore, Unreadable } from '../store.js';
import { indexRecord, queryTerms, type IndexRecord } from './record.js';
import { FileBackend } from './search-file.js';
import { loadSqlite, SqliteBackend } from './search-sqlite.js';
import type { FileState, Filters, IndexBackend, IndexEntry, IndexMeta, SearchHit } from './query.js';

export type { FileState, Filters, IndexEntry, SearchHit } from './query.js';

/** Which backend keeps the index: SQLite with FTS5 where Node has it, else a file of its own. */
export type BackendChoice = 'auto' | 'sqlite' | 'file';

/** The environment variable that picks the backend (`file` forces the fallback on a Node that has SQLite). */
export const BACKEND_ENV = 'NSED_SEARCH_INDEX';

/**
 * The racy-entry rule of the listing journal (docs/reliability.md #58), for the directory as for
 * each file: a state taken within this long of an mtime proves nothing, since a change within the
 * same tick of the file system's clock leaves the mtime as it was.
 */
const RACY_MS = 2_000;

export interface SearchIndexOptions {
  backend?: BackendChoice;
  /** The clock entries are stamped with. */
  now?: () => number;
  /** Told how a refresh that reads many session files (a first index of a large store) is getting on. */
  progress?: Progress;
}

/** How far a refresh has got: told after every `every` session files read, and once when it is done. */
export interface Progress {
  every: number;
  report(p: { read: number; seen: number; total: number; done: boolean }): void;
}

export interface Refreshed {
  /** Session files read, because they were new or changed. */
  read: number;
  /** Entries dropped, because their file is gone. */
  removed: number;
}

/** The directory where the index lives, beside the sessions. */
export function searchIndexDir(home: string): string {
  return path.join(home, 'search');
}

/**
 * The search index: what `sessions search`, `stats` and `ls` read, derived from the session files
 * and never their source of truth. Before each answer it is brought up to date (fresh): when the
 * sessions directory's mtime is the one it was taken at, and settled, nothing was created,
 * replaced or removed (every write of the store renames a file into the directory); otherwise
 * every file is stat'ed and those whose mtime or size changed are read again through the store.
 */
export class SearchIndex {
  private checked = false;

  private constructor(
    private readonly store: SessionStore,
    private readonly backend: IndexBackend,
    private readonly now: () => number,
    private readonly progress: Progress | undefined,
  ) {}

  static open(store: SessionStore, opts: SearchIndexOptions = {}): SearchIndex {
    const dir = searchIndexDir(store.home);
    const choice = opts.backend ?? 'auto';
    const sqlite = choice === 'file' ? undefined : loadSqlite();
    if (choice === 'sqlite' && sqlite === undefined)
      throw storeError(`this Node (${process.version}) has no node:sqlite with full-text search`, {
        hint: `unset ${BACKEND_ENV}, or set it to file`,
      });
    const now = opts.now ?? Date.now;
    // A store with no sessions yet gets no index either: nothing is created by a listing.
    if (!fs.existsSync(store.dir))
      return new SearchIndex(store, new FileBackend(path.join(dir, 'index.ndjson'), false), now, opts.progress);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return new SearchIndex(
        store,
        sqlite === undefined ? new FileBackend(path.join(dir, 'index.ndjson')) : openSqlite(sqlite, dir),
        now,
        opts.progress,
      );
    } catch {
      // A store nsed may read but not write (a read-only mount, another user's): the index is
      // kept in memory for this run, every file read, and the answers are the same.
      return new SearchIndex(store, new FileBackend(path.join(dir, 'index.ndjson'), false), now, opts.progress);
    }
  }

  get kind(): 'sqlite' | 'file' {
    return this.backend.kind;
  }

  /** The session files the last refresh could not read (listed, never thrown). */
  unreadable(): Unreadable[] {
    return this.backend.meta()?.unreadable ?? [];
  }

  /** Brings the index up to date unless the directory shows nothing changed since it was taken. */
  async fresh(): Promise<void> {
    if (this.checked) return;
    const meta = this.backend.meta();
    const dir = fs.statSync(this.store.dir, { throwIfNoEntry: false });
    const settled =
      meta !== undefined &&
      dir !== undefined &&
      meta.dirMtimeMs === dir.mtimeMs &&
      meta.seenMs - meta.dirMtimeMs >= RACY_MS;
    if (!settled) await this.refresh();
    this.checked = true;
  }

  /** Stats every session file and reads again those that are new or changed; drops the entries of files gone. */
  async refresh(): Promise<Refreshed> {
    const dirStat = fs.statSync(this.store.dir, { throwIfNoEntry: false });
    const seenMs = this.now();
    let names: string[];
    try {
      names = dirStat === undefined ? [] : fs.readdirSync(this.store.dir);
    } catch (err) {
      throw storeError(
        `cannot read the session directory ${this.store.dir}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      );
    }
    const known = this.backend.files();
    const put: Array<{ record: IndexRecord; file: FileState }> = [];
    const unreadable: Unreadable[] = [];
    const present = new Set<string>();
    const prefix = this.store.dir + path.sep;
    let seen = 0;
    for (const name of names) {
      seen++;
      const id = name.endsWith('.json') ? name.slice(0, -5) : '';
      if (!isValidId(id)) continue;
      const file = prefix + name;
      const st = fs.lstatSync(file, { throwIfNoEntry: false });
      if (st?.isSymbolicLink() === true) {
        unreadable.push({ file, reason: 'it is a symbolic link, which nsed does not follow' });
        continue;
      }
      if (st?.isFile() !== true) continue;
      present.add(id);
      const was = known.get(id);
      if (was !== undefined && was.mtimeMs === st.mtimeMs && was.size === st.size && settledFile(was)) continue;
      try {
        const record = indexRecord(await this.store.read(id));
        put.push({ record, file: { mtimeMs: st.mtimeMs, size: st.size, seenMs } });
        if (this.progress !== undefined && put.length % this.progress.every === 0)
          this.progress.report({ read: put.length, seen, total: names.length, done: false });
      } catch (err) {
        if ((err as { code?: unknown }).code === 'not_found') {
          present.delete(id);
          continue;
        }
        unreadable.push({ file, reason: err instanceof Error ? err.message : String(err) });
        present.delete(id);
      }
    }
    const removed = [...known.keys()].filter((id) => !present.has(id));
    const meta: IndexMeta = { dirMtimeMs: dirStat?.mtimeMs ?? 0, seenMs, unreadable };
    try {
      await this.backend.apply(put, removed, meta);
    } catch (err) {
      throw storeError(`cannot update the search index ${this.backend.path}: ${(err as Error).message}`, {
        hint: "another nsed may be writing it: try again, or run 'nsed sessions reindex'",
      });
    } finally {
      if (this.progress !== undefined && put.length >= this.progress.every)
        this.progress.report({ read: put.length, seen, total: names.length, done: true });
    }
    return { read: put.length, removed: removed.length };
  }

  /** Drops the index and reads every session file again (`sessions reindex`). */
  async rebuild(): Promise<Refreshed> {
    await this.backend.clear();
    const done = await this.refresh();
    this.checked = true;
    return done;
  }

  /** Sessions holding every word of `query`, best first. An empty query is the caller's to refuse (queryTerms). */
  async search(query: string, filters: Filters, limit: number | undefined): Promise<SearchHit[]> {
    await this.fresh();
    const terms = queryTerms(query);
    if (terms.length === 0) return [];
    return this.backend.search(terms, filters, limit);
  }

  /**
   * The newest sessions first, at most `limit`. Each entry shown is checked against its file
   * (mtime and size, settled), so a file rewritten in place behind the index, which leaves the
   * directory's mtime as it was, is read again before it is shown.
   */
  async page(filters: Filters, limit: number | undefined): Promise<IndexEntry[]> {
    await this.fresh();
    const first = this.backend.page(filters, limit);
    if (first.every((e) => this.unchanged(e))) return first;
    await this.refresh();
    return this.backend.page(filters, limit);
  }

  /** Every entry the filters let through, for `sessions stats`. */
  async entries(filters: Filters): Promise<IndexEntry[]> {
    await this.fresh();
    return this.backend.page(filters, undefined);
  }

  private unchanged(e: IndexEntry): boolean {
    // An id is a file name (isValidId), so the path needs no path.join: one per listed session adds up.
    const st = fs.statSync(`${this.store.dir}${path.sep}${e.id}.json`, { throwIfNoEntry: false });
    return st !== undefined && st.mtimeMs === e.file.mtimeMs && st.size === e.file.size && settledFile(e.file);
  }

  close(): void {
    this.backend.close();
  }
}

/**
 * The SQLite index, or a new one in place of a file SQLite finds corrupt or no database at all
 * (garbled, overwritten): it holds nothing the session files do not, so it is dropped, never repaired.
 */
function openSqlite(sqlite: NonNullable<ReturnType<typeof loadSqlite>>, dir: string): SqliteBackend {
  const file = path.join(dir, 'index.sqlite');
  try {
    return new SqliteBackend(sqlite, file);
  } catch (err) {
    // Only a file that is no database, or a corrupt one: a busy one is another process's, in use.
    const code = (err as { errcode?: unknown }).errcode;
    if (typeof code !== 'number' || ![SQLITE_CORRUPT, SQLITE_NOTADB].includes(code & 0xff)) throw err;
    for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return new SqliteBackend(sqlite, file);
  }
}

// SQLite's primary result codes (sqlite.org/rescode.html).
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

const settledFile = (f: FileState): boolean => f.seenMs - f.mtimeMs >= RACY_MS;

/** The backend the environment asks for (BACKEND_ENV), `auto` when it names none. */
export function backendChoice(env: Readonly<Record<string, string | undefined>>): BackendChoice {
  const v = env[BACKEND_ENV];
  return v === 'sqlite' || v === 'file' ? v : 'auto';
}
