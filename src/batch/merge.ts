import { usageError } from '../errors.js';
import { readInputText, type ReadBounds } from '../files/read-input.js';
import { oneLine } from '../terminal/sanitize.js';
import { MAX_RESULTS_BYTES, resultLineOf, type EarlierLine } from './earlier-results.js';
import { shardName, type ShardStamp } from './shard.js';

/** One results file of a matrix, read: the last line per item id (a resumed shard appends), in file order. */
export interface ShardFile {
  file: string;
  lines: EarlierLine[];
  /** The raw text of each kept line, written to the merged results as it was. */
  raw: Map<string, string>;
  stamps: ShardStamp[];
}

/**
 * Reads one shard's results file by the one reader (docs/usage.md "Files nsed reads": a size cap, a
 * device or FIFO refused or bounded by --timeout). A line that is not a result line (cut by a
 * crash) is skipped, as --resume skips it; a result line without a `shard` stamp means the file
 * is not a shard's (exit 2).
 */
export async function readShardFile(file: string, bounds: ReadBounds): Promise<ShardFile> {
  const text = await readInputText(file, { label: 'a results file', maxBytes: MAX_RESULTS_BYTES, ...bounds });
  const byId = new Map<string, EarlierLine>();
  const raw = new Map<string, string>();
  const stamps = new Map<string, ShardStamp>();
  for (const [n, textLine] of text.split('\n').entries()) {
    if (textLine.trim() === '') continue;
    const line = resultLineOf(textLine);
    if (line === undefined) continue;
    const stamp = stampOf((line as unknown as Record<string, unknown>)['shard']);
    if (stamp === undefined)
      throw usageError(
        `${oneLine(file, 200)} line ${n + 1} has no shard stamp: it was not written by batch --shard I/N`,
        'merge the results files of one batch run with --shard 1/N ... N/N',
      );
    stamps.set(stampKey(stamp), stamp);
    byId.delete(line.id);
    byId.set(line.id, line);
    raw.set(line.id, textLine);
  }
  return { file, lines: [...byId.values()], raw, stamps: [...stamps.values()] };
}

function stampOf(v: unknown): ShardStamp | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const whole = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  if (!whole(o['index']) || !whole(o['count']) || o['count'] < 1 || o['index'] < 1 || o['index'] > o['count'])
    return undefined;
  if (typeof o['items_sha256'] !== 'string' || typeof o['flags_sha256'] !== 'string') return undefined;
  return {
    index: o['index'],
    count: o['count'],
    items_sha256: o['items_sha256'],
    flags_sha256: o['flags_sha256'],
    items: whole(o['items']) ? o['items'] : 0,
    split: o['split'] === 'plan' ? 'plan' : 'hash',
  };
}

/** What shards of one batch share: the items, the flags, the number of shards. */
const batchKey = (s: ShardStamp): string => `${s.items_sha256}:${s.flags_sha256}:${s.count}`;
const stampKey = (s: ShardStamp): string => `${batchKey(s)}:${s.index}`;

/**
 * The files must all be shards of one batch: the same items, the same flags, as many shards.
 * Otherwise exit 2, naming which files differ from the first and in what.
 */
export function checkOneBatch(files: readonly ShardFile[]): ShardStamp {
  const first = files.find((f) => f.stamps.length > 0)?.stamps[0];
  if (first === undefined)
    throw usageError('the results files hold no result lines', 'merge the --out files of the shards of one batch');
  const odd: string[] = [];
  const what = new Set<string>();
  for (const f of files) {
    for (const s of f.stamps) {
      if (batchKey(s) === batchKey(first)) continue;
      if (!odd.includes(f.file)) odd.push(f.file);
      if (s.items_sha256 !== first.items_sha256) what.add('other items');
      if (s.flags_sha256 !== first.flags_sha256) what.add('other flags');
      if (s.count !== first.count) what.add(`${s.count} shards, not ${first.count}`);
    }
  }
  if (odd.length === 0) return first;
  const same = files.filter((f) => !odd.includes(f.file)).map((f) => f.file);
  throw usageError(
    `${names(odd)} ${odd.length === 1 ? 'comes' : 'come'} from another batch than ${names(same)} (${[...what].join(', ')}); nothing was merged`,
    'merge only the shards of one run: the same items file, flags and --shard I/N count',
  );
}

const names = (files: readonly string[]): string =>
  files.length === 0 ? '(none)' : files.map((f) => oneLine(f, 200)).join(', ');

/** What a merge found missing: shards with no line, shards with fewer lines than items, item ids. */
export interface Gaps {
  shards: number[];
  short: Array<{ index: number; lines: number; items: number }>;
  ids: string[];
}

/**
 * The shards with no line in any file, and those whose lines are fewer than the items their stamp
 * says they hold; with the whole batch's ids (`--items`, or a plan), the ids no line answers and
 * the shards they belong to (`shardOf`, unknown when the shards ran by a plan the merge was not
 * given). A shard with no items writes no line: knowing each item's shard, it is known empty
 * rather than missing.
 */
export function findGaps(
  lines: readonly EarlierLine[],
  stamps: readonly ShardStamp[],
  count: number,
  all?: { ids: readonly string[]; shardOf: ((id: string) => number) | undefined },
): Gaps {
  const seen = new Set(stamps.map((s) => s.index));
  const expected = new Map<number, number>();
  for (const s of stamps) expected.set(s.index, Math.max(expected.get(s.index) ?? 0, s.items));
  const answered = new Set(lines.map((l) => l.id));
  const perShard = new Map<number, number>();
  for (const l of lines) {
    const s = (l as unknown as { shard?: { index?: unknown } }).shard?.index;
    if (typeof s === 'number') perShard.set(s, (perShard.get(s) ?? 0) + 1);
  }
  const shardOf = all?.shardOf;
  const withItems = all === undefined || shardOf === undefined ? undefined : new Set(all.ids.map((id) => shardOf(id)));
  const shards: number[] = [];
  for (let i = 1; i <= count; i++) if (!seen.has(i) && (withItems === undefined || withItems.has(i))) shards.push(i);
  const short = [...expected.entries()]
    .filter(([i, n]) => (perShard.get(i) ?? 0) < n)
    .map(([index, items]) => ({ index, lines: perShard.get(index) ?? 0, items }))
    .sort((a, b) => a.index - b.index);
  const ids = all === undefined ? [] : all.ids.filter((id) => !answered.has(id));
  return { shards, short, ids };
}

export const hasGaps = (g: Gaps): boolean => g.shards.length > 0 || g.short.length > 0 || g.ids.length > 0;

/** The one line that names what is missing (the exit 16 message). */
export function gapsText(g: Gaps, count: number): string {
  const parts: string[] = [];
  if (g.shards.length > 0)
    parts.push(
      `no results for shard${g.shards.length === 1 ? '' : 's'} ${g.shards.map((i) => shardName({ index: i, count })).join(', ')}`,
    );
  for (const s of g.short)
    parts.push(`shard ${shardName({ index: s.index, count })} has lines for ${s.lines} of its ${s.items} items`);
  if (g.ids.length > 0) {
    const shown = g.ids.slice(0, 10).map((id) => oneLine(id, 60));
    parts.push(
      `${g.ids.length} item${g.ids.length === 1 ? '' : 's'} without a line: ${shown.join(', ')}${g.ids.length > 10 ? ', …' : ''}`,
    );
  }
  return `the matrix is incomplete: ${parts.join('; ')}`;
}
