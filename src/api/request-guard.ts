import { NsedError, stopError } from '../errors.js';

/**
 * Why a request was aborted from our side. The abort itself surfaces from undici as a generic
 * AbortError; the recorded reason is what lets the error name the limit that fired (docs/reliability.md #52).
 */
export type AbortReason = 'deadline' | 'idle' | 'caller' | 'closed';

// setTimeout overflows (and fires at once) beyond 2^31-1 ms; longer waits are re-armed.
const MAX_TIMER_MS = 2_147_483_647;

/** One request's abort controller, the turn deadline and the caller's signal, in one place. */
export class RequestGuard {
  readonly controller = new AbortController();
  private why: AbortReason | undefined;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onCallerAbort = (): void => this.abort('caller');

  constructor(
    private readonly opts: { deadline?: number | undefined; now: () => number; signal?: AbortSignal | undefined },
  ) {
    if (opts.signal?.aborted === true) this.abort('caller');
    else opts.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
    if (opts.deadline !== undefined && this.why === undefined) this.armDeadline();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get reason(): AbortReason | undefined {
    return this.why;
  }

  abort(reason: AbortReason): void {
    if (this.why !== undefined) return;
    this.why = reason;
    this.controller.abort();
  }

  private armDeadline(): void {
    const deadline = this.opts.deadline;
    if (deadline === undefined) return;
    const left = deadline - this.opts.now();
    if (left <= 0) {
      this.abort('deadline');
      return;
    }
    // Unref'd: an open socket keeps the process alive while it matters; a timer alone must not.
    this.deadlineTimer = setTimeout(() => this.armDeadline(), Math.min(left, MAX_TIMER_MS)).unref();
  }

  /** The error for an abort we caused, or undefined when the failure was not ours. */
  abortError(idleTimeoutMs: number): NsedError | undefined {
    switch (this.why) {
      case undefined:
      case 'closed':
        return undefined;
      case 'deadline':
        return new NsedError('timeout', 'the turn did not finish within --timeout', {
          hint: 'the deliberation may still be running on the orchestrator; `nsed resume` follows it',
        });
      case 'idle':
        return new NsedError(
          'timeout',
          `no data from the orchestrator for ${seconds(idleTimeoutMs)} s (--idle-timeout)`,
          { drop: 'idle' },
        );
      case 'caller':
        return stopError(this.opts.signal?.reason);
    }
  }

  dispose(): void {
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    this.opts.signal?.removeEventListener('abort', this.onCallerAbort);
  }
}

export function seconds(ms: number): number {
  return +(ms / 1000).toFixed(3);
}

/**
 * The longest silence on a stream body, measured only while we wait for bytes: time the
 * consumer spends with an event (a slow terminal, a blocked pipe) is not the server's
 * silence. One timer re-arms for the remainder instead of being reset per read.
 */
export class IdleWatch {
  private mark = 0;
  private waiting = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly ms: number,
    private readonly now: () => number,
    private readonly onIdle: () => void,
  ) {}

  /** About to wait for the next read. */
  wait(): void {
    this.mark = this.now();
    this.waiting = true;
    if (this.timer === undefined && this.ms > 0) this.arm(this.ms);
  }

  /** Bytes arrived; the consumer has them now. */
  hold(): void {
    this.waiting = false;
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = false;
  }

  private arm(delay: number): void {
    this.timer = setTimeout(() => this.check(), Math.min(Math.max(delay, 1), MAX_TIMER_MS)).unref();
  }

  private check(): void {
    this.timer = undefined;
    if (!this.waiting) return;
    const silent = this.now() - this.mark;
    if (silent >= this.ms) this.onIdle();
    else this.arm(this.ms - silent);
  }
}
