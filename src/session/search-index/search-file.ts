import fs from 'node:fs';
import { dirname, join } from 'node:path';
import { writeAtomic } from '../../files/atomic-write.js';
import { forEachLine } from '../../files/lines.js';
import { readDelta, writeDelta, type Delta, type DeltaRecord } from './delta.js';
import { FIELDS, type IndexRecord, type SearchText } from './record.js';
import {
  listOrder,
  passes,
  scoreOf,
  type FileState,
  type MatchGrid,
  type Filters,
  type IndexBackend,
  type IndexEntry,
  type IndexMeta,
  type SearchHit,
} from './query.js';
import {
  buildShards,
  openLineBounds,
  postingsOf,
  readFileStates,
  readPostings,
  writeFileStates,
  writeShards,
  type FileStates,
  type LineBounds,
  type Postings,
} from './word-index.js';

/** Bumped when what a line holds, or their order, changes: an index of another version is rebuilt, never read. */
const FORMAT = 3;
/**
 * The most sessions the delta holds (delta.ts) before a change folds it into the base, rewriting
 * it whole: every command reads the delta whole, and every search indexes its text anew.
 */
const DELTA_MAX = 1_000;
/**
 * The block a page reads the entries file in first: small enough that its text is an ordinary
 * young object of V8's, whose memory is used again, not a large one of fresh memory.
 */
const BLOCK = 64 * 1024;

interface Loaded {
  meta: IndexMeta | undefined;
  /** Which write the files come from: a text file or word index of another write is not used. */
  generation: number;
  /** In listOrder, as the file keeps them: entry number n is the nth. */
  entries: Map<string, IndexEntry>;
  /** Where line n starts in the entries file of this write, and where the one after it would (count + 1 of them). */
  bounds: number[];
}

/** The entries file as bytes, its lines found but not parsed: a page or a search parses only the entries it shows. */
interface Raw {
  meta: IndexMeta | undefined;
  generation: number;
  buf: Buffer;
  /** Where each entry's line starts and ends (the newline), by entry number. */
  starts: number[];
  ends: number[];
}

/**
 * The index where Node has no `node:sqlite` with FTS5 (Node 20): files rewritten atomically,
 * each a meta line then one JSON line per session: the entries, newest first (listOrder; `ls`
 * and `stats` read them), and beside them the text (most of the bytes), which only the word
 * index (word-index.ts: each word's sessions, per field, by entry number) is built from: the
 * first search that finds it missing or of another write builds it and keeps it, with where
 * each entry's line is. Those files are the base; the changes since are kept beside it in a
 * small delta (delta.ts), folded into a new base once it grows. A page or a search parses only
 * the lines it shows. It gives the answers the SQLite backend gives
 * (test/session/search-index.test.ts runs one table against both): the same normalised text,
 * the same score (scoreOf) and order (rankOrder).
 */
export class FileBackend implements IndexBackend {
  readonly kind = 'file';
  private loaded: Loaded | undefined;
  private raw: Raw | undefined;
  private texts: Map<string, SearchText> | undefined;
  /** The word index built in this run, when it was (a store nsed cannot write keeps it only here). */
  private words: ReturnType<typeof buildShards> | undefined;
  private readonly textPath: string;
  private readonly wordsDir: string;
  private readonly deltaPath: string;
  /** The delta read or written for the base of its generation; null: there is none. */
  private deltaHeld: Delta | null | undefined;

  /** `persist` false: kept in memory only, for a store nsed cannot write (nothing is read from disk either). */
  constructor(
    readonly path: string,
    private readonly persist = true,
  ) {
    this.textPath = path.replace(/\.ndjson$/, '.text.ndjson');
    this.wordsDir = join(dirname(path), 'words');
    this.deltaPath = path.replace(/\.ndjson$/, '.delta.ndjson');
  }

  /** The changes since the base of the current generation, read once; undefined when there are none. */
  private delta(): Delta | undefined {
    const generation = this.generation();
    if (this.deltaHeld === undefined || (this.deltaHeld !== null && this.deltaHeld.base !== generation))
      this.deltaHeld = (this.persist ? readDelta(this.deltaPath, generation) : undefined) ?? null;
    return this.deltaHeld ?? undefined;
  }

