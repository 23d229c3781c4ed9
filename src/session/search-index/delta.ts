import fs from 'node:fs';
import { writeAtomic } from '../../files/atomic-write.js';
import type { SearchText } from './record.js';
import type { IndexEntry, IndexMeta } from './query.js';

/** Bumped when what the file holds changes: a delta of another version is ignored, and the next refresh reads its sessions again. */
const FORMAT = 1;

/** An entry put since the base was written, with its text. */
export interface DeltaRecord {
  entry: IndexEntry;
  text: SearchText;
}

/**
 * What changed since the file backend's entries, text and word index (the base) were written,
 * kept in a small file of its own so that a change to a large store (one ask, one archive)
 * rewrites this file, never the base's 100 MB. Stamped with the base's generation: a delta of
 * another base (the base was rewritten since, and holds its changes) is never applied.
 */
export interface Delta {
  /** The generation of the base these changes are to. */
  base: number;
  /** What the index as a whole was taken from, as of the last change. */
  meta: IndexMeta;
  /** Entry numbers of the base no longer current: their session is put again below, or its file is gone. */
  masked: Set<number>;
  /** The entries put since the base, in listOrder. */
  records: DeltaRecord[];
}

/**
 * The delta of the base of `generation` kept at `file`, or undefined when there is none, or it is
 * torn, of another format or of another base. Ignoring a delta is safe: its meta goes with it,
 * so the next refresh finds the directory changed and reads again every file whose state is not
 * the base's.
 */
export function readDelta(file: string, generation: number): Delta | undefined {
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const head = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    if (head.nsed_search_delta !== FORMAT || head.base !== generation || !Array.isArray(head.masked)) return undefined;
    // Every line, then the empty string after the last newline: fewer is a file cut short.
    if (lines.length !== (head.count as number) + 2 || lines.at(-1) !== '') return undefined;
    const records = lines.slice(1, -1).map((l) => JSON.parse(l) as DeltaRecord);
    return { base: generation, meta: head.meta as IndexMeta, masked: new Set(head.masked as number[]), records };
  } catch {
    return undefined;
  }
}

/** Replaces the delta at `file` with `delta`, whole (a crash leaves the one before or this one). */
export async function writeDelta(file: string, delta: Delta): Promise<void> {
  const head = {
    nsed_search_delta: FORMAT,
    base: delta.base,
    meta: delta.meta,
    masked: [...delta.masked],
    count: delta.records.length,
  };
  const lines = [head, ...delta.records].map((v) => `${JSON.stringify(v)}\n`);
  await writeAtomic(file, lines.join(''));
}
