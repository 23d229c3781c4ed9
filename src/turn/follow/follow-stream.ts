import { type EventStream, DOCUMENTED_FINISH, eofError } from '../../api/index.js';
import type { StreamEvent } from '../../events/events.js';
import { NsedError, toNsedError } from '../../errors.js';
import type { TurnStart } from '../build-request.js';
import { followNative } from './follow-native.js';
import { ResumeBudget, dropReason, isRetryableResumeError, reconnectDelayMs } from './reconnect.js';
import { settlementOf, type Settlement } from './job-result.js';
import type { FollowDeps, TurnSpec } from '../turn-spec.js';

/** How a followed stream ended: by a documented finish, or as the orchestrator's /result says. */
export type StreamOutcome =
  { kind: 'ended' } | { kind: 'settled'; settlement: Exclude<Settlement, { kind: 'running' }> };

/**
 * Reads the job's stream to its end. A drop is resumed from the job's start; the replay's first
 * `applied` events were already shown and are skipped, and the retry budget resets whenever a
 * connection made progress. The start request itself is never re-sent
 * (docs/reliability.md #33, #31, #40). A stream that ends without `stop` or `tool_calls` (a bare
 * `[DONE]`, another finish reason, a close) is settled by asking the orchestrator's /result.
 */
export async function followStream(
  deps: FollowDeps,
  spec: Pick<TurnSpec, 'path' | 'start'>,
  apply: (e: StreamEvent) => void,
  currentJob: () => string | undefined,
  noteJob: (id: string) => Promise<void>,
  onDiverged: () => void = () => undefined,
): Promise<StreamOutcome> {
  const { ctx } = deps;
  let stream = await openJob(deps, spec, apply, noteJob);
  if (stream === undefined) return { kind: 'ended' };
  if (stream.jobId !== undefined) await noteJob(stream.jobId);
  let applied = 0;
  let appliedPrint = FNV_OFFSET;
  let attempt = 0;
  const budget = new ResumeBudget();
  let appliedAtLastDrop = -1;
  for (;;) {
    let seen = 0;
    let replayPrint = FNV_OFFSET;
    try {
      for await (const batch of stream.batches()) {
        for (const e of batch) {
          seen += 1;
          if (seen <= applied) {
            replayPrint = fingerprint(replayPrint, e);
            // What was shown cannot be unshown: say the replay differs, never splice (docs/reliability.md #33).
            if (seen === applied && replayPrint !== appliedPrint) {
              onDiverged();
              deps.renderer.onEvent({
                type: 'reconnect',
                attempt,
                reason: 'the replay differs from what was already shown; continuing from it',
              });
            }
            continue;
          }
          const job = currentJob();
          // Without a job id there is nothing to ask (nor to resume): the stream's word stands.
          if (e.type === 'end' && job !== undefined && !DOCUMENTED_FINISH.includes(e.finish_reason ?? '')) {
            // Not counted as applied: a replay brings the same end back, to be settled again.
            const settled = await settle(deps, job);
            if (settled !== undefined) return settled;
            const running = new NsedError('network', unsettledReason(e.finish_reason), { drop: 'eof' });
            askedAlready.add(running);
            throw running;
          }
          applied += 1;
          appliedPrint = fingerprint(appliedPrint, e);
          apply(e);
          if (e.type === 'end') return { kind: 'ended' };
        }
      }
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw eofError();
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toNsedError(err);
      const job = currentJob();
      if (e.drop === undefined) throw e;
      if (job === undefined) {
        // No session id: the orchestrator keeps no room for this answer (passthrough and
        // moderator may have none), so there is nothing to ask, nothing to resume and nothing to retry.
        throw new NsedError(
          'network',
          `${e.message}; the orchestrator named no session for this answer, so it cannot be resumed`,
          {
            drop: e.drop,
            hint: 'ask again; passthrough and moderator answers keep no room on the orchestrator',
            cause: e,
          },
        );
      }
      if (e.drop === 'eof' && !askedAlready.has(e)) {
        // A close without [DONE] may be how this server ends any job: ask before resuming.
        const settled = await settle(deps, job);
        if (settled !== undefined) return settled;
      }
      // The retry budget resets whenever the last connection made progress (docs/reliability.md #31).
      if (applied > appliedAtLastDrop) budget.progressed();
      appliedAtLastDrop = applied;
      stream = await reconnect(deps, job, e, budget, (n) => (attempt = n));
    }
  }
}

/**
 * The job's stream: a native job's `/resume` replay where the orchestrator offers it (else the
 * job is followed the reference client's way, to its end: undefined), or the start's own stream.
 */