  /** Each base entry's number, by id. */
  private numbers(): Map<string, number> {
    const kept = this.keptStates();
    return kept !== undefined
      ? new Map(kept.ids.map((id, n) => [id, n]))
      : new Map(this.list().map((e, n) => [e.id, n]));
  }

  /**
   * The base entries' ids and file states as written beside them, while no entry has been parsed
   * (then those are at hand); undefined when that file is missing or not of the entries' write.
   */
  private keptStates(): FileStates | undefined {
    if (this.loaded !== undefined || !this.persist) return undefined;
    const generation = this.generation();
    if (generation === -1) return undefined;
    if (this.states?.generation !== generation)
      this.states = { generation, states: readFileStates(this.wordsDir, generation) };
    return this.states.states;
  }

  private states: { generation: number; states: FileStates | undefined } | undefined;

  /** The generation of a base whose states files() found missing, parsing every entry instead. */
  private statesMissing: number | undefined;

  /** The entries file's bytes and line bounds; missing, torn or of another version: no entries, which the next refresh fills. */
  private bytes(): Raw {
    if (this.raw !== undefined) return this.raw;
    const none: Raw = { meta: undefined, generation: -1, buf: Buffer.alloc(0), starts: [], ends: [] };
    if (!this.persist) return (this.raw = none);
    try {
      const buf = fs.readFileSync(this.path);
      const starts: number[] = [];
      const ends: number[] = [];
      const first = buf.indexOf(10);
      for (let at = first + 1; at < buf.length;) {
        const end = buf.indexOf(10, at);
        if (end === -1) throw new Error('torn');
        starts.push(at);
        ends.push(end);
        at = end + 1;
      }
      const head = JSON.parse(buf.toString('utf8', 0, first)) as Record<string, unknown>;
      if (head.nsed_search_index !== FORMAT || head.count !== starts.length || head.bytes !== buf.length - first - 1)
        throw new Error('another format');
      const meta = {
        dirMtimeMs: head.dirMtimeMs as number,
        seenMs: head.seenMs as number,
        unreadable: head.unreadable as IndexMeta['unreadable'],
      };
      return (this.raw = { meta, generation: head.generation as number, buf, starts, ends });
    } catch {
      return (this.raw = none);
    }
  }

  /**
   * Entry number n, parsed from its line: of the entries held (this run read them all, or wrote
   * them), of the whole file read, or else of the file open since its meta line was read, at the
   * place the word index's line bounds of that write name, so that only the lines shown are read.
   */
  private entryAt(n: number): IndexEntry | undefined {
    if (this.loaded !== undefined) return this.list()[n];
    let text: string;
    const head = this.raw === undefined ? this.prefix() : undefined;
    const lines = head === undefined ? undefined : this.lineBounds(head.generation);
    if (head !== undefined && lines !== undefined) {
      const at = lines.line(n);
      if (at === undefined) return undefined;
      const buf = Buffer.alloc(at[1] - at[0]);
      if (fs.readSync(head.fd, buf, 0, buf.length, at[0]) !== buf.length) return undefined;
      text = buf.toString('utf8');
    } else {
      const raw = this.bytes();
      const start = raw.starts[n];
      if (start === undefined) return undefined;
      text = raw.buf.toString('utf8', start, raw.ends[n]);
    }
    try {
      return JSON.parse(text) as IndexEntry;
    } catch {
      // A line garbled in place (the file is only ever replaced whole): that entry is left out.
      return undefined;
    }
  }

  /** The line bounds of the entries file of `generation`, kept beside the word index; undefined when they are not of that write. */
  private lineBounds(generation: number): LineBounds | undefined {
    if (this.lines === undefined && this.persist) this.lines = openLineBounds(this.wordsDir, generation) ?? null;
    return this.lines ?? undefined;
  }

  /** null: looked for, and none of this write. */
  private lines: LineBounds | null | undefined;

  private closeLines(): void {
    this.lines?.close();
    this.lines = undefined;
  }

  private listed: IndexEntry[] | undefined;
  private list(): IndexEntry[] {
    return (this.listed ??= [...this.load().entries.values()]);
  }

  private count(): number {
    return this.loaded?.entries.size ?? this.raw?.starts.length ?? this.prefix()?.count ?? this.bytes().starts.length;
  }

