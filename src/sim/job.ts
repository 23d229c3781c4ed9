import type { ChatCompletionChunk, FinishReason, InjectAck, NsedInjected, ToolCall } from '../protocol/wire.js';
import { chunk, errorChunk, type ChunkStamp } from './chunks.js';
import type { RoundOutcome } from './council.js';
import type { PolicyMode } from './policies.js';
import type { Ending } from './profile.js';

export type JobStatus = 'running' | 'completed' | 'failed';

/** One SSE data payload as it was first serialised; every stream of the job replays these bytes. */
export interface LogEntry {
  data: string;
  /** A `content` chunk (the eof-without-done fault cuts the stream after the first one). */
  content: boolean;
  /** The job's stream ends here by closing the connection, with no `[DONE]`. */
  close?: true;
}

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
  /** Which route started it: `/resume` may serve only compat jobs (strict profile). */
  surface: 'compat' | 'native';
}

/** How the job meets the world: its failure ending, and whether it keeps a room at all. */
export interface JobShape {
  ending: Ending;
  /** A roomless answer has no session id and is unknown to `/result`, `/details`, `/resume`. */
  roomless: boolean;
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
  toolCalls: ToolCall[] | undefined;
  finishReason: FinishReason | undefined;
  readonly history: RoundOutcome[] = [];
  readonly log: LogEntry[] = [];
  /** Runs the job's next phase now instead of when its timer fires; undefined when none is due. */
  advance: (() => void) | undefined;
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
    readonly shape: JobShape = { ending: 'chunk', roomless: false },
  ) {
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
  }

  push(c: ChatCompletionChunk, content = false): void {
    if (this.status !== 'running') return;
    this.log.push({ data: JSON.stringify(c), content });
    this.notify();
  }

  /** Ends the job: `[DONE]` closes the log and every waiting request is released. */
  end(status: Exclude<JobStatus, 'running'>, finishReason: FinishReason, failure?: string): void {
    if (this.status !== 'running') return;
    this.log.push({ data: DONE, content: false });
    this.settle(status, finishReason, failure);
  }

  private settle(status: Exclude<JobStatus, 'running'>, finishReason: FinishReason, failure?: string): void {
    this.advance = undefined;
    this.status = status;
    this.finishReason = finishReason;
    this.failure = failure;
    const last = this.history[this.history.length - 1];
    this.emit('job_complete', {
      status: status === 'completed' ? 'Success' : `Failed: ${failure ?? 'unknown'}`,
      job_id: this.id,
      rounds_completed: this.history.length,
      total_rounds: this.info.totalRounds,
      best_proposal_content: this.answer ?? '',
      best_proposal_score: last?.scores.find((x) => x.agent_id === last.leader)?.score ?? 0,
      best_proposal_author: last?.leader ?? this.info.agents[0] ?? '',
    });
    this.notify();
    this.resolveFinished();
  }

  /**
   * Ends a job that failed or was cancelled, in the job's ending: only the `chunk`
   * ending tells the stream why; the others leave that to `/result`.
   */
  abort(kind: 'failed' | 'cancelled', reason: string): void {
    if (this.status !== 'running') return;
    if (this.shape.ending === 'chunk') {
      this.push(kind === 'cancelled' ? chunk(this.stamp, {}, 'cancelled') : errorChunk(this.stamp, `deliberation failed: ${reason}`));
    }
    if (this.shape.ending === 'close') {
      this.log.push({ data: '', content: false, close: true });
      this.settle('failed', kind === 'cancelled' ? 'cancelled' : 'error', reason);
      return;
    }
    this.end('failed', kind === 'cancelled' ? 'cancelled' : 'error', reason);
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
    return () => this.listeners.delete(fn);
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
    this.emit('user_injection', { message, injected_at_round: this.landingRound, sequence: this.sequence, priority: 'Normal', timestamp: new Date().toISOString() });
    return { sequence: this.sequence, injected_at_round: this.landingRound };
  }

  /** Injections due at this boundary, stamped with the round they land in. */
  takePending(round: number): NsedInjected[] {
    return this.pending.splice(0).map((p) => ({ ...p, round }));
  }

  private notify(): void {
    for (const w of [...this.watchers]) w();
  }
}
