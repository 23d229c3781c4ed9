import type { Candidate, JobChosen, NsedRound } from '../protocol/wire.js';

/**
 * `GET /deliberation/{id}/details` (docs/protocol.md §3.5) read as what a native stream would have
 * told a run that stayed connected: one scored round per round of the history (each author's
 * proposal and aggregated score; the convergence where the server reports it per round), and the
 * chosen proposal from `final_result`. Claims are not read: the native stream reports none either.
 * The server is untrusted: only numbers and strings of the documented shape are taken, at most
 * MAX_ENTRIES of them.
 */
export interface DetailsHistory {
  rounds: NsedRound[];
  chosen: JobChosen | null;
}

const MAX_ENTRIES = 10_000;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null);
const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function parseDetails(v: unknown): DetailsHistory | undefined {
  if (!isRecord(v) || !Array.isArray(v['history'])) return undefined;
  const byRound = new Map<number, Candidate[]>();
  for (const entry of v['history'].slice(0, MAX_ENTRIES)) {
    if (!isRecord(entry)) continue;
    const round = count(entry['round']);
    const agent = text(entry['author_agent_id']);
    if (round === null || round === 0 || agent === '') continue;
    const proposal = isRecord(entry['proposal']) ? entry['proposal'] : {};
    const list = byRound.get(round) ?? [];
    list.push({
      agent_id: agent,
      score: finite(entry['aggregated_score']) ?? 0,
      content_preview: text(proposal['content']),
      thought_preview: text(proposal['thought_process']),
      claims: [],
    });
    byRound.set(round, list);
  }
  const numbers = [...byRound.keys()].sort((a, b) => a - b);
  const total = count(v['total_rounds']) ?? numbers.at(-1) ?? 0;
  const convergence = new Map<number, number>();
  if (Array.isArray(v['rounds']))
    for (const r of v['rounds'].slice(0, MAX_ENTRIES))
      if (isRecord(r)) {
        const n = count(r['round']);
        const c = finite(r['convergence_score']);
        if (n !== null && c !== null && c >= 0 && c <= 1) convergence.set(n, c);
      }
  const rounds: NsedRound[] = numbers.map((n) => {
    const c = convergence.get(n);
    return {
      round: n,
      total_rounds: total,
      progress: total > 0 ? n / total : 1,
      scored: true,
      candidates: byRound.get(n) ?? [],
      ...(c === undefined ? {} : { convergence: c }),
    };
  });
  const final = isRecord(v['final_result']) ? v['final_result'] : undefined;
  const author = text(final?.['author_agent_id']);
  const chosen: JobChosen | null =
    final === undefined || author === ''
      ? null
      : {
          agent_id: author,
          score: finite(final['aggregated_score']),
          rounds_completed: count(v['rounds_completed']) ?? (numbers.length > 0 ? numbers.length : null),
          total_rounds: total > 0 ? total : null,
        };
  return { rounds, chosen };
}
