import { readInputText, type ReadBounds } from '../files/read-input.js';
import { NsedError, usageError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import { readUsage, type Usage } from '../council/usage.js';
import { STATUS_ORDER, type ItemStatus } from './status.js';

/** What a results line must hold for `--resume` to count its item as run. */
export interface EarlierLine {
  id: string;
  index: number;
  batch: string;
  request_hash: string;
  status: ItemStatus;
  exit_code: number;
  /** What the item cost (docs/ndjson.md "Usage"), as the line recorded it; null when its turn never started. */
  usage?: unknown;
}

/** A results file as an earlier run of the batch left it. */
export interface EarlierResults {
  /** The last line per id (a later line for an id wins: docs/reliability.md "Batches"). */
  last: Map<string, EarlierLine>;
  /** The batch id of the file's first line: a resumed batch keeps it. */
  batchId: string | undefined;
  /** The file ends inside a line (a crash cut it): the next line is written on a fresh one. */
  cutTail: boolean;
  /** Lines that are not result lines (a cut line that later lines followed), skipped. */
  skipped: number;
  /**
   * What every line's item spent, superseded lines too (each was paid for): the spend a resumed
   * batch counts against its cap (docs/reliability.md #243). A line whose turn never started
   * (`usage: null`) spent nothing and is not here.
   */
  spent: Usage[];
}

const STATUSES = new Set<string>(STATUS_ORDER);

/** The largest results file --resume reads back: far past any batch nsed writes, short of filling memory. */
export const MAX_RESULTS_BYTES = 1024 * 1024 * 1024;

/**
 * Reads `--out FILE` for `--resume` (docs/reliability.md #147). The file is never rewritten: a
 * line cut by a crash stays, ignored, and new lines are appended after it. A missing or empty
 * file is a batch that wrote nothing yet; a file with text but no result line at all is not
 * this batch's (exit 2, and nothing is appended to it).
 */
export async function readEarlierResults(file: string, bounds: ReadBounds): Promise<EarlierResults> {
  let text: string;
  try {
    // By the one reader (docs/usage.md "Files nsed reads"): a device or a silent FIFO named as --out
    // cannot hold --resume past --timeout, nor fill memory.
    text = await readInputText(file, { label: '--out', maxBytes: MAX_RESULTS_BYTES, ...bounds });
  } catch (err) {
    if (err instanceof NsedError && err.code === 'not_found')
      return { last: new Map(), batchId: undefined, cutTail: false, skipped: 0, spent: [] };
    throw err;
  }
  const parts = text.split('\n');
  // The text after the last newline is a line no run finished writing (or nothing at all).
  const tail = parts.pop() ?? '';
  const last = new Map<string, EarlierLine>();
  let batchId: string | undefined;
  let skipped = 0;
  const spent: Usage[] = [];
  for (const raw of parts) {
    if (raw.trim() === '') continue;
    const line = resultLineOf(raw);
    if (line === undefined) {
      skipped++;
      continue;
    }
    batchId ??= line.batch;
    last.set(line.id, line);
    if (line.usage != null) spent.push(readUsage(line.usage));
  }
  if (last.size === 0 && skipped > 0)
    throw usageError(
      `--out ${oneLine(file, 200)} holds no result lines; --resume appends only to a batch's own results`,
      'give the results file of the batch to resume',
    );
  return { last, batchId, cutTail: tail !== '', skipped, spent };
}

/** A line of a results file as a result line, or undefined when it is not one (the file is the user's to edit). */
export function resultLineOf(raw: string): EarlierLine | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const ok =
    typeof o['id'] === 'string' &&
    typeof o['batch'] === 'string' &&
    typeof o['request_hash'] === 'string' &&
    typeof o['status'] === 'string' &&
    STATUSES.has(o['status']) &&
    typeof o['index'] === 'number' &&
    typeof o['exit_code'] === 'number';
  return ok ? (o as unknown as EarlierLine) : undefined;
}

/** Statuses `--retry-errors` runs again: nsed could not run the item, or the orchestrator failed it. Never a gate's verdict. */
const RETRIED: ReadonlySet<ItemStatus> = new Set<ItemStatus>(['error', 'failed']);

/**
 * Whether an item's earlier line stands: it exists for the same request (an edited item runs
 * again), it ran (a `skipped` one did not), and --retry-errors does not ask for it again. An empty hash is an item whose input
 * could not be read: its request is unknown, and its line (an error) stands as any error does.
 */
export function stillStands(line: EarlierLine | undefined, hash: string, retryErrors: boolean): line is EarlierLine {
  if (line === undefined || (line.request_hash !== hash && line.request_hash !== '')) return false;
  // An item the spend cap kept from starting never ran: it is considered again, under the cap.
  if (line.status === 'skipped') return false;
  return !(retryErrors && RETRIED.has(line.status));
}
