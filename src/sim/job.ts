import type { ChatCompletionChunk, FinishReason, InjectAck, NsedInjected, ToolCall } from '../protocol/wire.js';
import type { ChunkStamp } from './chunks.js';
import type { RoundOutcome } from './council.js';
import type { PolicyMode } from './policies.js';
import { skewFigures, type MeterSkew } from './meter-skew.js';
import { Meter } from './metering.js';
import { ToolCallBook } from './tool-calls.js';

export type JobStatus = 'running' | 'completed' | 'failed';

/**
 * How a job's streams end. `chunk`: the simulator's own closing chunk (a finish chunk, an error
 * chunk, a `cancelled` finish), then `[DONE]`. `bare-done`: `[DONE]` with no closing chunk.
 * `close`: the connection just closes. The seeds do not say how a failed or cancelled job ends
 * a stream, so the other two let clients be tested against servers that do it differently.
 */
export type JobEnding = 'chunk' | 'bare-done' | 'close';
export const JOB_ENDINGS: readonly JobEnding[] = ['chunk', 'bare-done', 'close'];

/** One SSE data payload as it was first serialised; every stream of the job replays these bytes. */
export interface LogEntry {
  data: string;
  /** A `content` chunk (the eof-without-done fault cuts the stream after the first one). */
  content: boolean;
  /** The end of a log whose streams close without `[DONE]` (ending `close`); `data` is empty. */
  close?: true;
  /**
   * Entries only one kind of stream shows. A compat answer (`segment`) ends where an agent
   * blocks on a tool call, with `finish_reason: "tool_calls"` and `[DONE]`, while the job goes
   * on; a stream that follows the whole job (`continuous`: resume) skips those and shows the
   * call as a pending event instead.
   */
  view?: StreamView;
}

export type StreamView = 'segment' | 'continuous';

/** What the job was asked, kept for `/details`. */
export interface JobInfo {
  query: string;
  messages?: unknown[];
  systemInstructions?: string;
  conversationId?: string;
  agents: string[];
  totalRounds: number;
  policy: string;
  mode: PolicyMode;
  /**
   * Which API started the job: a compat job's tool call closes its answer, a native one's does
   * not; and `/resume` may serve only compat jobs (strict profile).
   */
  surface: 'compat' | 'native';
}

/** How the job meets the world beyond its ending: a profile's failure ending, and whether it keeps a room. */
export interface JobShape {
  /** The ending of a failed or cancelled job when a profile picks one; `ending` otherwise. */
  failedEnding?: JobEnding;
  /** A roomless answer has no session id and is unknown to `/result`, `/details`, `/resume`. */
  roomless?: boolean;
}

export const DONE = '[DONE]';

/** A named event of the native job stream (`GET /job/{id}/stream`): live only, never logged. */
export interface NativeEvent {
  name: string;
  data: unknown;
}

/**
 * A job and its event log. The log is append-only and ends with `[DONE]`; streams read it at
 * their own pace, so the first stream, an attached one and a resume all send the same events.
 */
export class Job {
  status: JobStatus = 'running';
  failure: string | undefined;
  answer: string | null = null;
  /** The calls that closed the latest compat segment (its `finish_reason: "tool_calls"`). */
  toolCalls: ToolCall[] | undefined;
  readonly tools = new ToolCallBook();
  /** What the job has used so far, live (`/budget`, `token_usage`); start-job sets the mode. */
  meter = new Meter('full', Date.now());
  /**
   * The meter's token totals each time a compat answer closed at a tool call, by the log index
   * the follow-up answer starts at: what one answer of a tool round trip used is the difference.
   */
  readonly meterMarks = new Map<number, { input: number; output: number }>();
  /** `budget=404`: this job's `/budget` is not served. */
  budgetMissing = false;
  /** `budget=stall`: this job's `/budget` answers only once the job has ended. */
  budgetStall = false;
  /** `meter-figures=…`: how the figures this job reports are skewed. */
  meterSkew: MeterSkew | undefined;
  finishReason: FinishReason | undefined;
  readonly history: RoundOutcome[] = [];
  readonly log: LogEntry[] = [];
  /** The ending the job's streams got, once it has ended. */
  endedWith: JobEnding | undefined;
  /** The round at which an injection made now would land (the next phase boundary). */
  landingRound = 1;
  readonly finished: Promise<void>;
  private resolveFinished: () => void = () => undefined;
  private readonly watchers = new Set<() => void>();
  private readonly listeners = new Set<(e: NativeEvent) => void>();
  private readonly pending: NsedInjected[] = [];
  private sequence = 0;

  constructor(
    readonly id: string,
    readonly stamp: ChunkStamp,
    readonly info: JobInfo,
    readonly ending: JobEnding = 'chunk',
    readonly shape: JobShape = {},
  ) {
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
  }

