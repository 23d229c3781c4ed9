import type { NsedClient } from '../../api/index.js';
import type { NsedEvent } from '../../events/events.js';
import type { Context } from '../../run/context.js';
import { toNsedError } from '../../errors.js';
import { oneLine } from '../../terminal/sanitize.js';
import { answerCall, overLimit, type CallAnswer, type CallToAnswer } from '../../tools/answer-call.js';
import type { DeclaredTools } from '../../tools/declared.js';
import type { TranscriptToolResult } from '../../events/transcript.js';

export interface ToolDriverDeps {
  ctx: Context;
  client: NsedClient;
  declared: DeclaredTools;
  sessionId: string;
  emit: (e: NsedEvent) => void;
  jobId: () => string | undefined;
}

/**
 * Settles the council's tool calls during one turn. A compat answer that ends with
 * `tool_calls` is settled in one go (the caller sends the follow-up); a live call on a stream
 * that runs on is settled in the background and answered through the tool-call endpoint.
 * At most `maxCalls` calls are run per turn; the rest get an error result. Live calls answered
 * in all (run or refused) are bounded too, so a stream of ever new calls cannot make nsed post
 * forever: past the bound they are left to expire (docs/reliability.md #93).
 */
/** Live calls refused past --max-tool-calls before the rest are left to expire (docs/reliability.md #93). */
export const LIVE_REFUSALS = 16;

/** Why a turn's open questions are withdrawn: one reason for every turn, its stack made once. */
const DELIBERATION_ENDED = new Error('the deliberation ended');

export class ToolDriver {
  private used = 0;
  /** Calls this process is answering or answered: the stream's word on them is an echo. */
  private readonly mine = new Set<string>();
  private readonly seen = new Set<string>();
  private leftToExpire = false;
  private readonly tasks = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;

  constructor(private readonly deps: ToolDriverDeps) {
    this.signal = AbortSignal.any([deps.ctx.signal, this.stop.signal]);
  }

  /** True when this process settled the call (a stream's later word on it is an echo). */
  owns(callId: string): boolean {
    return this.mine.has(callId);
  }

  /** Settles every call without a result; returns those that must wait for an answer from elsewhere. */
  async settleClosed(
    calls: readonly CallToAnswer[],
    results: readonly TranscriptToolResult[],
  ): Promise<CallToAnswer[]> {
    const waiting: CallToAnswer[] = [];
    for (const call of calls) {
      if (results.some((r) => r.id === call.id)) continue;
      const a = await this.answer(call);
      if (a.kind === 'pending') waiting.push(call);
      else this.deps.emit(a.event);
    }
    return waiting;
  }

  /** A call the agent waits on while the job runs: answered through the endpoint, in the background. */
  onLive(call: CallToAnswer): void {
    if (this.seen.has(call.id)) return;
    if (this.seen.size >= this.deps.declared.maxCalls + LIVE_REFUSALS) {
      if (!this.leftToExpire)
        this.say(`the council asked for more tool calls than nsed answers in one turn; the rest are left to expire`);
      this.leftToExpire = true;
      return;
    }
    this.seen.add(call.id);
    const task = this.answerLive(call).finally(() => this.tasks.delete(task));
    this.tasks.add(task);
  }

  /** The turn is over: questions still on the terminal are withdrawn, background answers awaited. */
  async close(): Promise<void> {
    this.stop.abort(DELIBERATION_ENDED);
    await Promise.allSettled([...this.tasks]);
  }

  private async answerLive(call: CallToAnswer): Promise<void> {
    const { client, sessionId } = this.deps;
    // A replayed stream (resume) shows calls that were answered long ago; running a tool again
    // for one of those would repeat its effects, so the job is asked first.
    if (!(await this.stillPending(call.id))) return;
    let a: CallAnswer;
    try {
      a = await this.answer(call);
    } catch {
      return; // withdrawn: the turn ended or was interrupted while a person was being asked
    }
    if (a.kind === 'pending') {
      this.say(
        `waiting for the result of ${oneLine(call.id, 80)} (${a.why}): nsed tool-result -s ${sessionId} ${oneLine(call.id, 80)} VALUE`,
      );
      return;
    }
    const jobId = this.deps.jobId();
    if (jobId === undefined) return;
    this.mine.add(call.id);
    try {
      await client.answerToolCall(jobId, call.id, a.event.content, { signal: this.signal });
      this.deps.emit(a.event);
    } catch (err) {
      if (this.signal.aborted) return;
      const e = toNsedError(err);
      this.say(`could not send the result of ${oneLine(call.id, 80)}: ${e.message}`);
      // Settled meanwhile (expired, or answered elsewhere): the stream's word on it may have been
      // taken for our echo, so the job's record says how it ended.
      if (e.code === 'conflict') await this.settledElsewhere(jobId, call);
      this.mine.delete(call.id);
    }
  }

  private async settledElsewhere(jobId: string, call: CallToAnswer): Promise<void> {
    const record = (await this.deps.client.toolCalls(jobId, { signal: this.signal }).catch(() => [])).find(
      (c) => c.call_id === call.id,
    );
    if (record === undefined || record.status === 'Pending') return;
    const answered = record.status === 'Responded';
    this.deps.emit({
      type: 'tool-result',
      id: call.id,
      name: call.name,
      content: answered ? (record.result ?? '') : '',
      exit_code: null,
      status: answered ? 'answered' : 'expired',
      duration_ms: null,
    });
  }

  private async stillPending(callId: string): Promise<boolean> {
    const jobId = this.deps.jobId();
    if (jobId === undefined) return true;
    try {
      const pending = await this.deps.client.toolCalls(jobId, { status: 'pending', signal: this.signal });
      return pending.some((c) => c.call_id === callId);
    } catch {
      // An orchestrator without the listing: answering is the only way to find out.
      return !this.signal.aborted;
    }
  }

  private answer(call: CallToAnswer): Promise<CallAnswer> {
    const { declared, ctx } = this.deps;
    if (this.used >= declared.maxCalls) return Promise.resolve(overLimit(call, declared.maxCalls));
    this.used += 1;
    return answerCall(call, declared, {
      io: ctx.io,
      env: ctx.env,
      signal: this.signal,
      now: () => ctx.clock.now().getTime(),
    });
  }

  private say(line: string): void {
    if (!this.deps.ctx.io.quiet) this.deps.ctx.io.stderr.write(`${line}\n`);
  }
}
