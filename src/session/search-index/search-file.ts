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
const FORMAT = 1;

interface Line extends IndexEntry {
  text: SearchText;
}

/**
 * The index where Node has no `node:sqlite` with FTS5 (Node 20): one file, a meta line then one
 * JSON line per session, read whole and rewritten atomically; a search scans every line's text.
 * It gives the answers the SQLite backend gives (test/session/search-index.test.ts runs one table
 * against both): the same normalised text, the same score (scoreOf) and order (rankOrder).
 */
export class FileBackend implements IndexBackend {
  readonly kind = 'file';
  private loaded: { meta: IndexMeta | undefined; lines: Map<string, Line> } | undefined;

  constructor(readonly path: string) {}

  private load(): { meta: IndexMeta | undefined; lines: Map<string, Line> } {
    if (this.loaded !== undefined) return this.loaded;
    const lines = new Map<string, Line>();
    let meta: IndexMeta | undefined;
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.path, 'r');
      let first = true;
      forEachLine(fd, (text) => {
        if (text.trim() === '') return;
        const v = JSON.parse(text) as Record<string, unknown>;
        if (first) {
          first = false;
          if (v.nsed_search_index !== FORMAT) throw new Error('another format');
          meta = {
            dirMtimeMs: v.dirMtimeMs as number,
            seenMs: v.seenMs as number,
            unreadable: v.unreadable as IndexMeta['unreadable'],
          };
          return;
        }
        lines.set((v as unknown as Line).id, v as unknown as Line);
      });
    } catch {
      // Missing, torn or of another version: an empty index, which the next refresh fills.
      lines.clear();
      meta = undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
    this.loaded = { meta, lines };
    return this.loaded;
  }

  meta(): IndexMeta | undefined {
    return this.load().meta;
  }

  files(): Map<string, FileState> {
    return new Map([...this.load().lines.values()].map((l) => [l.id, l.file]));
  }

  async apply(
    put: ReadonlyArray<{ record: IndexRecord; file: FileState }>,
    remove: readonly string[],
    meta: IndexMeta,
  ): Promise<void> {
    const { lines } = this.load();
    const next = new Map(lines);
    for (const id of remove) next.delete(id);
    for (const { record, file } of put) next.set(record.id, { ...record, file });
    const head = JSON.stringify({ nsed_search_index: FORMAT, ...meta });
    const body = [...next.values()].map((l) => `${JSON.stringify(l)}\n`).join('');
    await writeAtomic(this.path, `${head}\n${body}`);
    this.loaded = { meta, lines: next };
  }

  async clear(): Promise<void> {
    fs.rmSync(this.path, { force: true });
    this.loaded = { meta: undefined, lines: new Map() };
  }

  search(terms: readonly string[], filters: Filters, limit: number | undefined): SearchHit[] {
    const needles = terms.map((t) => ` ${t} `);
    const hits: SearchHit[] = [];
    for (const line of this.load().lines.values()) {
      if (!passes(line, filters)) continue;
      const grid = FIELDS.map((f) => needles.map((n) => line.text[f].includes(n)));
      const scored = scoreOf(grid, terms.length);
      if (scored !== undefined) hits.push({ entry: entryOf(line), ...scored });
    }
    hits.sort(rankOrder);
    return limit === undefined ? hits : hits.slice(0, limit);
  }

  page(filters: Filters, limit: number | undefined): IndexEntry[] {
    const chosen = [...this.load().lines.values()].filter((l) => passes(l, filters)).sort(listOrder);
    return (limit === undefined ? chosen : chosen.slice(0, limit)).map(entryOf);
  }

  close(): void {
    this.loaded = undefined;
  }
}

function entryOf(line: Line): IndexEntry {
  const { text: _text, ...entry } = line;
  return entry;
}
