import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeAtomic } from '../../files/atomic-write.js';
import type { FileState } from './query.js';
import { FIELDS, type SearchText } from './record.js';

/**
 * Bumped when what a file holds changes: a file of another version is rebuilt, never read.
 * Version 1 kept each shard as JSON text, whose every posting a search parsed: 100,000 numbers
 * for a common word.
 */
const FORMAT = 2;
/** How many files the words are spread over: a query reads one per word, a small share of the whole. */
export const SHARDS = 64;
/** The first bytes of every file of the word index, then the length of its JSON head (uint32 LE), the head, the numbers. */
const MAGIC = Buffer.from('NSWI');
/** The bytes read at once for a head: one read for all but a shard of a very large vocabulary. */
const HEAD_READ = 64 * 1024;
/** The numbers are kept as the host lays them out (a typed array over the bytes); a file of another host's order is rebuilt. */
const ENDIAN = os.endianness();
/** The name of the file of where each entry's line is in the entries file. */
const LINES_FILE = 'lines.bin';

/** The entry numbers of the sessions whose field holds a word, one ascending list per field, in FIELDS order. */
export type Postings = Uint32Array[];

/** Each shard's words and their postings, as built in memory (plain arrays while they grow). */
export type Shards = Array<Map<string, number[][]>>;

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
  const shards: Shards = Array.from({ length: SHARDS }, () => new Map<string, number[][]>());
  let n = 0;
  for (const text of texts) {
    if (text !== undefined)
      FIELDS.forEach((field, f) => {
        for (const word of text[field].split(' ')) {
          if (word === '') continue;
          const shard = shards[shardOf(word)] as Map<string, number[][]>;
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

const none = (): Postings => FIELDS.map(() => new Uint32Array(0));

/** The postings of `terms` from the shards built in memory (a term in no text gets empty lists). */
export function postingsOf(shards: Shards, terms: readonly string[]): Map<string, Postings> {
  return new Map(
    terms.map((t) => {
      const lists = shards[shardOf(t)]?.get(t);
      return [t, lists === undefined ? none() : lists.map((l) => Uint32Array.from(l))];
    }),
  );
}

/** A file of the word index opened and its head checked: what it holds, and where its numbers start. */
interface Opened {
  fd: number;
  head: Record<string, unknown>;
  /** The byte offset of the numbers, a multiple of their size. */
  at: number;
}

/**
 * Opens a file of the word index and reads its head; undefined when it is missing, of another
 * format or host byte order, of another write of the entries than `generation`, or torn (its
 * size is not the one its head names: every file is written whole, then renamed into place, so
 * a file of another size was cut short or written over, and is never believed).
 */
function openIndexFile(file: string, generation: number, width: number): Opened | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    let buf = Buffer.alloc(HEAD_READ);
    let got = fs.readSync(fd, buf, 0, buf.length, 0);
    if (got < 8 || !buf.subarray(0, 4).equals(MAGIC)) throw new Error('not a word index file');
    const headBytes = buf.readUInt32LE(4);
    if (8 + headBytes > got) {
      buf = Buffer.alloc(8 + headBytes);
      got = fs.readSync(fd, buf, 0, buf.length, 0);
    }
    const head = JSON.parse(buf.toString('utf8', 8, 8 + headBytes)) as Record<string, unknown>;
    const at = alignUp(8 + headBytes, width);
    if (
      head.format !== FORMAT ||
      head.endian !== ENDIAN ||
      head.generation !== generation ||
      typeof head.numbers !== 'number' ||
      fs.fstatSync(fd).size !== at + head.numbers * width
    )
      throw new Error('another write');
    return { fd, head, at };
  } catch {
    if (fd !== undefined) fs.closeSync(fd);
    return undefined;
  }
}

const alignUp = (n: number, width: number): number => Math.ceil(n / width) * width;

/** The file's bytes: its head, then the numbers at an offset that is a multiple of their size. */
function indexFile(head: object, numbers: Uint32Array | Float64Array): Buffer {
  const json = Buffer.from(JSON.stringify({ format: FORMAT, endian: ENDIAN, ...head, numbers: numbers.length }));
  const at = alignUp(8 + json.length, numbers.BYTES_PER_ELEMENT);
  const out = Buffer.alloc(at + numbers.byteLength);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(json.length, 4);
  json.copy(out, 8);
  Buffer.from(numbers.buffer, numbers.byteOffset, numbers.byteLength).copy(out, at);
  return out;
}

/** `count` numbers of `width` bytes from `file` at number `from` (after the head), as a fresh typed array. */
function readNumbers<T extends Uint32Array | Float64Array>(
  { fd, at }: Opened,
  from: number,
  count: number,
  make: new (length: number) => T,
): T {
  const out = new make(count);
  const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  let done = 0;
  // A short read ends the loop: the size was checked, so only a file cut since can give one.
  while (done < bytes.length) {
    const got = fs.readSync(fd, bytes, done, bytes.length - done, at + from * out.BYTES_PER_ELEMENT + done);
    if (got === 0) throw new Error('the word index file was cut short');
    done += got;
  }
  return out;
}

/**
 * The postings of `terms` read from the shard files under `dir`: of each shard a term falls in,
 * its head (the words and where their numbers are), then only that term's numbers, so a common
 * word costs a read of its own postings, never a parse of them. Undefined when a shard is
 * missing, torn, of another format or of another write of the entries than `generation` (then
 * the caller builds the index again).
 */
export function readPostings(
  dir: string,
  generation: number,
  terms: readonly string[],
): Map<string, Postings> | undefined {
  const out = new Map<string, Postings>();
  const opened = new Map<number, Opened | undefined>();
  try {
    for (const term of terms) {
      const s = shardOf(term);
      if (!opened.has(s)) opened.set(s, openIndexFile(path.join(dir, shardName(s)), generation, 4));
      const shard = opened.get(s);
      if (shard === undefined) return undefined;
      const words = shard.head.words as Record<string, unknown>;
      const where = Object.hasOwn(words, term) ? words[term] : undefined;
      if (where === undefined) {
        out.set(term, none());
        continue;
      }
      // [the first number, then each field's count]: the fields' lists lie one after another.
      const [from, ...counts] = where as number[];
      const all = readNumbers(
        shard,
        from ?? 0,
        counts.reduce((a, b) => a + b, 0),
        Uint32Array,
      );
      let start = 0;
      out.set(
        term,
        FIELDS.map((_, f) => {
          const list = all.subarray(start, start + (counts[f] ?? 0));
          start += counts[f] ?? 0;
          return list;
        }),
      );
    }
    return out;
  } catch {
    return undefined;
  } finally {
    for (const shard of opened.values()) if (shard !== undefined) fs.closeSync(shard.fd);
  }
}

/**
 * Where each entry's line is in the entries file of `generation`: `bounds[n]` is where line n
 * starts and `bounds[n + 1] - 1` its newline. A search reads only the lines of the hits it shows.
 */
export interface LineBounds {
  /** How many entries the file holds. */
  readonly count: number;
  /** Line n's start and end (its newline), read from the file; undefined past the last entry. */
  line(n: number): [number, number] | undefined;
  close(): void;
}

/** The line bounds kept beside the shards for `generation`, or undefined when missing, torn or of another write. */
export function openLineBounds(dir: string, generation: number): LineBounds | undefined {
  const opened = openIndexFile(path.join(dir, LINES_FILE), generation, 8);
  if (opened === undefined) return undefined;
  const count = opened.head.count;
  if (typeof count !== 'number' || (opened.head.numbers as number) !== count + 1) {
    fs.closeSync(opened.fd);
    return undefined;
  }
  return {
    count,
    line: (n) => {
      if (!(n >= 0 && n < count)) return undefined;
      const [start, next] = readNumbers(opened, n, 2, Float64Array);
      return start === undefined || next === undefined ? undefined : [start, next - 1];
    },
    close: () => fs.closeSync(opened.fd),
  };
}

/**
 * Writes every shard under `dir`, and the entries' line bounds (`bounds`, count + 1 of them),
 * each file stamped with the entries' `generation`. The shards of the JSON format before are
 * removed: they are of no write this one reads.
 */
export async function writeShards(
  dir: string,
  generation: number,
  shards: Shards,
  bounds: readonly number[],
): Promise<void> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [s, words] of shards.entries()) {
    // No prototype: a word such as __proto__ is a key like any other.
    const where = Object.create(null) as Record<string, number[]>;
    let total = 0;
    for (const [word, lists] of words) {
      where[word] = [total, ...lists.map((l) => l.length)];
      for (const l of lists) total += l.length;
    }
    const numbers = new Uint32Array(total);
    let at = 0;
    for (const lists of words.values())
      for (const l of lists) {
        numbers.set(l, at);
        at += l.length;
      }
    await writeAtomic(path.join(dir, shardName(s)), indexFile({ generation, words: where }, numbers));
  }
  await writeAtomic(
    path.join(dir, LINES_FILE),
    indexFile({ generation, count: bounds.length - 1 }, Float64Array.from(bounds)),
  );
  for (const name of fs.readdirSync(dir)) if (name.endsWith('.json')) fs.rmSync(path.join(dir, name), { force: true });
}