async function openJob(
  deps: FollowDeps,
  spec: Pick<TurnSpec, 'path' | 'start'>,
  apply: (e: StreamEvent) => void,
  noteJob: (id: string) => Promise<void>,
): Promise<EventStream | undefined> {
  const { ctx } = deps;
  if (spec.path !== 'native' || (spec.start.kind !== 'submit' && spec.start.kind !== 'attach'))
    return open(deps, spec.start, noteJob);
  const jobId =
    spec.start.kind === 'attach'
      ? spec.start.jobId
      : (await deps.client.submit(spec.start.body, { signal: ctx.signal })).job_id;
  await noteJob(jobId);
  try {
    // Where the orchestrator offers /resume for this job, its replay shows every round. The
    // first resume is retried as every later one is: a connection reset before its headers (a
    // stale pooled socket) costs a retry, not the turn (docs/reliability.md #53).
    return await reconnect(deps, jobId, undefined, new ResumeBudget(), () => undefined);
  } catch (err) {
    if (ctx.signal.aborted || toNsedError(err).code !== 'not_found') throw err;
    // Where it does not, the job is followed the reference client's way.
    await followNative(deps, jobId, apply);
    return undefined;
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;

/** Drops whose job /result has just called running: resumed without asking twice. */
const askedAlready = new WeakSet<NsedError>();

function unsettledReason(finish: string | null): string {
  return `the stream ended with ${finish === null ? '[DONE] and no finish_reason' : `finish_reason '${finish}'`} while the orchestrator still reports the deliberation running`;
}

/**
 * Asks /result how the job ended. Undefined when it is still running or the orchestrator could
 * not say (a 5xx, a network error): then the job is resumed, as after any drop. A 404 is
 * definite: the job is gone, and the turn stays interrupted.
 */
export async function settle(deps: FollowDeps, jobId: string): Promise<StreamOutcome | undefined> {
  let settlement: Settlement;
  try {
    settlement = settlementOf(await deps.client.result(jobId, { signal: deps.ctx.signal }));
  } catch (err) {
    if (deps.ctx.signal.aborted) throw err;
    const e = toNsedError(err);
    if (e.code === 'not_found') throw gone(jobId);
    return undefined;
  }
  return settlement.kind === 'running' ? undefined : { kind: 'settled', settlement };
}

/**
 * Resuming stopped without a definite answer (5xx, 429, network errors): the job may still be
 * producing it, so the turn stays interrupted with its marker, for a later `nsed resume` (docs/reliability.md #46).
 */
function gaveUp(jobId: string, last: NsedError, spent: string): NsedError {
  if (last.drop !== undefined || last.code === 'network') return last;
  return new NsedError('network', `gave up resuming deliberation ${jobId} ${spent}: ${last.message}`, {
    cause: last,
    drop: 'reset',
    ...(last.status === undefined ? {} : { status: last.status }),
  });
}

function gone(jobId: string): NsedError {
  return new NsedError('not_found', `deliberation ${jobId} is no longer known to the orchestrator`, {
    hint: 'its history expired; the partial answer is saved as interrupted',
  });
}

async function open(deps: FollowDeps, start: TurnStart, noteJob: (id: string) => Promise<void>): Promise<EventStream> {
  const { client, ctx } = deps;
  // A start turned away as busy is sent again; the user sees why the answer is late.
  const onRetry = (attempt: number, reason: string): void =>
    deps.renderer.onEvent({ type: 'reconnect', attempt, reason });
  switch (start.kind) {
    case 'chat':
      return client.chatStream(start.body, { threadKey: start.threadKey, signal: ctx.signal, onRetry });
    case 'submit': {
      const { job_id } = await client.submit(start.body, { signal: ctx.signal, onRetry });
      await noteJob(job_id);
      return client.resume(job_id, { signal: ctx.signal });
    }
    case 'attach':
      await noteJob(start.jobId);
      return client.resume(start.jobId, { signal: ctx.signal });
    case 'result':
      throw new Error('a finished job has no stream to follow');
  }
}

/**
 * Resumes the job within the budget: after `cause` (a drop), or, without one, first at once.
 * A 404 is `gone`; what is worth another try is tried again after a pause.
 */
async function reconnect(
  deps: FollowDeps,
  jobId: string,
  cause: NsedError | undefined,
  budget: ResumeBudget,
  onAttempt: (attempt: number) => void,
): Promise<EventStream> {
  const { ctx, client, renderer } = deps;
  let last = cause;
  for (;;) {
    if (last !== undefined) {
      const next = budget.next();
      if ('spent' in next) throw gaveUp(jobId, last, next.spent);
      const { attempt } = next;
      onAttempt(attempt);
      renderer.onEvent({ type: 'reconnect', attempt, reason: dropReason(last) });
      await ctx.clock.sleep(reconnectDelayMs(attempt, last, Math.random), ctx.signal);
    }
    try {
      return await client.resume(jobId, { signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toNsedError(err);
      if (e.code === 'not_found') throw gone(jobId);
      if (!isRetryableResumeError(e)) throw e;
      last = e;
    }
  }
}

/**
 * A running FNV-1a hash of what was applied: each event's type and content, so a replay that
 * carries other text of the same length is caught, not spliced onto what was shown (docs/reliability.md #33, C5).
 */
function fingerprint(h: number, e: StreamEvent): number {
  const x = fnv(h, e.type);
  switch (e.type) {
    case 'text':
    case 'reasoning':
      return fnv(x, e.text);
    case 'job':
      return fnv(x, e.job_id);
    case 'round':
      return fnv(
        x,
        `${e.round}/${e.total_rounds} ${e.scored ? 's' : 'u'} ${e.candidates.map((c) => `${c.agent_id}:${c.score}:${c.content_preview}`).join('|')}`,
      );
    case 'injection':
      return fnv(x, `${e.sequence} ${e.round} ${e.message}`);
    case 'finalized':
      return fnv(x, `${e.chosen_agent_id} ${e.round}`);
    case 'tool-call':
      return fnv(x, `${e.id} ${e.name} ${e.arguments}`);
    case 'tool-result':
      return fnv(x, `${e.id} ${e.status} ${e.content}`);
    case 'end':
      return fnv(x, e.finish_reason ?? '');
  }
  return x;
}

/** FNV-1a over `s` and a separator, from `h`: a plain function, no closure per event. */
function fnv(h: number, s: string): number {
  let x = h;
  for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), 16777619);
  return Math.imul(x ^ 0x1f, 16777619) | 0;
}