  /** The entries' write, from the meta line alone while nothing more has been read. */
  private generation(): number {
    return this.loaded?.generation ?? this.raw?.generation ?? this.prefix()?.generation ?? this.bytes().generation;
  }

  /** Every entry, parsed (a refresh, `stats`, a listing without -n). */
  private load(): Loaded {
    if (this.loaded !== undefined) return this.loaded;
    const raw = this.bytes();
    const entries = new Map<string, IndexEntry>();
    for (let n = 0; n < raw.starts.length; n++) {
      const e = this.entryAt(n);
      if (e === undefined) {
        // Garbled: none of it is used (entry numbers would shift), and the next refresh fills it again.
        this.raw = { meta: undefined, generation: -1, buf: Buffer.alloc(0), starts: [], ends: [] };
        return (this.loaded = { meta: undefined, generation: -1, entries: new Map(), bounds: [] });
      }
      entries.set(e.id, e);
    }
    const bounds = [...raw.starts, (raw.ends.at(-1) ?? raw.buf.indexOf(10)) + 1];
    this.loaded = { meta: raw.meta, generation: raw.generation, entries, bounds };
    this.listed = undefined;
    return this.loaded;
  }

  /** The text of every entry, or none at all when the text file is not of the entries' write. */
  private loadText(): Map<string, SearchText> {
    if (this.texts !== undefined) return this.texts;
    if (!this.persist) return (this.texts = new Map());
    const texts = new Map<string, SearchText>();
    const head = readLines(this.textPath, (v) => texts.set(v.id as string, v.text as SearchText));
    if (head === undefined || head.generation !== this.generation()) texts.clear();
    this.texts = texts;
    return texts;
  }

  meta(): IndexMeta | undefined {
    const delta = this.delta();
    if (delta !== undefined) return delta.meta;
    if (this.loaded !== undefined) return this.loaded.meta;
    return this.raw !== undefined ? this.raw.meta : (this.prefix() ?? this.bytes()).meta;
  }

  files(): Map<string, FileState> {
    // Kept beside the entries, the states need no entry parsed: at 100,000 sessions the parse was
    // most of a refresh (docs/performance.md, the listing's index).
    const kept = this.keptStates();
    const loaded = kept === undefined ? this.load() : undefined;
    const generation = loaded?.generation ?? this.generation();
    const count = loaded?.entries.size ?? kept?.ids.length ?? 0;
    // An entry whose text is lost stands for no file state (NaN equals nothing): its file is read
    // again, and the entry of a file gone is still dropped.
    // Every entry has its text when the text file is of the entries' write, so only its meta line is read.
    const texted =
      generation !== -1 &&
      (this.texts !== undefined ? this.texts.size === count : this.textGeneration() === generation);
    const lost: FileState = { mtimeMs: Number.NaN, size: -1, seenMs: 0 };
    const delta = this.delta();
    const files = new Map<string, FileState>();
    const keep = (n: number, id: string, file: () => FileState): void => {
      if (delta?.masked.has(n) !== true) files.set(id, texted || this.texts?.has(id) === true ? file() : lost);
    };
    if (loaded !== undefined) {
      let n = 0;
      for (const e of loaded.entries.values()) keep(n++, e.id, () => e.file);
      // A base without its states beside it (written by an older nsed, or the file lost): the
      // refresh's apply writes them from the entries just parsed, so the next refresh parses none.
      if (this.persist && generation !== -1) this.statesMissing = generation;
    } else if (kept !== undefined) {
      const s = kept.numbers;
      kept.ids.forEach((id, n) =>
        keep(n, id, () => ({ mtimeMs: s[n * 3]!, size: s[n * 3 + 1]!, seenMs: s[n * 3 + 2]! })),
      );
    }
    for (const { entry } of delta?.records ?? []) files.set(entry.id, entry.file);
    return files;
  }

