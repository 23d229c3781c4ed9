import { sumUsage, type Usage, type UsageTotal } from '../../council/usage.js';
import type { CouncilVerdict, GateResult } from '../../council/verdict.js';

/** How an item ended, as its result line says (docs/reliability.md "Batches"). */
export type BatchItemStatus = 'ok' | 'gate_failed' | 'inconclusive' | 'failed' | 'cancelled' | 'skipped' | 'error';

/**
 * Worst first: the batch exits with the code of the first item (by index) of the worst status
 * present. An item nsed could not run (`error`: network, auth, a file) outranks a deliberation
 * that ran and failed, which outranks one cancelled, then one the batch's spend cap kept from
 * starting (`skipped`), then the gates' verdicts.
 */
export const BATCH_STATUS_ORDER: readonly BatchItemStatus[] = [
  'error',
  'failed',
  'cancelled',
  'skipped',
  'inconclusive',
  'gate_failed',
  'ok',
];

/** An item's status in a report: a finished one's, or why it has no result line. */
export type EntryStatus = BatchItemStatus | 'interrupted' | 'not-run';

/** What a batch report shows of a finished item: the fields of its result line it needs. */
export interface BatchItemLine {
  session: string | null;
  job_id: string | null;
  status: BatchItemStatus;
  exit_code: number;
  verdict: CouncilVerdict | null;
  gate: GateResult | null;
  error: { code: string; exit_code: number; message: string } | null;
  /** What the item's turn cost (docs/ndjson.md §4d); null when it ran no turn or its line has none. */
  usage: Usage | null;
}

/**
 * One item of the batch in its reports: its result line when it finished, else why it has none:
 * `interrupted` (a signal ended it while it ran) or `not-run` (it never started).
 */
export interface BatchEntry {
  id: string;
  /** Its position in the items file (0-based). */
  index: number;
  ended: BatchItemLine | 'interrupted' | 'not-run';
  /** Wall time of its deliberation, when it finished. */
  ms: number | null;
}

/** The `--summary` and `--junit` reports of `nsed batch`: one entry per item of the run. */
export interface BatchReport {
  batch: string;
  /** The JUnit suite's name: `--junit-name`, else the batch file's name (`stdin` for `-`). */
  name?: string;
  /** The items' sessions are in the store (false with --no-save). */
  saved: boolean;
  /** When the batch started (ISO 8601). */
  started: string;
  wallMs: number;
  /** `batch merge`: the shards it joined, of how many; their wall times are each leg's own, not one run's. */
  merged?: { shards: number; count: number };
  /** In file order. */
  entries: BatchEntry[];
}

/** What a reader needs first: items that went wrong, then the rest, each in file order. */
const RANK: Record<EntryStatus, number> = {
  error: 0,
  failed: 1,
  cancelled: 2,
  interrupted: 3,
  skipped: 4,
  inconclusive: 5,
  gate_failed: 6,
  'not-run': 7,
  ok: 8,
};

export const statusOfEntry = (e: BatchEntry): EntryStatus => (typeof e.ended === 'string' ? e.ended : e.ended.status);

export function worstFirst(entries: readonly BatchEntry[]): BatchEntry[] {
  return [...entries].sort((a, b) => RANK[statusOfEntry(a)] - RANK[statusOfEntry(b)] || a.index - b.index);
}

/** Counts per status, in the order of the batch's summary line (docs/reliability.md "Batches"). */
export function countsOf(entries: readonly BatchEntry[]): Array<[EntryStatus, number]> {
  const order: readonly EntryStatus[] = [...BATCH_STATUS_ORDER, 'interrupted', 'not-run'];
  return order
    .map((s): [EntryStatus, number] => [s, entries.filter((e) => statusOfEntry(e) === s).length])
    .filter(([, n]) => n > 0);
}

/**
 * What the items cost together (docs/ndjson.md §4d): the usage of every item whose line has one,
 * summed as the batch's summary line sums it; items of unknown cost are counted apart.
 */
export function batchUsage(r: BatchReport): UsageTotal {
  return sumUsage(
    r.entries.flatMap((e) => (typeof e.ended === 'string' || e.ended.usage === null ? [] : [e.ended.usage])),
  );
}