  push(c: ChatCompletionChunk, content = false, view?: StreamView): void {
    if (this.status !== 'running') return;
    this.log.push(
      view === undefined ? { data: JSON.stringify(c), content } : { data: JSON.stringify(c), content, view },
    );
    this.notify();
  }

  /**
   * Closes the current compat answer while the job runs on: the call chunk, then `[DONE]`, both
   * seen only by the request that is answered here (a follow-up starts after them).
   */
  closeSegment(calls: ToolCall[], callChunk: ChatCompletionChunk): void {
    if (this.status !== 'running') return;
    this.toolCalls = calls;
    this.log.push(
      { data: JSON.stringify(callChunk), content: false, view: 'segment' },
      { data: DONE, content: false, view: 'segment' },
    );
    this.meterMarks.set(this.log.length, { input: this.meter.inputTokens, output: this.meter.outputTokens });
    this.notify();
  }

  /** The log index where the answer a request at `from` receives ends (its `[DONE]` or close), if it has. */
  segmentEnd(from: number): number | undefined {
    for (let i = from; i < this.log.length; i++) {
      const e = this.log[i];
      if ((e?.data === DONE || e?.close === true) && e.view !== 'continuous') return i;
    }
    return undefined;
  }

  get roomless(): boolean {
    return this.shape.roomless === true;
  }

  /**
   * Ends the job: its closing chunk and `[DONE]` (or less, as its ending says) close the log,
   * and every waiting request is released. A completed job ends as `ending` says; a failed or
   * cancelled one as the profile's failure ending, when there is one.
   */
  end(
    status: Exclude<JobStatus, 'running'>,
    finishReason: FinishReason,
    opts: { failure?: string; last?: ChatCompletionChunk } = {},
  ): void {
    if (this.status !== 'running') return;
    const { failure, last } = opts;
    const ending = status === 'completed' ? this.ending : (this.shape.failedEnding ?? this.ending);
    if (ending === 'chunk' && last !== undefined) this.log.push({ data: JSON.stringify(last), content: false });
    this.log.push(ending === 'close' ? { data: '', content: false, close: true } : { data: DONE, content: false });
    this.endedWith = ending;
    this.status = status;
    this.finishReason = finishReason;
    this.failure = failure;
    const final = this.history[this.history.length - 1];
    this.emit('job_complete', {
      status: status === 'completed' ? 'Success' : `Failed: ${failure ?? 'unknown'}`,
      job_id: this.id,
      rounds_completed: this.history.length,
      total_rounds: this.info.totalRounds,
      best_proposal_content: this.answer ?? '',
      best_proposal_score: final?.scores.find((x) => x.agent_id === final.leader)?.score ?? 0,
      best_proposal_author: final?.leader ?? this.info.agents[0] ?? '',
      // The job's totals, in the `token_usage` shape of each evaluation (docs/protocol.md, the simulator).
      ...this.totalsField(),
    });
    this.notify();
    this.resolveFinished();
  }

  private totalsField(): { token_usage?: unknown } {
    const totals = this.meter.totals();
    return totals === undefined ? {} : { token_usage: skewFigures({ ...totals }, this.meterSkew) };
  }

  /** `/result` status text: `running`, `completed`, `failed: <reason>`. */
  statusText(): string {
    return this.status === 'failed' ? `failed: ${this.failure ?? 'unknown'}` : this.status;
  }

  /** Sends a native event to the streams attached now; one attached later never sees it. */
  emit(name: string, data: unknown): void {
    for (const l of [...this.listeners]) l({ name, data });
  }

  listen(fn: (e: NativeEvent) => void): () => void {
    this.listeners.add(fn);
    // Watchers learn of it: a test waits for a live-only stream to be attached before it lets
    // the job make an event that stream must see.
    this.notify();
    return () => this.listeners.delete(fn);
  }

  /** Named-event streams attached now. */
  get streams(): number {
    return this.listeners.size;
  }

  watch(fn: () => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /** Queues guidance for the next phase boundary; undefined when the job is not running. */
  inject(message: string): InjectAck | undefined {
    if (this.status !== 'running') return undefined;
    this.sequence += 1;
    this.pending.push({ message, round: this.landingRound, sequence: this.sequence });
    this.emit('user_injection', {
      message,
      injected_at_round: this.landingRound,
      sequence: this.sequence,
      priority: 'Normal',
      timestamp: new Date().toISOString(),
    });
    // Watchers learn of it too: a test waits for the message to be queued before releasing the job.
    this.notify();
    return { sequence: this.sequence, injected_at_round: this.landingRound };
  }

  /** How many injections the job has accepted. */
  get injected(): number {
    return this.sequence;
  }

  /** Injections due at this boundary, stamped with the round they land in. */
  takePending(round: number): NsedInjected[] {
    return this.pending.splice(0).map((p) => ({ ...p, round }));
  }

  private notify(): void {
    for (const w of [...this.watchers]) w();
  }
}