  async apply(
    put: ReadonlyArray<{ record: IndexRecord; file: FileState }>,
    remove: readonly string[],
    meta: IndexMeta,
  ): Promise<void> {
    // The changes folded into the delta's: its sessions, and the base entries they replace or drop.
    const baseGeneration = this.generation();
    const before = this.delta();
    const records = new Map((before?.records ?? []).map((r) => [r.entry.id, r]));
    const masked = new Set(before?.masked);
    const numbers = this.numbers();
    const mask = (id: string): void => {
      const n = numbers.get(id);
      if (n !== undefined) masked.add(n);
    };
    for (const id of remove) {
      records.delete(id);
      mask(id);
    }
    for (const { record, file } of put) {
      const { text, ...entry } = record;
      records.set(record.id, { entry: { ...entry, file }, text });
      mask(record.id);
    }
    // A change to a large base is kept beside it; a first index, or a delta grown large, rewrites the base.
    if (baseGeneration !== -1 && records.size <= DELTA_MAX && records.size < this.count()) {
      const delta: Delta = {
        base: baseGeneration,
        meta,
        masked,
        records: [...records.values()].sort((a, b) => listOrder(a.entry, b.entry)),
      };
      this.deltaHeld = delta;
      if (this.persist)
        await writeDelta(this.deltaPath, delta).catch(() => {
          // A cache: this run answers from memory, and the next reads the changed files again.
        });
      if (this.statesMissing === baseGeneration)
        await writeFileStates(this.wordsDir, baseGeneration, this.list()).catch(() => {
          // A cache: the next refresh parses the entries again.
        });
      this.statesMissing = undefined;
      return;
    }
    const was = new Map(this.load().entries);
    const texts = new Map(this.loadText());
    const list = this.list();
    for (const n of masked) {
      const id = list[n]?.id;
      if (id === undefined) continue;
      was.delete(id);
      texts.delete(id);
    }
    for (const { entry, text } of records.values()) {
      was.set(entry.id, entry);
      texts.set(entry.id, text);
    }
    const entries = new Map([...was.values()].sort(listOrder).map((e) => [e.id, e]));
    const generation = meta.seenMs + Math.random();
    const head = (extra: object): string => `${JSON.stringify({ nsed_search_index: FORMAT, generation, ...extra })}\n`;
    const lines = [...entries.values()].map((e) => `${JSON.stringify(e)}\n`);
    const body = lines.join('');
    const first = head({ ...meta, count: entries.size, bytes: Buffer.byteLength(body) });
    const bounds = [Buffer.byteLength(first)];
    for (const line of lines) bounds.push((bounds.at(-1) as number) + Buffer.byteLength(line));
    this.loaded = { meta, generation, entries, bounds };
    this.listed = undefined;
    this.texts = texts;
    this.words = undefined;
    this.deltaHeld = null;
    this.closeLines();
    if (!this.persist) return;
    try {
      // The text first: entries whose text file is of another write read no text, and are read again.
      await writeAtomic(
        this.textPath,
        head({}) + [...texts].map(([id, text]) => `${JSON.stringify({ id, text })}\n`).join(''),
      );
      await writeAtomic(this.path, first + body);
      await writeFileStates(this.wordsDir, generation, [...entries.values()]);
      // The delta was of the base before: never applied to this one (readDelta), and removed.
      fs.rmSync(this.deltaPath, { force: true });
    } catch {
      // A cache: this run answers from memory, and the next reads the changed files again.
    }
  }

  async clear(): Promise<void> {
    if (this.persist) {
      fs.rmSync(this.path, { force: true });
      fs.rmSync(this.textPath, { force: true });
      fs.rmSync(this.wordsDir, { recursive: true, force: true });
      fs.rmSync(this.deltaPath, { force: true });
    }
    this.deltaHeld = null;
    this.loaded = { meta: undefined, generation: -1, entries: new Map(), bounds: [] };
    this.listed = undefined;
    this.texts = new Map();
    this.words = undefined;
    this.closeLines();
  }

