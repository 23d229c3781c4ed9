import type { NsedClient } from '../api/client.js';
import type { NsedEvent } from '../api/events.js';
import type { Context } from '../commands/context.js';
import { toNsedError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import { answerCall, overLimit, type CallAnswer, type CallToAnswer } from '../tools/answer-call.js';
import type { DeclaredTools } from '../tools/declared.js';
import type { TranscriptToolResult } from './transcript.js';

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
 * At most `maxCalls` calls are run per turn; the rest get an error result.
 */
export class ToolDriver {
  private used = 0;
  private readonly mine = new Set<string>();
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
  async settleClosed(calls: readonly CallToAnswer[], results: readonly TranscriptToolResult[]): Promise<CallToAnswer[]> {
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
    if (this.mine.has(call.id)) return;
    this.mine.add(call.id);
    const task = this.answerLive(call).finally(() => this.tasks.delete(task));
    this.tasks.add(task);
  }

  /** The turn is over: questions still on the terminal are withdrawn, background answers awaited. */
  async close(): Promise<void> {
    this.stop.abort(new Error('the deliberation ended'));
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
      this.mine.delete(call.id);
      this.say(`waiting for the result of ${oneLine(call.id, 80)} (${a.why}): nsed tool-result -s ${sessionId} ${oneLine(call.id, 80)} VALUE`);
      return;
    }
    const jobId = this.deps.jobId();
    if (jobId === undefined) return;
    try {
      await client.answerToolCall(jobId, call.id, a.event.content, { signal: this.signal });
      this.deps.emit(a.event);
    } catch (err) {
      if (this.signal.aborted) return;
      this.mine.delete(call.id);
      this.say(`could not send the result of ${oneLine(call.id, 80)}: ${toNsedError(err).message}`);
    }
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
    return answerCall(call, declared, { io: ctx.io, env: ctx.env, signal: this.signal, now: () => ctx.clock.now().getTime() });
  }

  private say(line: string): void {
    if (!this.deps.ctx.io.quiet) this.deps.ctx.io.stderr.write(`${line}\n`);
  }
}
