import type { RoundOutcome } from './council.js';
import { roundSummaryOf } from './deliberation.js';
import type { Job } from './job.js';

function entryOf(o: RoundOutcome, agent: string): Record<string, unknown> {
  const p = o.proposals.find((x) => x.agent_id === agent);
  return {
    round: o.round,
    author_agent_id: agent,
    proposal: {
      content: p?.content ?? '',
      thought_process: p?.thought_process ?? '',
      ...(p?.token_usage === undefined ? {} : { token_usage: p.token_usage }),
    },
    evaluations: o.evaluations
      .filter((e) => e.target_id === agent)
      .map((e) => ({
        evaluator_agent_id: e.evaluator_agent_id,
        evaluation: {
          score: e.score,
          justification: e.justification,
          claim_assessments: e.claim_assessments,
          stance: e.stance,
          disagreements: e.disagreements,
          synthetic: e.synthetic,
          ...(e.token_usage === undefined ? {} : { token_usage: e.token_usage }),
        },
      })),
    aggregated_score: o.scores.find((s) => s.agent_id === agent)?.score ?? 0,
  };
}

/**
 * `GET /deliberation/{id}/details`: the round history of docs/protocol.md §3.5, plus what the job was asked
 * (`user_query`, and `messages` alongside it when the turns came as messages, as the thread
 * tutorial says) and where it stands (`status`, per-round `rounds`).
 */
export function detailsOf(job: Job): Record<string, unknown> {
  const history = job.history.flatMap((o) => o.proposals.map((p) => entryOf(o, p.agent_id)));
  const last = job.history[job.history.length - 1];
  let finalResult: Record<string, unknown> | null = null;
  if (job.status === 'completed' && job.answer !== null) {
    finalResult = last
      ? entryOf(last, last.leader)
      : {
          round: 0,
          author_agent_id: job.info.agents[0] ?? '',
          proposal: { content: job.answer, thought_process: '' },
          evaluations: [],
          aggregated_score: 1,
        };
  }
  const out: Record<string, unknown> = {
    job_id: job.id,
    status: job.statusText(),
    user_query: job.info.query,
    // A hosted server's /details was seen with `query` too; kept for clients that read it.
    query: job.info.query,
    history,
    final_result: finalResult,
    // Each round as its round_summary reports it, and its leader.
    rounds: job.history.map((o) => ({ ...roundSummaryOf(o), leader: o.leader })),
    total_rounds: job.info.totalRounds,
    rounds_completed: job.history.length,
    agents: job.info.agents,
    mode: job.info.mode,
  };
  if (job.info.messages !== undefined) out.messages = job.info.messages;
  if (job.info.systemInstructions !== undefined) out.system_instructions = job.info.systemInstructions;
  if (job.info.conversationId !== undefined) out.conversation_id = job.info.conversationId;
  return out;
}