  /**
   * The hits best first, at most `limit`: of the base (its word index, less the entries the delta
   * replaced or dropped) and of the delta (its text indexed now), merged in rankOrder. Entries
   * are parsed only as they are shown, best first, until `limit` of them pass the filters.
   */
  async search(terms: readonly string[], filters: Filters, limit: number | undefined): Promise<SearchHit[]> {
    const found = this.words === undefined ? await this.postings(terms) : postingsOf(this.words, terms);
    const listsOf = (byTerm: Map<string, Postings>): Postings[] => terms.map((t) => byTerm.get(t) as Postings);
    const delta = this.delta();
    const base = rank(listsOf(found), terms.length);
    const records: readonly DeltaRecord[] = delta?.records ?? [];
    const changed =
      records.length === 0
        ? undefined
        : rank(listsOf(postingsOf(buildShards(records.map((r) => r.text)), terms)), terms.length);
    const masked = delta?.masked;
    const hits: SearchHit[] = [];
    const scores = [...new Set([...base.scores, ...(changed?.scores ?? [])])].sort((a, b) => b - a);
    for (const score of scores) {
      const fromBase = level(base, score, terms.length, (n) => (masked?.has(n) === true ? undefined : this.entryAt(n)));
      const fromDelta =
        changed === undefined ? undefined : level(changed, score, terms.length, (n) => records[n]?.entry);
      for (const hit of mergeOrdered(fromBase, fromDelta, (h) => h.entry)) {
        if (limit !== undefined && hits.length >= limit) return hits;
        if (passes(hit.entry, filters)) hits.push(hit);
      }
    }
    return hits;
  }

  /**
   * The postings of the terms: from the word index on disk (with the line bounds of the same
   * write), or from one built now (and kept) when it is missing, torn or of another write.
   */
  private async postings(terms: readonly string[]): Promise<Map<string, Postings>> {
    const generation = this.generation();
    if (this.persist && generation !== -1) {
      const kept = readPostings(this.wordsDir, generation, terms);
      // Entries read from the file open since its meta line need the line bounds of that write: without them, built again.
      const found = this.loaded !== undefined || this.raw !== undefined || this.lineBounds(generation) !== undefined;
      if (kept !== undefined && found) return kept;
    }
    // Every entry parsed first: the text and the words are then of the write just read, whatever the meta line said before.
    const { entries, generation: built, bounds } = this.load();
    const texts = this.loadText();
    this.words = buildShards([...entries.keys()].map((id) => texts.get(id)));
    if (this.persist && built !== -1)
      await writeShards(this.wordsDir, built, this.words, bounds).catch(() => {
        // A cache: this run answers from memory, and the next builds it again.
      });
    return postingsOf(this.words, terms);
  }

  /** The generation the text file's meta line names, read without the rest of it. */
  private textGeneration(): number | undefined {
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.textPath, 'r');
      const buf = Buffer.alloc(256);
      const got = fs.readSync(fd, buf, 0, buf.length, 0);
      const line = buf.subarray(0, got).toString('utf8').split('\n')[0] ?? '';
      const head = JSON.parse(line) as { nsed_search_index?: unknown; generation?: unknown };
      return head.nsed_search_index === FORMAT && typeof head.generation === 'number' ? head.generation : undefined;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  /** The base's entries (less those the delta replaced or dropped) and the delta's, merged in listOrder. */
  page(filters: Filters, limit: number | undefined): IndexEntry[] {
    const delta = this.delta();
    const changed = (delta?.records ?? []).map((r) => r.entry).filter((e) => passes(e, filters));
    const kept = (n: number): boolean => delta?.masked.has(n) !== true;
    const merged = (base: IndexEntry[]): IndexEntry[] => {
      const out: IndexEntry[] = [];
      for (const e of mergeOrdered(base.values(), changed.values(), (x) => x)) {
        if (limit !== undefined && out.length >= limit) break;
        out.push(e);
      }
      return out;
    };
    if (this.loaded === undefined && this.raw === undefined) {
      const read = this.readPage(filters, limit, kept);
      if (read !== undefined) return merged(read);
    }
    const chosen: IndexEntry[] = [];
    for (let n = 0, count = this.count(); n < count && (limit === undefined || chosen.length < limit); n++) {
      const e = kept(n) ? this.entryAt(n) : undefined;
      if (e !== undefined && passes(e, filters)) chosen.push(e);
    }
    return merged(chosen);
  }

