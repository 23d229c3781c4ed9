import { NsedError, notFound } from '../errors.js';
import { createRenderer } from '../output/renderer.js';
import { assertStdoutWritten } from '../output/session-write.js';
import { fromModel } from '../protocol/policy-ref.js';
import { newTurnId } from '../session/ids.js';
import { sessionAgents, type PendingJob, type Session } from '../session/model.js';
import type { SessionStore } from '../session/store.js';
import { buildChatRequest, buildNativeRequest, type TurnStart } from './build-request.js';
import { releaseClaim } from './claim.js';
import { TurnRecorder } from './record-turn.js';
import { runTurn, type TurnSpec } from './run-turn.js';
import type { Connection } from '../connection.js';
import type { Context } from '../context.js';
import { offeredDefinitions, userToolsOf, type DeclaredTools } from '../tools/declared.js';
import { declaresTools, loadDeclaredTools, recordedTools, type TurnOptions } from './turn-options.js';

/**
 * Runs the next turn of `session`, whose last turn is the user turn `userTurnId` already
 * recorded (and, for a new turn, the session claimed for it): picks the path (native when the
 * council is chosen per request), builds the request from the lineage, and streams it through
 * the renderer into the store.
 */
export async function executeTurn(
  ctx: Context,
  conn: Connection,
  session: Session,
  userTurnId: string,
  opts: TurnOptions,
  fresh = false,
): Promise<number> {
  try {
    return await startTurn(ctx, conn, session, userTurnId, opts);
  } catch (err) {
    const store = await ctx.store();
    if (err instanceof NsedError && err.unsent) {
      await forgetTurn(store, session, userTurnId, fresh);
    } else {
      // A failure before the turn was recorded (a policy lookup, a tools file) must not leave the
      // session claimed; once recorded, the claim is gone already and this writes nothing.
      const claim = session.claim;
      if (claim?.turn === userTurnId) await releaseClaim(store, session.id, claim.token).catch(() => undefined);
    }
    throw err;
  }
}

/**
 * A turn whose request never reached the orchestrator is forgotten: the session this command
 * created (`fresh`) is removed, or, in one locked write, the user turn it added taken back, the
 * tools it offered put back as they were and its claim on the session released, so `--last`
 * and the listing show what really happened. The error itself is what the user sees.
 */
async function forgetTurn(store: SessionStore, before: Session, userTurnId: string, fresh: boolean): Promise<void> {
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
): Promise<number> {
  const model = session.active_policy;
  const { agents, rounds } = councilChoice(ctx, opts);
  const native = agents !== undefined || rounds !== undefined;
  const declared = await loadDeclaredTools(opts, session.tools);
  const offered = declared === undefined ? undefined : offeredDefinitions(declared);
  if (offered !== undefined && declaresTools(opts)) {
    await (
      await ctx.store()
    ).update(session.id, (s) => {
      s.tools = offered;
    });
  }
  let start: TurnStart;
  if (native) {
    const policyId = agents === undefined ? await resolvePolicyId(conn, model) : undefined;
    start = buildNativeRequest(
      session,
      { agents, rounds, policyId },
      ctx.randomHex(8),
      offered === undefined ? undefined : userToolsOf(offered),
    );
  } else {
    start = buildChatRequest(session, model, {
      stream: opts.stream,
      ...(offered === undefined ? {} : { tools: offered }),
    });
  }
  const spec: TurnSpec = {
    sessionId: session.id,
    userTurnId,
    assistantTurnId: newTurnId(ctx.randomHex),
    policy: model,
    path: native ? 'native' : 'compat',
    start,
    stream: native || opts.stream,
  };
  if (agents !== undefined) spec.agents = agents;
  return followTurn(ctx, conn, spec, declared, { saved: opts.save !== false });
}

/**
 * Renders and records one turn (also used by resume and inject, which attach to a job). `saved`
 * false (--no-save): no hint to continue a session that will not exist.
 */
export async function followTurn(
  ctx: Context,
  conn: Connection,
  spec: TurnSpec,
  tools?: DeclaredTools,
  how: { saved: boolean } = { saved: true },
): Promise<number> {
  // The continue hint is for a person at a terminal; a script reads the id from json or ndjson.
  const renderer = await createRenderer(ctx.globals.output, ctx.io, {
    showSessionHint: how.saved && ctx.io.stderrIsTTY,
    now: () => ctx.clock.now().getTime(),
  });
  const recorder = new TurnRecorder(await ctx.store(), spec.sessionId);
  const newId = (): string => newTurnId(ctx.randomHex);
  const deps = {
    ctx,
    client: conn.client,
    renderer,
    recorder,
    url: conn.url,
    liveSim: conn.liveSim,
    newTurnId: newId,
    ...(tools === undefined ? {} : { tools }),
  };
  await runTurn(deps, spec);
  await assertStdoutWritten(ctx.io);
  return 0;
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
): Promise<number> {
  const existing = session.turns.find((t) => t.role === 'assistant' && t.job_id === pending.job_id);
  const spec: TurnSpec = {
    sessionId: session.id,
    userTurnId: pending.turn,
    assistantTurnId: existing?.id ?? newTurnId(ctx.randomHex),
    policy: pending.policy,
    path: start.kind === 'chat' ? 'compat' : pending.path,
    stream: start.kind !== 'chat',
    start,
  };
  // The job runs with the session's council; chosen with --agents, no policy labels it.
  const agents = sessionAgents(session);
  if (spec.path === 'native' && agents !== undefined) spec.agents = agents;
  // Attached to a job that may be blocked on a call: the call waits for its answer, never refused.
  return followTurn(ctx, conn, spec, recordedTools(session.tools));
}

/**
 * --agents and --rounds, else the config file's. A policy named for this run (-p, NSED_POLICY)
 * chooses its own council, so the file's agents give way to it. A model named with -m may be a
 * plain OpenAI-compatible server, which has no council at all: the file's council and rounds
 * would send it to a deliberation endpoint it does not have.
 */
function councilChoice(ctx: Context, opts: TurnOptions): { agents: string[] | undefined; rounds: number | undefined } {
  const file = ctx.globals.config.values;
  if (opts.model !== undefined) return { agents: opts.agents, rounds: opts.rounds };
  const policyNamed = opts.policy !== undefined || (ctx.env['NSED_POLICY'] ?? '').trim() !== '';
  return { agents: opts.agents ?? (policyNamed ? undefined : file.agents), rounds: opts.rounds ?? file.rounds };
}

/** The native path needs agents or a policy id; a tag or name is looked up in GET /policies. */
async function resolvePolicyId(conn: Connection, model: string): Promise<string> {
  const ref = fromModel(model) ?? model;
  const policies = await conn.client.policies();
  const match =
    ref === '*'
      ? policies[0]
      : policies.find((p) => p.policy_id === ref || p.name === ref || p.name === model || p.tags.includes(ref));
  if (match === undefined)
    throw notFound(
      `unknown policy '${ref}'`,
      "list them with 'nsed policies', or choose agents with --agents A,B ('nsed agents' lists them)",
    );
  return match.policy_id;
}
