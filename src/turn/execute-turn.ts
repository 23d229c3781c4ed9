import { checkAgentNames } from './ballot-sources.js';
import type { AgentInfo } from '../protocol/wire.js';
import { meterCap, turnCapOf } from './spend-watch.js';
import { estimateOf, readEstimateSources } from './estimate-turn.js';
import type { SchemaError } from '../events/events.js';
import { boundsOf } from '../files/read-input.js';
import { schemaMismatchMessage } from '../output/schema-lines.js';
import { NsedError, markReported, notFound } from '../errors.js';
import { progressMode, type ProgressMode } from '../output/progress-mode.js';
import type { Renderer } from '../output/renderer.js';
import { turnRenderer } from './turn-renderer.js';
import { assertStdoutWritten } from '../output/session-write.js';
import { fromModel, matchPolicy } from '../protocol/policy-ref.js';
import { newTurnId } from '../session/index.js';
import { sessionAgents, type PendingJob, type Session } from '../session/index.js';
import type { SessionStore } from '../session/index.js';
import { buildChatRequest, buildNativeRequest, type TurnStart } from './build-request.js';
import { withResponseFormat, withSchemaInstruction, repairPrompt, type AnswerSchema } from './schema/answer-schema.js';
import { assertFree, newClaim, releaseClaim } from './idempotency/claim.js';
import { TurnRecorder } from './record-turn.js';
import { playTurn, type TurnDeps, type TurnSpec } from './run-turn.js';
import { failedWith, withResult, type TurnResult } from './turn-result.js';
import { userTurn } from './start-session.js';
import { oneLine } from '../terminal/sanitize.js';
import type { Connection } from '../run/connection.js';
import type { Transcript } from '../events/transcript.js';
import type { Context } from '../run/context.js';
import { declareTools, offeredDefinitions, userToolsOf, type DeclaredTools } from '../tools/declared.js';
import { wantsReports, type ReportOptions } from './reports/report-options.js';
import { councilChoice, declaresTools, loadDeclaredTools, recordedTools, type TurnOptions } from './turn-options.js';
import type { Gates } from '../council/verdict.js';

/**
 * Runs the next turn of `session`, whose last turn is the user turn `userTurnId` already
 * recorded (and, for a new turn, the session claimed for it): picks the path (native when the
 * council is chosen per request), builds the request from the lineage, and streams it through
 * the renderer into the store. `fresh`: the session was created for this turn, and is removed
 * again if its request never left.
 */
export async function executeTurn(
  ctx: Context,
  conn: Connection,
  session: Session,
  userTurnId: string,
  opts: TurnOptions,
  how: { fresh?: boolean } = {},
): Promise<TurnResult> {
  const fresh = how.fresh === true;
  const out = lazyRenderer(ctx, { saved: ctx.saving, newSession: fresh }, progressOf(ctx));
  let turn = { session, userTurnId, fresh };
  for (let attempt = 0; ; attempt++) {
    const current = turn;
    const { transcript, result } = await forgettingUnsent(ctx, current, () =>
      startTurn(ctx, conn, current.session, current.userTurnId, opts, out, attempt),
    );
    const errors = transcript.schemaErrors;
    if (opts.schema === undefined || errors === null) {
      await assertStdoutWritten(ctx.io);
      return result;
    }
    if (attempt >= opts.schema.retries) throw mismatched(result, schemaMismatch(ctx, session.id, errors, attempt));
    turn = { ...(await claimCorrection(ctx, session.id, errors)), fresh: false };
  }
}

/** The run's error is the schema mismatch, and its result says so. */
const mismatched = (result: TurnResult, err: NsedError): NsedError => withResult(err, failedWith(result, err));

