import type { NsedError } from '../../errors.js';

/** Bounded automatic resume (docs/protocol.md §3.12, docs/reliability.md #31, #39, #45). */
export const MAX_RESUME_ATTEMPTS = 5;
/**
 * Resumes of one turn in all, progress or not: a server that drops every connection after one
 * more event would otherwise be resumed forever (docs/reliability.md #92). At a proxy's cut every
 * minute (docs/reliability.md #31) this is over three hours of deliberation.
 */
export const MAX_RESUMES_PER_TURN = 200;
const BASE_DELAY_MS = 100;
const MAX_DELAY_MS = 5_000;
const MAX_RETRY_AFTER_S = 60;

/**
 * Delay before resume attempt `attempt` (1-based): exponential with up to 25 % jitter, or what
 * the server asked for with Retry-After, capped so a CI job never sleeps for hours.
 */
export function reconnectDelayMs(attempt: number, err: NsedError | undefined, random: () => number): number {
  if (err?.retryAfterS !== undefined && err.retryAfterS >= 0) {
    return Math.min(err.retryAfterS, MAX_RETRY_AFTER_S) * 1000;
  }
  const exp = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  return Math.round(exp * (1 - 0.25 * random()));
}

/** Errors on the resume request itself that are worth another try. */
export function isRetryableResumeError(err: NsedError): boolean {
  return (
    err.drop !== undefined ||
    err.code === 'network' ||
    (err.code === 'server' && err.status !== undefined && (err.status === 429 || err.status >= 500))
  );
}

export function dropReason(err: NsedError): string {
  switch (err.drop) {
    case 'eof':
      return 'stream ended without [DONE]';
    case 'reset':
      return 'connection reset';
    case 'idle':
      return 'no data within the idle timeout';
    case 'malformed':
      return 'malformed chunk';
    default:
      return err.message;
  }
}

/** The two bounds on resuming one turn: attempts in a row without progress, and resumes in all. */
export class ResumeBudget {
  private inARow = 0;
  private total = 0;

  /** The last connection applied new events: the attempts in a row start over (docs/reliability.md #31). */
  progressed(): void {
    this.inARow = 0;
  }

  /** The number of the attempt about to be made, or why none may be. */
  next(): { attempt: number } | { spent: string } {
    if (this.inARow >= MAX_RESUME_ATTEMPTS) return { spent: `after ${MAX_RESUME_ATTEMPTS} attempts` };
    if (this.total >= MAX_RESUMES_PER_TURN) return { spent: `after ${MAX_RESUMES_PER_TURN} resumes in one turn` };
    this.inARow += 1;
    this.total += 1;
    return { attempt: this.inARow };
  }
}
