import { tokenUsageOf } from '../protocol/details.js';
import { usageOf } from '../council/usage.js';
import type { Candidate } from '../protocol/wire.js';
import { NsedError } from '../errors.js';
import { isRecord, type Rec } from './decode-chunk.js';
import type { StreamEvent } from '../events/events.js';
import { sanitizeServerText } from './redact.js';
import type { SseMessage } from './sse.js';
import { createSseProcessor, type StreamProcessor } from './sse-processor.js';
import { toolCallEventOf } from './tool-call-events.js';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** A number the server reported, or null: the verdict never turns a missing value into 0. */
const reported = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The native job stream's named events (`GET /job/{id}/stream`) -> the same StreamEvents a
 * compat stream yields, so renderers and the recorder do not care which path ran. Proposals
 * build unscored candidates, a round summary scores them, and `job_complete` carries the
 * answer: `Success` ends the turn, `Failed: cancelled` ends it as cancelled, any other status
 * is the deliberation's failure. The tool-call events go through the one decoder the compat
 * stream's deltas use. Unknown event names are skipped (forward compatibility).
 */
export function createNativeProcessor(opts: { maxEventBytes?: number; token?: string } = {}): StreamProcessor {
  let total = 0;
  let round = 0;
  let proposals: Candidate[] = [];

  const data = (m: SseMessage, index: number): Rec => {
    try {
      const v = JSON.parse(m.data) as unknown;
      return isRecord(v) ? v : {};
    } catch {
      throw new NsedError('server', `malformed ${m.event ?? 'message'} event at event ${index} of the job stream`, {
        drop: 'malformed',
      });
    }
  };

  // A job stream that ends without job_complete is incomplete, not a failed job (the shell's eof).
  function decode(m: SseMessage, index: number, out: StreamEvent[]): boolean {
    switch (m.event) {
      case 'round_start': {
        const d = data(m, index);
        round = num(d['round']);
        total = num(d['total_rounds']) || total;
        proposals = [];
        out.push({ type: 'reasoning', text: `Round ${round}/${total} started`, index });
        return false;
      }
      case 'proposal_submitted': {
        const d = data(m, index);
        proposals.push({
          agent_id: str(d['agent_id']),
          score: 0,
          content_preview: str(d['content']),
          thought_preview: str(d['thought_process']),
          claims: [],
        });
        const r = num(d['round']) || round;
        out.push({
          type: 'round',
          round: r,
          total_rounds: total,
          progress: total > 0 ? (r - 1) / total : 0,
          scored: false,
          candidates: proposals.map((c) => ({ ...c })),
          index,
        });
        return false;
      }
      case 'round_summary': {
        const d = data(m, index);
        const r = num(d['round']) || round;
        const scores = Array.isArray(d['proposal_scores']) ? d['proposal_scores'].filter(isRecord) : [];
        const candidates = scores.map((s) => {
          const id = str(s['agent_id']);
          const p = proposals.find((c) => c.agent_id === id);
          const real = reported(s['real_eval_count']);
          const synthetic = reported(s['synthetic_eval_count']);
          const controversy = reported(s['controversy_score']);
          return {
            agent_id: id,
            score: num(s['aggregated_score']),
            content_preview: p?.content_preview ?? '',
            thought_preview: p?.thought_preview ?? '',
            claims: [],
            // How the server weighed the round, for the verdict's trust figures (docs/ndjson.md §4b).
            ...(real === null ? {} : { real_evals: real }),
            ...(synthetic === null ? {} : { synthetic_evals: synthetic }),
            ...(controversy === null ? {} : { controversy }),
          };
        });
        const convergence = reported(d['convergence_score']);
        const decisiveness = reported(d['decisiveness']);
        out.push({
          type: 'round',
          round: r,
          total_rounds: total,
          progress: total > 0 ? r / total : 1,
          scored: true,
          candidates,
          // Structured, for the verdict; the milestone below is what a person watching reads.
          ...(convergence === null ? {} : { convergence }),
          ...(decisiveness === null ? {} : { decisiveness }),
          index,
        });
        if (convergence !== null)
          out.push({
            type: 'reasoning',
            text: `Round ${r} complete — convergence: ${Math.round(convergence * 100)}%`,
            index,
          });
        return false;
      }
      case 'user_injection': {
        const d = data(m, index);
        out.push({
          type: 'injection',
          message: str(d['message']),
          round: num(d['injected_at_round'] ?? d['round']),
          sequence: num(d['sequence']),
          index,
        });
        return false;
      }
      case 'tool_call_pending':
      case 'tool_call_responded':
      case 'tool_call_expired': {
        const e = toolCallEventOf(m.event, data(m, index), index);
        if (e !== undefined) out.push(e);
        return false;
      }
      case 'job_complete': {
        const d = data(m, index);
        const status = str(d['status']);
        // The job's totals, reported or not (docs/ndjson.md "Usage"): unknown stays null.
        const totals = tokenUsageOf(d['token_usage']);
        if (totals !== null) out.push({ type: 'usage', usage: usageOf({ totals }), index });
        if (status === 'Success') {
          const author = str(d['best_proposal_author']);
          if (author !== '')
            out.push({
              type: 'chosen',
              agent_id: author,
              score: reported(d['best_proposal_score']),
              rounds_completed: reported(d['rounds_completed']),
              total_rounds: reported(d['total_rounds']),
              index,
            });
          const text = str(d['best_proposal_content']);
          if (text !== '') out.push({ type: 'text', text, index });
          out.push({ type: 'end', finish_reason: 'stop', index });
          return true;
        }
        const reason = status.replace(/^failed:\s*/i, '');
        if (/^cancell?ed$/i.test(reason)) {
          out.push({ type: 'end', finish_reason: 'cancelled', index });
          return true;
        }
        throw new NsedError(
          'server',
          `deliberation failed: ${sanitizeServerText(reason === '' ? 'unknown' : reason, opts.token, 300)}`,
        );
      }
      default:
        // connected, keepalive, agent_working, evaluation_submitted, round_complete, timeout, …
        return false;
    }
  }

  return createSseProcessor(opts, decode);
}