/** One turn's start; a failure before its request left takes the turn (or the new session) back. */
async function forgettingUnsent<T>(
  ctx: Context,
  turn: { session: Session; userTurnId: string; fresh: boolean },
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const store = await ctx.store();
    if (err instanceof NsedError && err.unsent) {
      await forgetTurn(store, turn.session, turn);
    } else {
      // A failure before the turn was recorded (a policy lookup, a tools file) must not leave the
      // session claimed; once recorded, the claim is gone already and this writes nothing.
      const claim = turn.session.claim;
      if (claim?.turn === turn.userTurnId)
        await releaseClaim(store, turn.session.id, claim.token).catch(() => undefined);
    }
    throw err;
  }
}

/**
 * The corrective turn after an answer that did not match --schema: a user turn quoting the
 * validator's errors, added and claimed in one locked write, as `continue` adds its turn.
 */
async function claimCorrection(
  ctx: Context,
  sessionId: string,
  errors: readonly SchemaError[],
): Promise<{ session: Session; userTurnId: string }> {
  const userTurnId = newTurnId(ctx.randomHex);
  const claim = newClaim(userTurnId, ctx.clock.now(), ctx.randomHex);
  const session = await (
    await ctx.store()
  ).update(sessionId, (s) => {
    assertFree(s);
    s.turns.push(userTurn(userTurnId, repairPrompt(errors), ctx.clock.now()));
    s.claim = claim;
  });
  return { session, userTurnId };
}

/**
 * Exit 14: the last answer still does not match. It is recorded (and printed by -o json with its
 * schema_errors); stderr lists what the validator said, one line each, before the error line.
 * The finish event was the run's terminal event, so no NDJSON error follows it.
 */
function schemaMismatch(ctx: Context, sessionId: string, errors: readonly SchemaError[], retries: number): NsedError {
  for (const e of errors) ctx.io.stderr.write(`schema error at ${oneLine(e.path, 200)}: ${oneLine(e.message, 300)}\n`);
  const err = new NsedError('schema_mismatch', schemaMismatchMessage(errors.length, retries), {
    hint: `the answer is recorded in session ${sessionId}; -o json prints it with its schema_errors`,
  });
  markReported(err);
  return err;
}

/**
 * A turn whose request never reached the orchestrator is forgotten: the session this command
 * created (`fresh`) is removed, or, in one locked write, the user turn it added taken back, the
 * tools it offered put back as they were and its claim on the session released, so `--last`
 * and the listing show what really happened. The error itself is what the user sees.
 */
async function forgetTurn(
  store: SessionStore,
  before: Session,
  { userTurnId, fresh }: { userTurnId: string; fresh: boolean },
): Promise<void> {
  const claim = before.claim?.turn === userTurnId ? before.claim : undefined;
  try {
    if (fresh) await store.remove(before.id);
    else
      await store.update(before.id, (s) => {
        s.turns = s.turns.filter((t) => t.id !== userTurnId);
        if (before.tools === undefined) delete s.tools;
        else s.tools = before.tools;
        if (claim !== undefined && s.claim?.token === claim.token) delete s.claim;
      });
  } catch {
    // The turn stays recorded as it was; the original error matters more than this one. The
    // claim, though, must not outlive this command: a stuck claim would refuse every later turn.
    if (claim !== undefined) await releaseClaim(store, before.id, claim.token).catch(() => undefined);
  }
}

