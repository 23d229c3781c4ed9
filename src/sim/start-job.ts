import { randomBytes } from 'node:crypto';
import type { ToolCall } from '../protocol/wire.js';
import { angleOf } from './agents.js';
import { type AnswerFormat, type StructuredPlan, structuredAnswer } from './answer-format.js';
import type { CouncilMember } from './council.js';
import type { SimContext } from './context.js';
import { runDeliberation } from './deliberation.js';
import { runInstant } from './instant.js';
import { runOn } from './answer.js';
import { Job, type JobEnding, type JobInfo } from './job.js';
import type { FaultSpec } from './faults.js';
import { Meter } from './metering.js';
import { endingFor } from './profile.js';
import type { TextContext } from './text-context.js';

export interface NewJob {
  id: string;
  model: string;
  info: JobInfo;
  text: TextContext;
  toolResults: Array<{ name: string; content: string }>;
  failAtRound?: number;
  /** How the job's streams end (fault `end`), whatever its outcome; overrides the profile. */
  ending?: JobEnding;
  toolCall?: ToolCall;
  /** The format the final answer must take (`response_format` and its kin), when one was asked. */
  structured?: StructuredPlan;
  /** The job-wide faults of the request that started it: metering, `/budget`, a timed-out evaluator. */
  council?: Pick<
    FaultSpec,
    'meter' | 'budgetMissing' | 'budgetStall' | 'meterFigures' | 'evaluatorTimeout' | 'answerBytes'
  >;
}

/**
 * The structured-answer plan of a request on `thread`: none when nothing was asked or the profile
 * ignores formats; with the `schema=violate-once` fault, the thread's first answer violates it.
 */
export function structuredPlan(
  ctx: SimContext,
  faults: FaultSpec,
  format: AnswerFormat | undefined,
  thread: string,
): StructuredPlan | undefined {
  if (format === undefined || !ctx.profile.answerFormat) return undefined;
  const violate = faults.schema === 'violate-once' && !ctx.violatedThreads.has(thread);
  if (violate) ctx.violatedThreads.add(thread);
  return { format, violate };
}

export const membersOf = (agents: readonly string[]): CouncilMember[] =>
  agents.map((id, i) => ({ id, angle: angleOf(id, i) }));

/** Creates, registers (unless roomless) and starts a job; deliberations run on timers, instant modes finish at once. */
export function startJob(ctx: SimContext, spec: NewJob): Job {
  const stamp = {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    model: spec.model,
  };
  const mode = spec.info.mode;
  const roomless = mode !== 'deliberation' && !ctx.profile.instantRoom;
  const failedEnding = endingFor(ctx.profile, ctx.seed, spec.id, spec.ending);
  const job = new Job(spec.id, stamp, spec.info, spec.ending, { failedEnding, roomless });
  job.meter = new Meter(spec.council?.meter ?? ctx.profile.meter, Date.now());
  job.budgetMissing = spec.council?.budgetMissing === true;
  job.budgetStall = spec.council?.budgetStall === true;
  job.meterSkew = spec.council?.meterFigures;
  // A roomless answer is never registered: no route can find it afterwards.
  if (!roomless) ctx.jobs.add(job);
  ctx.control.jobStarted(job, mode === 'deliberation');
  const key = `${ctx.seed}\u0000${spec.info.policy}\u0000${spec.info.query}`;
  const structured = spec.structured;
  const long = spec.council?.answerBytes;
  const finalAnswer = (prose: string): string =>
    structured === undefined
      ? long === undefined
        ? prose
        : runOn(prose, long)
      : structuredAnswer(structured, prose, spec.text.question, key);
  if (mode !== 'deliberation') {
    runInstant(job, spec.text, mode, spec.info.agents[0] ?? 'CortexA', finalAnswer);
    return job;
  }
  const plan = {
    job,
    finalAnswer,
    council: {
      key,
      text: spec.text,
      members: membersOf(spec.info.agents),
      totalRounds: spec.info.totalRounds,
      ...(spec.council?.evaluatorTimeout === undefined ? {} : { timedOut: spec.council.evaluatorTimeout }),
    },
    influences: { guidance: [], toolResults: spec.toolResults },
    roundMs: ctx.roundMs,
    toolWaitMs: ctx.toolWaitMs,
    milestones: ctx.profile.milestones,
    timers: ctx.timers,
    control: ctx.control,
    ...(spec.failAtRound === undefined ? {} : { failAtRound: spec.failAtRound }),
    ...(spec.toolCall === undefined ? {} : { toolCall: spec.toolCall }),
  };
  runDeliberation(plan);
  return job;
}
