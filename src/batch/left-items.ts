import type { PendingJob, Session, SessionStore } from '../session/index.js';
import { hasLeftTurn } from '../turn/follow-left.js';
import type { LeftItem } from './run-item.js';

export interface LeftSearch {
  /** The batch being resumed, when its results file names it. */
  batchId: string | undefined;
  /** The results file, absolute: without a batch id, the sessions that recorded it are the batch's. */
  out: string;
  /** The items to run, by id, with their request hashes: a session of an edited item is not its. */
  hashes: ReadonlyMap<string, string>;
}

/**
 * The deliberations a killed run of the batch left for the items still to run
 * (docs/reliability.md #148): per item, its newest session of this batch, for the same request, that has a turn to
 * follow (a pending job, or a claim its dead owner left), or whose answer was recorded but never
 * written as a line (the run died between the two). Such an item is reattached, not sent again.
 * Also the batch id, when only the sessions know it (the run died before its first line).
 */
export async function findLeftItems(
  store: SessionStore,
  search: LeftSearch,
): Promise<{ left: Map<string, LeftItem>; batchId: string | undefined }> {
  const { sessions } = await store.list();
  const picked = new Map<string, LeftItem>();
  let batchId = search.batchId;
  let firstCreated: string | undefined;
  // Oldest first, so that the newest session of an item is the one kept.
  const candidates = sessions
    .filter((s) => s.batch !== undefined && (search.batchId === undefined || s.batch === search.batchId))
    .sort((a, b) => a.created.localeCompare(b.created));
  for (const summary of candidates) {
    let session: Session;
    try {
      session = await store.read(summary.id);
    } catch {
      continue;
    }
    const ref = session.batch;
    if (ref === undefined || typeof ref.item !== 'string') continue;
    if (search.batchId === undefined && ref.out !== search.out) continue;
    if (search.hashes.get(ref.item) !== ref.request_hash) continue;
    if (search.batchId === undefined && (firstCreated === undefined || session.created < firstCreated)) {
      firstCreated = session.created;
      batchId = ref.id;
    }
    const item = leftOf(session);
    if (item !== undefined) picked.set(ref.item, item);
  }
  return { left: picked, batchId };
}

function leftOf(session: Session): LeftItem | undefined {
  if (hasLeftTurn(session)) return { session };
  const last = session.turns.at(-1);
  const asked = session.turns.at(-2);
  if (last?.role !== 'assistant' || last.status !== 'complete' || last.job_id === undefined) return undefined;
  if (asked?.role !== 'user') return undefined;
  const pending: PendingJob = {
    job_id: last.job_id,
    turn: asked.id,
    path: last.path ?? 'compat',
    policy: last.policy_id ?? session.active_policy,
    started: asked.ts,
  };
  return { session, pending };
}