async function startTurn(
  ctx: Context,
  conn: Connection,
  session: Session,
  userTurnId: string,
  opts: TurnOptions,
  renderer: () => Promise<Renderer>,
  attempt: number,
): Promise<{ transcript: Transcript; result: TurnResult }> {
  const model = session.active_policy;
  const { agents, rounds } = councilChoice(opts, ctx.globals.settings);
  const native = agents !== undefined || rounds !== undefined;
  // A spend cap the server cannot meter is refused before anything is sent (docs/ci.md "Spend caps").
  const asked = turnCapOf(ctx, opts);
  // What a round of this council is expected to cost: the first round's, and the fallback of a meter not to be believed.
  const roundUsd =
    asked?.maxCostUsd === undefined
      ? null
      : estimateOf(ctx, model, opts, await readEstimateSources(conn.client, ctx.signal)).cost_per_round_usd;
  const cap =
    asked === undefined
      ? undefined
      : await meterCap(
          conn.client,
          asked,
          { server: conn.url, blocking: !native && !opts.stream, roundUsd },
          ctx.signal,
        );
  const declared = await loadDeclaredTools(opts, session.tools, boundsOf(ctx));
  const offered = declared === undefined ? undefined : offeredDefinitions(declared);
  if (offered !== undefined && declaresTools(opts)) {
    await (
      await ctx.store()
    ).update(session.id, (s) => {
      s.tools = offered;
    });
  }
  let start: TurnStart;
  let checkedAgents: readonly AgentInfo[] | null | undefined;
  const schema = opts.schema;
  if (native) {
    // Names the server does not list are refused before anything is sent (docs/reliability.md #221).
    // The same listing serves the verdict at the end (docs/reliability.md #275).
    if (agents !== undefined) checkedAgents = await checkAgentNames(conn.client, agents, ctx.signal);
    const policyId = agents === undefined ? await resolvePolicyId(conn, model) : undefined;
    start = buildNativeRequest(
      session,
      { agents, rounds, policyId },
      ctx.randomHex(8),
      offered === undefined ? undefined : userToolsOf(offered),
    );
    if (schema !== undefined && start.kind === 'submit')
      start = { kind: 'submit', body: withSchemaInstruction(start.body, schema) };
  } else {
    start = buildChatRequest(session, model, {
      stream: opts.stream,
      ...(offered === undefined ? {} : { tools: offered }),
    });
    if (schema !== undefined && start.kind === 'chat')
      start = { ...start, body: withResponseFormat(start.body, schema) };
  }
  const spec: TurnSpec = {
    sessionId: session.id,
    userTurnId,
    assistantTurnId: newTurnId(ctx.randomHex),
    policy: model,
    path: native ? 'native' : 'compat',
    start,
    stream: native || opts.stream,
    ...(opts.gates === undefined ? {} : { gates: opts.gates }),
    ...(cap === undefined ? {} : { cap }),
  };
  if (agents !== undefined) spec.agents = agents;
  // No tools offered still bounds the tool rounds by --max-tool-calls (docs/reliability.md #91).
  const tools = declared ?? declareTools([], [], false, opts.maxToolCalls);
  const deps = await turnDeps(ctx, conn, spec, await renderer(), tools);
  if (checkedAgents !== undefined) deps.checkedAgents = checkedAgents;
  // Each corrective turn (--schema) rewrites the reports, so they describe the last answer.
  return withReports(ctx, spec, { saved: ctx.saving, reports: opts.reports }, progressOf(ctx), () =>
    playTurn(schema === undefined ? deps : { ...deps, answer: { schema, attempt } }, spec),
  );
}

/**
 * Renders and records one turn (also used by resume and inject, which attach to a job). `saved`
 * false (--no-save): no hint to continue a session that will not exist. `reports`: the CI
 * reports written from the recorded turn once it ends, whatever its end.
 */
export async function followTurn(
  ctx: Context,
  conn: Connection,
  spec: TurnSpec,
  tools?: DeclaredTools,
  how: { saved: boolean; reports?: ReportOptions | undefined; schema?: AnswerSchema | undefined } = { saved: true },
): Promise<TurnResult> {
  const progress = progressOf(ctx);
  const deps = await turnDeps(ctx, conn, spec, await lazyRenderer(ctx, how, progress)(), tools);
  // A followed job's answer is checked against --schema, with no corrective turn of its own.
  const schema = how.schema;
  const checked = schema === undefined ? deps : { ...deps, answer: { schema, attempt: schema.retries } };
  const { transcript, result } = await withReports(ctx, spec, how, progress, () => playTurn(checked, spec));
  if (schema !== undefined && transcript.schemaErrors !== null)
    throw mismatched(result, schemaMismatch(ctx, spec.sessionId, transcript.schemaErrors, 0));
  await assertStdoutWritten(ctx.io);
  return result;
}

const progressOf = (ctx: Context): ProgressMode =>
  progressMode(ctx.globals.settings.progress.value, ctx.env, ctx.io.stderrIsTTY);

