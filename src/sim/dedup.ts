import { createHash } from 'node:crypto';
import type { Job } from './job.js';
import { canonicalJson } from '../protocol/canonical-json.js';

/** What enters the dedup key: everything that shapes the answer, and the thread it is asked on. */
export interface DedupKeyParts {
  surface: string;
  model: unknown;
  messages: unknown;
  tools: unknown;
  thread: string | undefined;
  /** The answer format asked for, when one was (left out of the key otherwise). */
  format?: unknown;
  /** The request's `tool_choice`, when it forced or forbade a call (left out of the key otherwise). */
  toolChoice?: unknown;
}

export function dedupKey(parts: DedupKeyParts): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/**
 * The content-hash cache the seeds describe: an identical request arriving while its job runs,
 * or within `ttlMs` after it ended, is answered from that job instead of a new deliberation.
 * The seeds do not say which fields enter the hash or how long a hit lives; see README.
 */
export class DedupCache {
  private readonly entries = new Map<string, { job: Job; from: number; endedAt?: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The job answering `key`, if it is live or ended less than the TTL ago. */
  hit(key: string): Job | undefined {
    return this.hitAt(key)?.job;
  }

  /** The job answering `key` and the log index its answer starts at (past a tool call it answered). */
  hitAt(key: string): { job: Job; from: number } | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.endedAt !== undefined && this.now() - entry.endedAt >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return { job: entry.job, from: entry.from };
  }

  /**
   * Makes `job`, read from log index `from`, the answer to `key`; a failed job is forgotten as
   * soon as it ends. A request that fed a tool result is answered from past the call, so its
   * repeat must be too.
   */
  claim(key: string, job: Job, from = 0): void {
    const entry: { job: Job; from: number; endedAt?: number } = { job, from };
    this.entries.set(key, entry);
    void job.finished.then(() => {
      if (job.status === 'failed') {
        if (this.entries.get(key) === entry) this.entries.delete(key);
        return;
      }
      entry.endedAt = this.now();
    });
  }
}
