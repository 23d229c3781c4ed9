import type { Unreadable } from '../store.js';
import type { SessionSummary, SessionState } from '../store.js';
import type { GateStatus } from '../../council/verdict.js';
import { FIELD_WEIGHTS, FIELDS, type IndexRecord, type SearchText } from './record.js';

/** The state of a session file an entry was taken from (the listing journal's rule: docs/reliability.md #58). */
export interface FileState {
  mtimeMs: number;
  size: number;
  /** When it was taken, by this host's clock (ms since the epoch). */
  seenMs: number;
}

/** A session as the index gives it back: the record without its text, and the file state it came from. */
export type IndexEntry = Omit<IndexRecord, 'text'> & { file: FileState };

/** What the index as a whole was taken from: the sessions directory's mtime, when, and what could not be read. */
export interface IndexMeta {
  dirMtimeMs: number;
  seenMs: number;
  unreadable: Unreadable[];
}

/** Which sessions a query looks at; every absent field lets all through. */
export interface Filters {
  /** The model string (`nsed:deep`) the session's policy must equal. */
  policy?: string;
  /** ISO-8601: sessions created at or after it. */
  since?: string;
  gate?: GateStatus;
  state?: SessionState;
  batch?: string;
  /** true: only archived sessions; otherwise only sessions that are not. */
  archived?: boolean;
}

export interface SearchHit {
  entry: IndexEntry;
  score: number;
  /** The fields the words were found in, in FIELDS order. */
  fields: Array<keyof SearchText>;
}

/** One backend of the index: SQLite with FTS5 (search-sqlite.ts) or a file of its own (search-file.ts). */
export interface IndexBackend {
  readonly kind: 'sqlite' | 'file';
  /** Where it is kept. */
  readonly path: string;
  meta(): IndexMeta | undefined;
  /** The file state of every entry, by id. */
  files(): Map<string, FileState>;
  /** Puts and removes entries and sets the meta, all at once (or throws having changed nothing). */
  apply(
    put: ReadonlyArray<{ record: IndexRecord; file: FileState }>,
    remove: readonly string[],
    meta: IndexMeta,
  ): Promise<void>;
  /** Drops every entry. */
  clear(): Promise<void>;
  /** Sessions holding every term, best first (rankOrder), at most `limit`. */
  search(terms: readonly string[], filters: Filters, limit: number | undefined): Promise<SearchHit[]>;
  /** Sessions newest `updated` first (listOrder), at most `limit`. */
  page(filters: Filters, limit: number | undefined): IndexEntry[];
  close(): void;
}

/** Newest `updated` first, then the greater id: one order for `ls` in both backends (byte order, never the locale's). */
export function listOrder(a: SessionSummary, b: SessionSummary): number {
  if (a.updated !== b.updated) return a.updated < b.updated ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

/** The higher score first; ties by recency, then id (listOrder): deterministic whatever the backend. */
export function rankOrder(a: SearchHit, b: SearchHit): number {
  return b.score - a.score || listOrder(a.entry, b.entry);
}

/** Whether a term appears in each field, as [field][term] (the one fact both backends compute). */
export type MatchGrid = ReadonlyArray<ReadonlyArray<boolean>>;

/** The score of a session whose fields hold the terms as `grid` says, or undefined when a term is found in no field. */
export function scoreOf(
  grid: MatchGrid,
  terms: number,
): { score: number; fields: Array<keyof SearchText> } | undefined {
  let score = 0;
  const fields: Array<keyof SearchText> = [];
  for (let t = 0; t < terms; t++) if (!FIELDS.some((_, f) => grid[f]?.[t] === true)) return undefined;
  FIELDS.forEach((field, f) => {
    const hits = grid[f]?.filter(Boolean).length ?? 0;
    if (hits > 0) fields.push(field);
    score += FIELD_WEIGHTS[field] * hits;
  });
  return { score, fields };
}

/** Whether an entry passes the filters (the file backend; search-sqlite.ts says the same in SQL). */
export function passes(e: Omit<IndexRecord, 'text'>, f: Filters): boolean {
  return (
    e.archived === (f.archived === true) &&
    (f.policy === undefined || e.policy === f.policy) &&
    (f.since === undefined || e.created >= f.since) &&
    (f.gate === undefined || e.gate === f.gate) &&
    (f.state === undefined || e.state === f.state) &&
    (f.batch === undefined || e.batch === f.batch)
  );
}