/** Runs a turn, then writes its CI reports (--summary, --junit, --annotate, plain progress), whatever its end. */
async function withReports<T>(
  ctx: Context,
  spec: TurnSpec,
  how: { saved: boolean; reports?: ReportOptions | undefined },
  progress: ProgressMode,
  run: () => Promise<T>,
): Promise<T> {
  const after = { saved: how.saved, reports: how.reports, plain: progress === 'plain' };
  if (!wantsReports(how.reports, ctx.env) && !after.plain) return run();
  const write = async (err?: unknown): Promise<void> =>
    (await import('./reports/write-reports.js')).writeReports(ctx, spec, after, err);
  let result: T;
  try {
    result = await run();
  } catch (err) {
    await write(err);
    throw err;
  }
  await write();
  return result;
}

/**
 * The renderer of a run, made when its first turn starts and kept for the corrective turns that
 * may follow it. `saved` false (--no-save): no hint to continue a session that will not exist.
 */
function lazyRenderer(
  ctx: Context,
  how: { saved: boolean; newSession?: boolean },
  progress: ProgressMode,
): () => Promise<Renderer> {
  let made: Promise<Renderer> | undefined;
  // The continue hint is for a person at a terminal; a script reads the id from json or ndjson.
  return () =>
    (made ??= turnRenderer(ctx, {
      showSessionHint: how.saved && ctx.io.stderrIsTTY && progress === 'live',
      now: () => ctx.clock.now().getTime(),
      progress,
      newSession: how.newSession === true,
    }));
}

async function turnDeps(
  ctx: Context,
  conn: Connection,
  spec: TurnSpec,
  renderer: Renderer,
  tools?: DeclaredTools,
): Promise<TurnDeps> {
  return {
    ctx,
    client: conn.client,
    renderer,
    recorder: new TurnRecorder(await ctx.store(), spec.sessionId),
    url: conn.url,
    liveSim: conn.liveSim,
    newTurnId: () => newTurnId(ctx.randomHex),
    ...(tools === undefined ? {} : { tools }),
  };
}

/**
 * Follows a session's pending job to its end (resume, inject): the answer replaces the turn an
 * earlier, interrupted run recorded for the same job, if there is one.
 */
export async function followPending(
  ctx: Context,
  conn: Connection,
  session: Session,
  pending: PendingJob,
  start: TurnStart = { kind: 'attach', jobId: pending.job_id },
  extras: { reports?: ReportOptions | undefined; gates?: Gates | undefined; schema?: AnswerSchema | undefined } = {},
): Promise<TurnResult> {
  const existing = session.turns.find((t) => t.role === 'assistant' && t.job_id === pending.job_id);
  const spec: TurnSpec = {
    sessionId: session.id,
    userTurnId: pending.turn,
    assistantTurnId: existing?.id ?? newTurnId(ctx.randomHex),
    policy: pending.policy,
    path: start.kind === 'chat' ? 'compat' : pending.path,
    stream: start.kind !== 'chat',
    start,
    ...(extras.gates === undefined ? {} : { gates: extras.gates }),
  };
  // The job runs with the session's council; chosen with --agents, no policy labels it.
  const agents = sessionAgents(session);
  if (spec.path === 'native' && agents !== undefined) spec.agents = agents;
  // Attached to a job that may be blocked on a call: the call waits for its answer, never refused.
  return followTurn(ctx, conn, spec, recordedTools(session.tools), {
    saved: true,
    reports: extras.reports,
    schema: extras.schema,
  });
}

/** The native path needs agents or a policy id; a tag or name is looked up in GET /policies. */
async function resolvePolicyId(conn: Connection, model: string): Promise<string> {
  const ref = fromModel(model) ?? model;
  const match = matchPolicy(await conn.client.policies(), model);
  if (match === undefined)
    throw notFound(
      `unknown policy '${ref}'`,
      "list them with 'nsed policies', or choose agents with --agents A,B ('nsed agents' lists them)",
    );
  return match.policy_id;
}