  /**
   * The entries file's meta line, read with the file's first block only: what a page needs to
   * know the index is current. Undefined when it is missing, torn (its size is not the one the
   * meta line names) or of another version: then the whole file is read (bytes).
   */
  private prefix(): { meta: IndexMeta; generation: number; count: number; at: number; fd: number } | undefined {
    if (this.head !== undefined) return this.head;
    if (!this.persist) return undefined;
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.path, 'r');
      const buf = Buffer.alloc(64 * 1024);
      const got = fs.readSync(fd, buf, 0, buf.length, 0);
      const first = buf.subarray(0, got).indexOf(10);
      const head = JSON.parse(buf.toString('utf8', 0, first)) as Record<string, unknown>;
      if (
        first < 0 ||
        head.nsed_search_index !== FORMAT ||
        head.bytes !== fs.fstatSync(fd).size - first - 1 ||
        typeof head.count !== 'number'
      )
        throw new Error('another format');
      const meta = {
        dirMtimeMs: head.dirMtimeMs as number,
        seenMs: head.seenMs as number,
        unreadable: head.unreadable as IndexMeta['unreadable'],
      };
      this.head = { meta, generation: head.generation as number, count: head.count, at: first + 1, fd };
      return this.head;
    } catch {
      if (fd !== undefined) fs.closeSync(fd);
      return undefined;
    }
  }

  private head: ReturnType<FileBackend['prefix']>;

  /**
   * The first `limit` entries the filters let through (every one without a limit), reading the
   * file a block at a time and only as far as they go: each block decoded up to its last newline
   * and its lines parsed, the next read starting after it. No more of the file than a block is
   * held as bytes or as text at once: memory never touched before costs a page fault a page, and
   * the file and its text whole (twice 4.4 MB at 10,000 sessions) cost `sessions ls` more than
   * the decoding did (docs/performance.md, the listing's index).
   */
  private readPage(
    filters: Filters,
    limit: number | undefined,
    kept: (n: number) => boolean,
  ): IndexEntry[] | undefined {
    const head = this.prefix();
    if (head === undefined) return undefined;
    const chosen: IndexEntry[] = [];
    const more = (): boolean => limit === undefined || chosen.length < limit;
    let block = Buffer.allocUnsafe(BLOCK);
    let n = 0;
    try {
      for (let at = head.at; more();) {
        const got = fs.readSync(head.fd, block, 0, block.length, at);
        if (got === 0) break;
        const last = block.lastIndexOf(10, got - 1);
        if (last === -1) {
          // Cut short (the meta line's size says it is not): the whole file is read, and rebuilt.
          if (got < block.length) return undefined;
          // A line longer than the block: read again into one twice the size.
          block = Buffer.allocUnsafe(block.length * 2);
          continue;
        }
        const text = block.toString('utf8', 0, last + 1);
        for (let start = 0, end = text.indexOf('\n'); end !== -1 && more(); end = text.indexOf('\n', start)) {
          if (kept(n++)) {
            const e = JSON.parse(text.slice(start, end)) as IndexEntry;
            if (passes(e, filters)) chosen.push(e);
          }
          start = end + 1;
        }
        at += last + 1;
      }
      return chosen;
    } catch {
      // A line garbled in place: the whole file is read, and what it cannot use is rebuilt.
      return undefined;
    }
  }

  close(): void {
    this.closeLines();
    if (this.head !== undefined) fs.closeSync(this.head.fd);
    this.head = undefined;
    this.loaded = undefined;
    this.listed = undefined;
    this.raw = undefined;
    this.texts = undefined;
    this.words = undefined;
    this.deltaHeld = undefined;
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

/** The entry numbers in any of the ascending lists, ascending, each once. */
function union(lists: readonly Uint32Array[]): Uint32Array {
  const out = new Uint32Array(lists.reduce((a, l) => a + l.length, 0));
  const at = new Uint32Array(lists.length);
  const past = 2 ** 32;
  let size = 0;
  for (;;) {
    let min = past;
    for (let k = 0; k < lists.length; k++) {
      const l = lists[k] as Uint32Array;
      const p = at[k] as number;
      if (p < l.length && (l[p] as number) < min) min = l[p] as number;
    }
    if (min === past) return out.subarray(0, size);
    out[size++] = min;
    for (let k = 0; k < lists.length; k++) {
      const l = lists[k] as Uint32Array;
      const p = at[k] as number;
      if (p < l.length && l[p] === min) at[k] = p + 1;
    }
  }
}

/** Which fields hold which term for candidate i, as scoreOf reads it. */
function gridOf(marks: Uint8Array, terms: number, width: number, i: number): MatchGrid {
  return FIELDS.map((_, f) =>
    Array.from({ length: terms }, (_, t) => ((marks[t * width + i] as number) & (1 << f)) !== 0),
  );
}

/** Which fields hold which term for candidate i: a number while it fits one exactly (3 bits a term), else a string. */
function signatureOf(marks: Uint8Array, terms: number, width: number, i: number): number | string {
  if (terms <= 10) {
    let signature = 0;
    for (let t = 0; t < terms; t++) signature = signature * 8 + (marks[t * width + i] as number);
    return signature;
  }
  let signature = '';
  for (let t = 0; t < terms; t++) signature += String(marks[t * width + i]);
  return signature;
}

/** Sets `bit` in the marks of term `t` for every candidate the ascending `list` holds: one walk of both. */
function markPresent(candidates: Uint32Array, list: Uint32Array, marks: Uint8Array, t: number, bit: number): void {
  const base = t * candidates.length;
  for (let i = 0, j = 0; i < candidates.length && j < list.length;) {
    const c = candidates[i] as number;
    const v = list[j] as number;
    if (v < c) j++;
    else if (v > c) i++;
    else {
      marks[base + i] = (marks[base + i] as number) | bit;
      i++;
      j++;
    }
  }
}

/** The candidates of a search and the score of each (NaN: not every term is held), with the scores found, highest first. */
interface Ranked {
  candidates: Uint32Array;
  /** marks[t * candidates.length + i]: the fields (bit f) of candidate i that hold term t. */
  marks: Uint8Array;
  scoreAt: Float64Array;
  scores: number[];
}

/**
 * The entries holding every term, scored: those holding the rarest term are the candidates, and
 * each list of each term is walked beside them once. A candidate's score depends only on which
 * fields hold which term, its signature: scored once per signature (scoreOf), so a common word
 * costs a pass over its numbers and no object per entry.
 */
function rank(lists: readonly Postings[], terms: number): Ranked {
  const total = (p: Postings): number => p.reduce((a, l) => a + l.length, 0);
  const rarest = lists.reduce((best, p, t) => (total(p) < total(lists[best] as Postings) ? t : best), 0);
  const candidates = union(lists[rarest] ?? []);
  const width = candidates.length;
  const marks = new Uint8Array(terms * width);
  lists.forEach((fields, t) => fields.forEach((list, f) => markPresent(candidates, list, marks, t, 1 << f)));
  const bySignature = new Map<number | string, number | null>();
  const scoreAt = new Float64Array(width).fill(Number.NaN);
  for (let i = 0; i < width; i++) {
    const signature = signatureOf(marks, terms, width, i);
    let score = bySignature.get(signature);
    if (score === undefined)
      bySignature.set(signature, (score = scoreOf(gridOf(marks, terms, width, i), terms)?.score ?? null));
    if (score !== null) scoreAt[i] = score;
  }
  const scores = [...new Set(bySignature.values())].filter((v): v is number => v !== null).sort((a, b) => b - a);
  return { candidates, marks, scoreAt, scores };
}

/** The hits of one score, in entry-number order (listOrder), each entry as `entryOf` finds it (undefined: left out). */
function* level(
  r: Ranked,
  score: number,
  terms: number,
  entryOf: (n: number) => IndexEntry | undefined,
): Generator<SearchHit> {
  const width = r.candidates.length;
  for (let i = 0; i < width; i++) {
    if (r.scoreAt[i] !== score) continue;
    const entry = entryOf(r.candidates[i] as number);
    const scored = entry === undefined ? undefined : scoreOf(gridOf(r.marks, terms, width, i), terms);
    if (entry !== undefined && scored !== undefined) yield { entry, ...scored };
  }
}

/** Two sequences each in listOrder, as one in listOrder, read only as far as it is taken. */
function* mergeOrdered<T>(a: Iterator<T>, b: Iterator<T> | undefined, entry: (x: T) => IndexEntry): Generator<T> {
  let x = a.next();
  let y = b?.next();
  while (x.done !== true || (y !== undefined && y.done !== true)) {
    if (y === undefined || y.done === true || (x.done !== true && listOrder(entry(x.value), entry(y.value)) <= 0)) {
      yield x.value as T;
      x = a.next();
    } else {
      yield y.value;
      y = b?.next();
    }
  }
}
