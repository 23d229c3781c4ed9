import type { ToolCall } from '../protocol/wire.js';
import { composeAnswer, chunkText } from './answer.js';
import { chunk, errorChunk } from './chunks.js';
import {
  type CouncilInput,
  type Influences,
  type Proposal,
  type RoundOutcome,
  evaluate,
  propose,
  unscoredCandidates,
} from './council.js';
import type { SimControl } from './hold.js';
import type { Job } from './job.js';
import type { TokenUsage } from './metering.js';
import type { MilestoneWording } from './profile.js';
import type { TimerSet } from './timers.js';

export interface DeliberationPlan {
  job: Job;
  council: CouncilInput;
  influences: Influences;
  roundMs: number;
  timers: TimerSet;
  control: SimControl;
  /** Fault `fail-at-round`: the job fails when that round is evaluated. */
  failAtRound?: number;
  /** A client tool the council's leader calls after round 1, blocking until it is answered. */
  toolCall?: ToolCall;
  /** How long the blocked agent waits before the call expires and it goes on without. */
  toolWaitMs: number;
  /** How chat streams word the reasoning milestones (the profile's choice). */
  milestones: MilestoneWording;
  /** The winning prose as the request asked for the answer (JSON for `response_format`); as is otherwise. */
  finalAnswer?: (prose: string) => string;
}

type Phase = { kind: 'propose' | 'evaluate'; round: number } | { kind: 'answer'; round: number };

function argsObject(call: ToolCall): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.function.arguments);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const progress = (n: number): number => Math.round(n * 1000) / 1000;

/** Charges each proposal to the job's meter: it read the task and, after round 1, the previous proposals. */
function meterProposals(job: Job, round: number, proposals: Proposal[], previous: RoundOutcome | undefined): void {
  const context = previous === undefined ? '' : previous.proposals.map((p) => p.content).join('\n');
  for (const p of proposals) {
    const usage = job.meter.charge(
      p.agent_id,
      round,
      `${job.info.query}\n${context}`,
      `${p.content}\n${p.thought_process}`,
    );
    if (usage !== undefined) p.token_usage = usage;
  }
}

/** Charges each evaluation to its evaluator: it read the task and the proposal, and wrote its judgement. */
function meterEvaluations(job: Job, o: RoundOutcome): void {
  for (const e of o.evaluations) {
    const target = o.proposals.find((p) => p.agent_id === e.target_id)?.content ?? '';
    const wrote = [e.justification, ...e.claim_assessments.map((c) => `${c.claim} ${c.reason ?? ''}`)].join('\n');
    const usage = job.meter.charge(e.evaluator_agent_id, o.round, `${job.info.query}\n${target}`, wrote);
    if (usage !== undefined) e.token_usage = usage;
  }
}

const withUsage = (usage: TokenUsage | undefined): { token_usage?: TokenUsage } =>
  usage === undefined ? {} : { token_usage: usage };

/**
 * The `round_summary` of an evaluated round (docs/protocol.md §5): per proposal its score, its
 * controversy (the spread of its real scores) and how many evaluations were real or stand-ins;
 * the round's decisiveness (the lead over the runner-up) and how far its claims are settled.
 */
export function roundSummaryOf(o: RoundOutcome): Record<string, unknown> {
  return {
    round: o.round,
    convergence_score: o.convergence,
    proposal_scores: o.scores.map((s) => ({
      agent_id: s.agent_id,
      aggregated_score: s.score,
      controversy_score: s.controversy,
      real_eval_count: s.real,
      synthetic_eval_count: s.synthetic,
    })),
    decisiveness: o.decisiveness,
    controversy_scores: Object.fromEntries(o.scores.map((s) => [s.agent_id, s.controversy])),
    ...o.claims,
  };
}

