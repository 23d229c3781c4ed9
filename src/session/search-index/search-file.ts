import fs from 'node:fs';
import { writeAtomic } from '../../files/atomic-write.js';
import { forEachLine } from '../../files/lines.js';
import { FIELDS, type IndexRecord, type SearchText } from './record.js';
import {
  listOrder,
  passes,
  rankOrder,
  scoreOf,
  type FileState,
  type Filters,
  type IndexBackend,
  type IndexEntry,
  type IndexMeta,
  type SearchHit,
} from './query.js';

/** Bumped when what a line holds changes: an index of another version is rebuilt, never read. */
const FORMAT = 2;

interface Loaded {
  meta: IndexMeta | undefined;
  /** Which write the two files come from: a text file of another write is not used. */
  generation: number;
  entries: Map<string, IndexEntry>;
}

/**
 * The index where Node has no `node:sqlite` with FTS5 (Node 20): two files, each a meta line
 * then one JSON line per session, read whole and rewritten atomically: the entries (all `ls` and
 * `stats` read), and beside them the text (only a search reads it: most of the bytes). A search
 * scans every session's text. It gives the answers the SQLite backend gives
 * (test/session/search-index.test.ts runs one table against both): the same normalised text,
 * the same score (scoreOf) and order (rankOrder).
 */
export class FileBackend implements IndexBackend {
  readonly kind = 'file';
  private loaded: Loaded | undefined;
  private texts: Map<string, SearchText> | undefined;
  private readonly textPath: string;

  /** `persist` false: kept in memory only, for a store nsed cannot write (nothing is read from disk either). */
  constructor(
    readonly path: string,
    private readonly persist = true,
  ) {
    this.textPath = path.replace(/\.ndjson$/, '.text.ndjson');
  }

  private load(): Loaded {
    if (this.loaded !== undefined) return this.loaded;
    if (!this.persist) return (this.loaded = { meta: undefined, generation: -1, entries: new Map() });
    const entries = new Map<string, IndexEntry>();
    const head = readLines(this.path, (v) => entries.set((v as unknown as IndexEntry).id, v as unknown as IndexEntry));
    // Missing, torn or of another version: an empty index, which the next refresh fills.
    if (head === undefined) entries.clear();
    const meta =
      head === undefined
        ? undefined
        : {
            dirMtimeMs: head.dirMtimeMs as number,
            seenMs: head.seenMs as number,
            unreadable: head.unreadable as IndexMeta['unreadable'],
          };
    this.loaded = { meta, generation: head === undefined ? -1 : (head.generation as number), entries };
    return this.loaded;
  }

  /** The text of every entry, or none at all when the text file is not of the entries' write. */
  private loadText(): Map<string, SearchText> {
    if (this.texts !== undefined) return this.texts;
    if (!this.persist) return (this.texts = new Map());
    const texts = new Map<string, SearchText>();
    const head = readLines(this.textPath, (v) => texts.set(v.id as string, v.text as SearchText));
    if (head === undefined || head.generation !== this.load().generation) texts.clear();
    this.texts = texts;
    return texts;
  }

  meta(): IndexMeta | undefined {
    return this.load().meta;
  }

  files(): Map<string, FileState> {
    const { entries, generation } = this.load();
    // An entry whose text is lost stands for no file state (NaN equals nothing): its file is read
    // again, and the entry of a file gone is still dropped.
    const texts = generation === -1 ? undefined : this.loadText();
    const lost: FileState = { mtimeMs: Number.NaN, size: -1, seenMs: 0 };
    return new Map([...entries.values()].map((e) => [e.id, texts?.has(e.id) === true ? e.file : lost]));
  }

  async apply(
    put: ReadonlyArray<{ record: IndexRecord; file: FileState }>,
    remove: readonly string[],
    meta: IndexMeta,
  ): Promise<void> {
    const entries = new Map(this.load().entries);
    const texts = new Map(this.loadText());
    for (const id of remove) {
      entries.delete(id);
      texts.delete(id);
    }
    for (const { record, file } of put) {
      const { text, ...entry } = record;
      entries.set(record.id, { ...entry, file });
      texts.set(record.id, text);
    }
    const generation = meta.seenMs + Math.random();
    this.loaded = { meta, generation, entries };
    this.texts = texts;
    if (!this.persist) return;
    const head = (extra: object): string => `${JSON.stringify({ nsed_search_index: FORMAT, generation, ...extra })}\n`;
    try {
      // The text first: entries whose text file is of another write read no text, and are read again.
      await writeAtomic(
        this.textPath,
        head({}) + [...texts].map(([id, text]) => `${JSON.stringify({ id, text })}\n`).join(''),
      );
      await writeAtomic(this.path, head(meta) + [...entries.values()].map((e) => `${JSON.stringify(e)}\n`).join(''));
    } catch {
      // A cache: this run answers from memory, and the next reads the changed files again.
    }
  }

  async clear(): Promise<void> {
    if (this.persist) {
      fs.rmSync(this.path, { force: true });
      fs.rmSync(this.textPath, { force: true });
    }
    this.loaded = { meta: undefined, generation: -1, entries: new Map() };
    this.texts = new Map();
  }

  search(terms: readonly string[], filters: Filters, limit: number | undefined): SearchHit[] {
    const needles = terms.map((t) => ` ${t} `);
    const texts = this.loadText();
    const hits: SearchHit[] = [];
    for (const entry of this.load().entries.values()) {
      const text = texts.get(entry.id);
      if (text === undefined || !passes(entry, filters)) continue;
      const grid = FIELDS.map((f) => needles.map((n) => text[f].includes(n)));
      const scored = scoreOf(grid, terms.length);
      if (scored !== undefined) hits.push({ entry, ...scored });
    }
    hits.sort(rankOrder);
    return limit === undefined ? hits : hits.slice(0, limit);
  }

  page(filters: Filters, limit: number | undefined): IndexEntry[] {
    const chosen = [...this.load().entries.values()].filter((e) => passes(e, filters)).sort(listOrder);
    return limit === undefined ? chosen : chosen.slice(0, limit);
  }

  close(): void {
    this.loaded = undefined;
    this.texts = undefined;
  }
}

/** Visits every line after the meta line; the meta line, or undefined when the file is missing, torn or of another format. */
function readLines(file: string, visit: (v: Record<string, unknown>) => void): Record<string, unknown> | undefined {
  let fd: number | undefined;
  let head: Record<string, unknown> | undefined;
  try {
    fd = fs.openSync(file, 'r');
    let first = true;
    forEachLine(fd, (text) => {
      if (text.trim() === '') return;
      const v = JSON.parse(text) as Record<string, unknown>;
      if (!first) return visit(v);
      first = false;
      if (v.nsed_search_index !== FORMAT) throw new Error('another format');
      head = v;
    });
    return head;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
