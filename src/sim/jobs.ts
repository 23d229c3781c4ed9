import { randomBytes } from 'node:crypto';
import type { Job } from './job.js';

/**
 * Every job the simulator knows, by id, plus the compat thread table (`oc-<header>` → the
 * latest job minted under it). Finished jobs stay replayable for the history TTL, then vanish.
 * Expiry is judged against an injected clock when a job is looked up (and swept when a job is
 * added), so a test can move the clock past the TTL instead of waiting it out. The sweep walks
 * finished jobs in the order they finished and stops at the first one still kept, so adding a
 * job costs the same with ten thousand in the history as with none (a sweep of the whole history
 * grew with the square of a batch's items: 5 % of the simulator's time at 1,000).
 */
export class JobRegistry {
  private readonly jobs = new Map<string, Job>();
  private readonly threads = new Map<string, string>();
  private readonly lastMint = new Map<string, { ms: number; n: number }>();
  /** When each finished job finished, by the injected clock. */
  private readonly finishedAt = new WeakMap<Job, number>();
  /** Finished jobs in the order they finished, from `head` on: the order they expire in. */
  private readonly ended: Job[] = [];
  private head = 0;

  constructor(
    private readonly nowMs: () => number,
    private readonly historyTtlMs: number,
  ) {}

  get(id: string): Job | undefined {
    const job = this.jobs.get(id);
    if (job === undefined || !this.expired(job)) return job;
    this.jobs.delete(id);
    return undefined;
  }

  list(): Job[] {
    this.sweep();
    // Filtered as well: a clock a test moved back leaves the finish order out of step with expiry.
    return [...this.jobs.values()].filter((job) => !this.expired(job));
  }

  /** Registers a job (replacing a finished one in the same room); it expires a TTL after it ends. */
  add(job: Job): void {
    this.sweep();
    this.jobs.set(job.id, job);
    void job.finished.then(() => {
      this.finishedAt.set(job, this.nowMs());
      this.ended.push(job);
    });
  }

  private expired(job: Job): boolean {
    const at = this.finishedAt.get(job);
    return at !== undefined && this.nowMs() - at >= this.historyTtlMs;
  }

  private sweep(): void {
    for (let job = this.ended[this.head]; job !== undefined && this.expired(job); job = this.ended[this.head]) {
      // A job replaced in its room is no longer the one its id finds.
      if (this.jobs.get(job.id) === job) this.jobs.delete(job.id);
      this.head += 1;
    }
    // Dropped in one go once they are most of the array, so each costs a constant share of a copy.
    if (this.head > 1024 && this.head * 2 > this.ended.length) {
      this.ended.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The live job of a compat thread, if its latest job is still running. */
  runningInThread(base: string): Job | undefined {
    const id = this.threads.get(base);
    const job = id === undefined ? undefined : this.jobs.get(id);
    return job?.status === 'running' ? job : undefined;
  }

  /** `{thread_base}-{timestamp_ms}`, with a counter suffix when the same millisecond repeats. */
  mintThreadJobId(base: string, nowMs: number): string {
    const last = this.lastMint.get(base);
    let n = last !== undefined && last.ms === nowMs ? last.n + 1 : 0;
    const idFor = (k: number): string => (k === 0 ? `${base}-${nowMs}` : `${base}-${nowMs}-${k}`);
    while (this.jobs.has(idFor(n))) n += 1;
    this.lastMint.set(base, { ms: nowMs, n });
    const id = idFor(n);
    this.threads.set(base, id);
    return id;
  }

  /** `room-<8 hex>` for compat requests without a thread header. */
  mintRoomId(): string {
    for (;;) {
      const id = `room-${randomBytes(4).toString('hex')}`;
      if (!this.jobs.has(id)) return id;
    }
  }
}