/** The native events of one evaluated round: each evaluator's scores, the summary, the round's end. */
function emitEvaluation(job: Job, o: RoundOutcome, total: number, budgetedSecs: number): void {
  // A timed-out evaluator submits nothing: its stand-ins show only in the counts and /details.
  const real = o.evaluations.filter((e) => !e.synthetic);
  for (const evaluator of new Set(real.map((e) => e.evaluator_agent_id))) {
    const evaluations = real
      .filter((e) => e.evaluator_agent_id === evaluator)
      .map((e) => ({
        target_id: e.target_id,
        score: e.score,
        justification: e.justification,
        stance: e.stance,
        claim_assessments: e.claim_assessments,
        disagreements: e.disagreements,
        ...withUsage(e.token_usage),
      }));
    job.emit('evaluation_submitted', { round: o.round, evaluator_id: evaluator, evaluations });
  }
  if (real.length < o.evaluations.length)
    job.emit('budget_phase_complete', {
      round: o.round,
      phase: 'evaluate',
      budgeted_secs: budgetedSecs,
      actual_secs: budgetedSecs,
      under_budget: false,
    });
  job.emit('round_summary', roundSummaryOf(o));
  job.emit('round_complete', { round: o.round, total_rounds: total, proposals_count: o.proposals.length });
}

/**
 * Runs a deliberation on its own timers, one phase per `roundMs`, independent of any
 * connection. Injections land at phase boundaries; each phase appends its chunks to the log.
 */
