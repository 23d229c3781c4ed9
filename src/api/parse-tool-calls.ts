import type { PendingToolCall } from '../protocol/wire.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const STATUSES: ReadonlyArray<PendingToolCall['status']> = ['Pending', 'Responded', 'Expired'];

/** `{"tool_calls": [...]}` from GET …/tool-calls; records without a call id are skipped. */
export function parseToolCalls(v: unknown): PendingToolCall[] | undefined {
  if (!isRecord(v) || !Array.isArray(v['tool_calls'])) return undefined;
  return v['tool_calls'].filter(isRecord).flatMap((c): PendingToolCall[] => {
    if (typeof c['call_id'] !== 'string' || c['call_id'] === '') return [];
    const status = STATUSES.find((s) => s.toLowerCase() === String(c['status']).toLowerCase()) ?? 'Pending';
    const out: PendingToolCall = {
      call_id: c['call_id'],
      job_id: typeof c['job_id'] === 'string' ? c['job_id'] : '',
      agent_id: typeof c['agent_id'] === 'string' ? c['agent_id'] : '',
      tool_name: typeof c['tool_name'] === 'string' ? c['tool_name'] : '',
      arguments: isRecord(c['arguments']) ? c['arguments'] : {},
      round: typeof c['round'] === 'number' ? c['round'] : 0,
      phase: typeof c['phase'] === 'string' ? c['phase'] : '',
      status,
      created_at: typeof c['created_at'] === 'number' ? c['created_at'] : 0,
    };
    if (typeof c['result'] === 'string') out.result = c['result'];
    if (typeof c['responded_at'] === 'number') out.responded_at = c['responded_at'];
    return [out];
  });
}
