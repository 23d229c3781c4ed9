import type { NsedError } from '../errors.js';

/** Bounded automatic resume (docs/protocol.md §3.12, docs/reliability.md #31, #39, #45). */
export const MAX_RESUME_ATTEMPTS = 5;
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