export function runDeliberation(plan: DeliberationPlan): void {
  const { job, council, influences } = plan;
  const total = council.totalRounds;
  const names = council.members.map((m) => m.id).join(', ');
  const phases: Phase[] = [];
  for (let r = 1; r <= total; r++) phases.push({ kind: 'propose', round: r }, { kind: 'evaluate', round: r });
  phases.push({ kind: 'answer', round: total });
  const failAt = plan.failAtRound === undefined ? undefined : Math.min(plan.failAtRound, total);
  let index = 0;
  let proposals: Proposal[] = [];
  let previous: RoundOutcome | undefined;
  const say = (text: string): void => {
    job.push(chunk(job.stamp, { reasoning_content: text }));
  };
  const seedWords = plan.milestones === 'seed';

  const runPhase = (phase: Phase): boolean => {
    const r = phase.round;
    if (phase.kind === 'propose') {
      say(seedWords ? `Round ${r}/${total} — proposals from ${names}` : `Proposals (round ${r} of ${total}): ${names}`);
      job.emit('round_start', { round: r, total_rounds: total, is_resuming: false });
      for (const m of council.members) job.emit('agent_working', { round: r, agent_id: m.id, action: 'propose' });
      proposals = propose(council, r, influences, previous);
      meterProposals(job, r, proposals, previous);
      for (const p of proposals)
        job.emit('proposal_submitted', {
          round: r,
          agent_id: p.agent_id,
          content: p.content,
          thought_process: p.thought_process,
          ...withUsage(p.token_usage),
        });
      proposals.forEach((_, k) => {
        const nsed_round = {
          round: r,
          total_rounds: total,
          progress: progress((r - 1 + (k + 1) / (2 * proposals.length)) / total),
          scored: false,
          candidates: unscoredCandidates(proposals.slice(0, k + 1)),
        };
        job.push(chunk(job.stamp, { nsed_round }));
      });
      return true;
    }
    if (phase.kind === 'evaluate') {
      if (failAt === r) {
        const reason = `quorum lost in round ${r} (simulated fault)`;
        job.end('failed', 'error', { failure: reason, last: errorChunk(job.stamp, `deliberation failed: ${reason}`) });
        return false;
      }
      say(seedWords ? `Round ${r} — evaluations from ${names}` : `Evaluating (round ${r}): ${names}`);
      for (const m of council.members) job.emit('agent_working', { round: r, agent_id: m.id, action: 'evaluate' });
      const outcome = evaluate(council, r, proposals);
      meterEvaluations(job, outcome);
      job.history.push(outcome);
      emitEvaluation(job, outcome, total, plan.roundMs / 1000);
      previous = outcome;
      job.push(
        chunk(job.stamp, {
          nsed_round: {
            round: r,
            total_rounds: total,
            progress: progress(r / total),
            scored: true,
            candidates: outcome.candidates,
          },
        }),
      );
      say(
        seedWords
          ? `Round ${r} complete — convergence: ${Math.round(outcome.convergence * 100)}%`
          : `Scored round ${r} of ${total}; agreement ${outcome.convergence.toFixed(2)}`,
      );
      if (plan.toolCall && r === 1) {
        block(outcome.leader, plan.toolCall, r);
        return false;
      }
      return true;
    }
    if (!previous) return false;
    const score = previous.scores.find((s) => s.agent_id === previous?.leader)?.score ?? 0;
    say(
      seedWords
        ? `Consensus — ${previous.leader}'s proposal selected (score ${score.toFixed(2)})`
        : `Chosen: ${previous.leader} (${score.toFixed(2)})`,
    );
    const prose = composeAnswer({
      text: council.text,
      members: council.members,
      final: previous,
      totalRounds: total,
      influences,
    });
    const answer = plan.finalAnswer === undefined ? prose : plan.finalAnswer(prose);
    for (const piece of chunkText(answer)) job.push(chunk(job.stamp, { content: piece }), true);
    job.answer = answer;
    job.end('completed', 'stop', { last: chunk(job.stamp, {}, 'stop') });
    return false;
  };

  // The leader stops and waits; the deliberation goes on (next tick) only once the call is
  // answered or has expired, so the same job carries the result into its answer.
  const block = (agent: string, call: ToolCall, r: number): void => {
    const name = call.function.name;
    say(`${agent} needs the ${name} tool before the council can go on`);
    const pending = {
      call_id: call.id,
      agent_id: agent,
      tool_name: `user_${name}`,
      arguments: argsObject(call),
      round: r,
      phase: 'Proposing',
    };
    job.tools.open({ ...pending, job_id: job.id }, (outcome) => {
      plan.timers.cancel(expiry);
      if (outcome.kind === 'responded') {
        const responded = { call_id: call.id, agent_id: agent, tool_name: pending.tool_name, result: outcome.result };
        job.push(chunk(job.stamp, { nsed_tool_call_responded: responded }), false, 'continuous');
        job.emit('tool_call_responded', { call_id: call.id, agent_id: agent, tool_name: pending.tool_name });
        influences.toolResults.push({ name, content: outcome.result });
        say(`${agent} received the ${name} result`);
      } else {
        job.push(chunk(job.stamp, { nsed_tool_call_expired: { call_id: call.id } }), false, 'continuous');
        job.emit('tool_call_expired', { call_id: call.id, agent_id: agent, tool_name: pending.tool_name });
        say(`The ${name} call expired unanswered; ${agent} goes on with its own judgement`);
      }
      job.landingRound = phases[index]?.round ?? total;
      plan.timers.after(plan.roundMs, tick);
    });
    job.push(chunk(job.stamp, { nsed_tool_call_pending: pending }), false, 'continuous');
    // The named-event stream carries the same three events (live only: a later attach lists them).
    job.emit('tool_call_pending', pending);
    if (job.info.surface === 'compat')
      job.closeSegment([call], chunk(job.stamp, { tool_calls: [{ index: 0, ...call }] }, 'tool_calls'));
    // Woken only from a later request or timer, by which time `expiry` is set.
    const expiry = plan.timers.after(plan.toolWaitMs, () => job.tools.expire(call.id));
  };

  const tick = (): void => {
    if (job.status !== 'running' || index >= phases.length) return;
    // A held job waits here, between phases, where injections land; the release calls tick again.
    if (!plan.control.admit(job.id, tick)) return;
    const phase = phases[index++];
    if (phase === undefined) return;
    for (const injected of job.takePending(phase.round)) {
      job.push(chunk(job.stamp, { nsed_injected: injected }));
      influences.guidance.push(injected.message);
    }
    const goOn = runPhase(phase);
    plan.control.phaseRan(job.id, phase.kind, phase.round);
    if (!goOn) return;
    job.landingRound = phases[index]?.round ?? total;
    plan.timers.after(plan.roundMs, tick);
  };

  job.push(chunk(job.stamp, { role: 'assistant', nsed_session_id: job.id }));
  plan.timers.after(plan.roundMs, tick);
}