const shardName = (s: number): string => `${String(s).padStart(2, '0')}.bin`;

/** The name of the file of each entry's file state, beside the word index. */
const FILES_FILE = 'files.bin';

/** Each base entry's id and the state of its file when it was read, by entry number. */
export interface FileStates {
  ids: string[];
  /** Entry n's mtime, size and when it was seen, at 3n, 3n + 1 and 3n + 2. */
  numbers: Float64Array;
}

/**
 * Writes the file state of each of `entries` (in entry-number order), stamped with their write's
 * `generation`: a refresh compares the session files with it without parsing an entry, which at
 * 100,000 sessions was most of the first command after a change.
 */
export async function writeFileStates(
  dir: string,
  generation: number,
  entries: ReadonlyArray<{ id: string; file: FileState }>,
): Promise<void> {
  const numbers = new Float64Array(entries.length * 3);
  entries.forEach(({ file }, n) => numbers.set([file.mtimeMs, file.size, file.seenMs], n * 3));
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  await writeAtomic(
    path.join(dir, FILES_FILE),
    indexFile({ generation, count: entries.length, ids: entries.map((e) => e.id).join('\n') }, numbers),
  );
}

/** The file states written for `generation`; undefined when missing, torn or of another write. */
export function readFileStates(dir: string, generation: number): FileStates | undefined {
  const opened = openIndexFile(path.join(dir, FILES_FILE), generation, 8);
  if (opened === undefined) return undefined;
  try {
    const { count, ids } = opened.head;
    if (typeof count !== 'number' || typeof ids !== 'string' || opened.head.numbers !== count * 3) return undefined;
    const list = count === 0 ? [] : ids.split('\n');
    if (list.length !== count) return undefined;
    return { ids: list, numbers: readNumbers(opened, 0, count * 3, Float64Array) };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(opened.fd);
  }
}
