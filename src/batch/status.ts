import { ExitCode } from '../errors.js';
import { BATCH_STATUS_ORDER, type BatchItemStatus } from '../output/export/batch-report.js';

/** How an item ended, on its result line (docs/reliability.md "Batches"); worst first in STATUS_ORDER. */
export type ItemStatus = BatchItemStatus;
export const STATUS_ORDER = BATCH_STATUS_ORDER;

/**
 * An item's status from its `-o json` object (undefined when the turn never started) and its
 * error code: the orchestrator's failure or an answer that never matched --schema is `failed`;
 * a cancel, an interrupt or a spend cap reached mid-deliberation is `cancelled`; any other error (network, timeout, auth, a file
 * that cannot be read) is `error`.
 */
export function statusOf(jsonStatus: string | undefined, code: string | undefined): ItemStatus {
  if (code === undefined) return jsonStatus === 'complete' ? 'ok' : 'error';
  if (code === 'gate_failed') return 'gate_failed';
  if (code === 'inconclusive') return 'inconclusive';
  // A cap that stopped the item's deliberation cancelled it there (exit 15 on its line).
  if (code === 'cancelled' || code === 'interrupted' || code === 'cost_cap') return 'cancelled';
  if (code === 'server' || code === 'schema_mismatch')
    return jsonStatus === undefined && code === 'server' ? 'error' : 'failed';
  return 'error';
}

export interface Tally {
  counts: Record<ItemStatus, number>;
  total: number;
}

export const emptyTally = (): Tally => ({
  counts: { ok: 0, gate_failed: 0, inconclusive: 0, failed: 0, cancelled: 0, skipped: 0, error: 0 },
  total: 0,
});

/**
 * The batch's exit code: 0 when every item is ok; else the code of the first item of the worst
 * status. `minPassRate` (0-1): when ok items reach that share of all items, the batch exits 0.
 */
export function batchExit(
  lines: readonly { index: number; status: ItemStatus; exit_code: number }[],
  minPassRate: number | undefined,
): number {
  const ok = lines.filter((l) => l.status === 'ok').length;
  if (lines.length === ok) return ExitCode.ok;
  if (minPassRate !== undefined && lines.length > 0 && ok / lines.length >= minPassRate) return ExitCode.ok;
  for (const status of STATUS_ORDER) {
    const first = lines.filter((l) => l.status === status).sort((a, b) => a.index - b.index)[0];
    if (first !== undefined) return first.exit_code === 0 ? ExitCode.bug : first.exit_code;
  }
  return ExitCode.ok;
}
