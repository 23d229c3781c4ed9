import type { StartGate } from '../api/index.js';
import type { Clock } from '../run/context.js';
import { NsedError } from '../errors.js';

/**
 * The most a batch waits, in all, for an orchestrator that keeps answering 429/503 with a
 * Retry-After (docs/reliability.md "Batches"). Past it no item starts again: each remaining item ends as
 * `error` without a request, so a server that never stops refusing ends the batch within this
 * bound plus one round of the running items, whatever it answers.
 */
export const BATCH_BACKOFF_CAP_MS = 15 * 60_000;

/** What the progress display reads: the back-off in force now, if any. */
export interface BackoffView {
  /** Milliseconds until starts may go again; 0 when they may now. */
  leftMs(): number;
}

/**
 * One back-off for every item of a batch (docs/reliability.md #150): when the orchestrator turns
 * a start away with a Retry-After, no item starts a deliberation until that wait has passed,
 * instead of each item hammering it on its own. The waits go through the Context's clock.
 */
export class SharedBackoff implements StartGate, BackoffView {
  private until = 0;
  private heldMs = 0;

  constructor(
    private readonly clock: Clock,
    private readonly capMs = BATCH_BACKOFF_CAP_MS,
  ) {}

  hold(ms: number): void {
    const now = this.clock.now().getTime();
    const end = now + Math.max(0, ms);
    if (end <= this.until) return;
    // Only the time this wait adds beyond the one already in force counts toward the cap.
    this.heldMs += end - Math.max(this.until, now);
    this.until = end;
  }

  leftMs(): number {
    return Math.max(0, this.until - this.clock.now().getTime());
  }

  async pass(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (this.heldMs > this.capMs) throw this.capError();
      const until = this.until;
      const left = until - this.clock.now().getTime();
      if (left <= 0) return;
      await this.clock.sleep(left, signal);
      // Waited out, unless another refusal pushed the gate further meanwhile.
      if (this.until === until) return;
    }
  }

  private capError(): NsedError {
    return new NsedError(
      'server',
      `not sent: the orchestrator kept the batch waiting (Retry-After) for more than ${Math.round(this.capMs / 60_000)} min in all`,
      { hint: 'run the rest later with nsed batch --resume --retry-errors', nothingStarted: true },
    );
  }
}
