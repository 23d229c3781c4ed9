import type { RouteInput, SimContext } from '../context.js';
import { isRecord, parseJson, sendJson } from '../http-util.js';
import { instructionsAnswerFormat } from '../answer-format.js';
import { schemaProblem } from '../schema-bounds.js';
import { startJob, structuredPlan } from '../start-job.js';
import { textContext } from '../text-context.js';
import { forcedToolCall, fromUserTools, planToolCall } from '../tool-plan.js';
import { validateSubmit } from '../validate-submit.js';

/** `POST /deliberation`: validate (400), one live job per room (409), then 202 `{job_id}`. */
export function handleSubmit(ctx: SimContext, rq: RouteInput): void {
  const body = parseJson(rq.raw);
  if (!body.ok) return sendJson(rq.res, 400, { error: 'invalid input: the body is not valid JSON' });
  const check = validateSubmit(body.value, ctx.policies);
  if (!check.ok) return sendJson(rq.res, 400, { error: check.error });
  const plan = check.plan;
  if (ctx.jobs.get(plan.roomId)?.status === 'running') return sendJson(rq.res, 409, { error: 'job already running' });
  const text = textContext(plan.question, plan.earlier);
  const userTools = isRecord(body.value) ? fromUserTools(body.value.user_tools) : [];
  // The native surface has no response_format: nsed words the schema into system_instructions.
  const format = instructionsAnswerFormat(plan.systemInstructions);
  const tooLarge = schemaProblem(
    plan.question,
    ctx.profile.answerFormat ? format : undefined,
    'system_instructions',
    userTools,
  );
  if (tooLarge !== undefined) return sendJson(rq.res, 400, { error: `invalid input: ${tooLarge.message}` });
  const toolCall =
    forcedToolCall(rq.faults.callTool) ?? planToolCall(userTools, plan.question, [], text, String(ctx.seed));
  const structured = structuredPlan(ctx, rq.faults, format, plan.conversationId ?? plan.roomId);
  startJob(ctx, {
    id: plan.roomId,
    model: plan.policyId === undefined ? 'nsed:native' : `nsed:${plan.policyId}`,
    info: {
      query: plan.query,
      ...(plan.messages === undefined ? {} : { messages: plan.messages }),
      ...(plan.systemInstructions === undefined ? {} : { systemInstructions: plan.systemInstructions }),
      ...(plan.conversationId === undefined ? {} : { conversationId: plan.conversationId }),
      agents: plan.agents,
      totalRounds: plan.rounds,
      policy: plan.policyId ?? `native:${plan.agents.join(',')}:${plan.rounds}`,
      mode: 'deliberation',
      surface: 'native',
    },
    text,
    toolResults: [],
    council: rq.faults,
    ...(rq.faults.failAtRound === undefined ? {} : { failAtRound: rq.faults.failAtRound }),
    ...(rq.faults.end === undefined ? {} : { ending: rq.faults.end }),
    ...(toolCall === undefined ? {} : { toolCall }),
    ...(structured === undefined ? {} : { structured }),
  });
  sendJson(rq.res, 202, { job_id: plan.roomId });
}
