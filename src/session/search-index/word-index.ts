import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from '../../files/atomic-write.js';
import { FIELDS, type SearchText } from './record.js';

/** Bumped when what a shard holds changes: a shard of another version is rebuilt, never read. */
const FORMAT = 1;
/** How many files the words are spread over: a query reads one per word, a small share of the whole. */
export const SHARDS = 64;

/** The entry numbers of the sessions whose field holds a word, one ascending list per field, in FIELDS order. */
export type Postings = number[][];

/** Each shard's words and their postings. */
export type Shards = Array<Map<string, Postings>>;

/** Which shard keeps a word: FNV-1a of its UTF-16 code units (stable across runs and Nodes). */
export function shardOf(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SHARDS;
}

/**
 * The inverted index of the texts, entry number n being the nth text given (undefined: an entry
 * whose text is lost, which holds no word). The words are the normalised text's own
 * (searchText): split at its spaces, so a word is found exactly where ` word ` is.
 */
export function buildShards(texts: Iterable<SearchText | undefined>): Shards {
  const shards: Shards = Array.from({ length: SHARDS }, () => new Map<string, Postings>());
  let n = 0;
  for (const text of texts) {
    if (text !== undefined)
      FIELDS.forEach((field, f) => {
        for (const word of text[field].split(' ')) {
          if (word === '') continue;
          const shard = shards[shardOf(word)] as Map<string, Postings>;
          let postings = shard.get(word);
          if (postings === undefined) shard.set(word, (postings = FIELDS.map(() => [])));
          const list = postings[f] as number[];
          // A word said twice in a field is one posting: entries are visited in order, so only the last can repeat.
          if (list.at(-1) !== n) list.push(n);
        }
      });
    n++;
  }
  return shards;
}

/** The postings of `terms` from the shards built in memory (a term in no text gets empty lists). */
export function postingsOf(shards: Shards, terms: readonly string[]): Map<string, Postings> {
  return new Map(terms.map((t) => [t, shards[shardOf(t)]?.get(t) ?? FIELDS.map(() => [])]));
}

/**
 * The postings of `terms` read from the shard files under `dir`, only those the terms fall in;
 * undefined when one of them is missing, torn, of another format or of another write of the
 * entries than `generation` (then the caller builds the index again).
 */
export function readPostings(
  dir: string,
  generation: number,
  terms: readonly string[],
): Map<string, Postings> | undefined {
  const out = new Map<string, Postings>();
  const read = new Map<number, Record<string, Postings> | undefined>();
  for (const term of terms) {
    const s = shardOf(term);
    if (!read.has(s)) read.set(s, readShard(path.join(dir, shardName(s)), generation));
    const words = read.get(s);
    if (words === undefined) return undefined;
    out.set(term, Object.hasOwn(words, term) ? (words[term] as Postings) : FIELDS.map(() => []));
  }
  return out;
}

/** Writes every shard under `dir`, each stamped with the entries' `generation`. */
export async function writeShards(dir: string, generation: number, shards: Shards): Promise<void> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [s, words] of shards.entries()) {
    const body = JSON.stringify({ nsed_word_index: FORMAT, generation, words: Object.fromEntries(words) });
    await writeAtomic(path.join(dir, shardName(s)), `${body}\n`);
  }
}

const shardName = (s: number): string => `${String(s).padStart(2, '0')}.json`;

function readShard(file: string, generation: number): Record<string, Postings> | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      nsed_word_index?: unknown;
      generation?: unknown;
      words?: unknown;
    };
    if (v.nsed_word_index !== FORMAT || v.generation !== generation) return undefined;
    return typeof v.words === 'object' && v.words !== null ? (v.words as Record<string, Postings>) : undefined;
  } catch {
    return undefined;
  }
}
