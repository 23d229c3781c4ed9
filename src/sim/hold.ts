/**
 * The test control of the simulator: a held deliberation stops at every phase boundary until
 * the test releases it, so a test decides what "still running" means instead of racing a timer.
 * A held job has sent its first chunk (the session id) and nothing else; `release(id, n)` lets
 * n more phases run, `release(id)` lets it run to its end at the usual pace.
 */
import { EventEmitter } from 'node:events';

export type PhaseKind = 'propose' | 'evaluate' | 'answer';

/** One phase that ran: the job's `count`-th, of `kind`, in `round`. */
export interface PhaseEvent {
  jobId: string;
  count: number;
  kind: PhaseKind;
  round: number;
}

/** What the control knows of one job. */
export interface HeldJob {
  jobId: string;
  /** Still stopped at boundaries (some phases may have been let through). */
  held: boolean;
  /** Phases run so far. */
  phases: number;
  /** Waiting at a boundary for a release. */
  parked: boolean;
  /** Injections accepted so far. */
  injected: number;
  ended: boolean;
  /** `GET /deliberation/{id}/budget` reads so far. */
  budgetReads: number;
}

/** How many jobs run at once: now, and the most since the simulator started (batch tests). */
export interface JobStats {
  /** Jobs started and not yet ended (answered, failed or cancelled). */
  running: number;
  /** The largest `running` seen since start. */
  peak: number;
  /** Jobs started since start. */
  started: number;
}

/** What the control watches of a job (src/sim/job.ts). */
export interface WatchedJob {
  readonly id: string;
  readonly finished: Promise<void>;
  /** Injections accepted so far. */
  readonly injected: number;
  /** Named-event streams (`GET /job/{id}/stream`) attached now. */
  readonly streams: number;
  watch(fn: () => void): () => void;
}

interface Gate {
  job: WatchedJob;
  held: boolean;
  credits: number;
  phases: number;
  parked: (() => void) | undefined;
  ended: boolean;
  budgetReads: number;
}

/** The events a test may await: a job started, a phase ran, a job parked at a boundary, a job ended. */
interface ControlEvents {
  job: [jobId: string];
  phase: [PhaseEvent];
  parked: [jobId: string];
  /** The job's log grew or it accepted an injection. */
  change: [jobId: string];
  end: [jobId: string];
}

export class SimControl {
  /** New deliberations start held while this is on. */
  hold: boolean;
  private readonly gates = new Map<string, Gate>();
  private readonly started: string[] = [];
  private handedOut = 0;
  private running = 0;
  private peak = 0;
  private readonly events = new EventEmitter<ControlEvents>();

  constructor(
    hold: boolean,
    /** Runs a released phase soon, but not inside the caller's stack. */
    private readonly soon: (fn: () => void) => void,
  ) {
    this.hold = hold;
    // Tests may wait on many jobs at once; the default of 10 listeners warns for no reason.
    this.events.setMaxListeners(0);
  }

  on<K extends keyof ControlEvents>(event: K, fn: (...args: ControlEvents[K]) => void): () => void {
    this.events.on(event, fn as never);
    return () => this.events.off(event, fn as never);
  }

  /** The simulator registers every job it starts; `deliberates` is false for instant replies. */
  jobStarted(job: WatchedJob, deliberates: boolean): void {
    const jobId = job.id;
    this.gates.set(jobId, {
      job,
      held: deliberates && this.hold,
      credits: 0,
      phases: 0,
      parked: undefined,
      ended: false,
      budgetReads: 0,
    });
    this.started.push(jobId);
    this.running += 1;
    this.peak = Math.max(this.peak, this.running);
    job.watch(() => this.events.emit('change', jobId));
    void job.finished.then(() => {
      this.running -= 1;
      const gate = this.gates.get(jobId);
      if (gate === undefined) return;
      gate.ended = true;
      gate.parked = undefined;
      this.events.emit('end', jobId);
    });
    this.events.emit('job', jobId);
  }

  /**
   * Asked before each phase. True: run it now. False: the job is parked and `resume` is called
   * once a release lets the phase through.
   */
  admit(jobId: string, resume: () => void): boolean {
    const gate = this.gates.get(jobId);
    if (gate === undefined || !gate.held) return true;
    if (gate.credits > 0) {
      gate.credits -= 1;
      return true;
    }
    gate.parked = resume;
    this.events.emit('parked', jobId);
    return false;
  }

  phaseRan(jobId: string, kind: PhaseKind, round: number): void {
    const gate = this.gates.get(jobId);
    if (gate === undefined) return;
    gate.phases += 1;
    this.events.emit('phase', { jobId, count: gate.phases, kind, round });
  }

  /** A client read the job's `/budget` (counted as it arrives, before it is answered). */
  budgetRead(jobId: string): void {
    const gate = this.gates.get(jobId);
    if (gate === undefined) return;
    gate.budgetReads += 1;
    this.events.emit('change', jobId);
  }

  /** Resolves when a client has read the job's `/budget` at least `count` times, or the job has ended. */
  budgetReads(jobId: string, count: number): Promise<HeldJob> {
    return this.until(jobId, (g) => g.budgetReads >= count || g.ended);
  }

  /** Lets `phases` more phases of a held job run; without a number the job runs free to its end. */
  release(jobId: string, phases?: number): void {
    const gate = this.gates.get(jobId);
    if (gate === undefined) throw new Error(`sim control: no job ${jobId}`);
    if (phases === undefined) gate.held = false;
    else gate.credits += phases;
    const parked = gate.parked;
    if (parked !== undefined && (!gate.held || gate.credits > 0)) {
      gate.parked = undefined;
      this.soon(parked);
    }
  }

  /** Releases every job, and starts later ones free. */
  releaseAll(): void {
    this.hold = false;
    for (const id of this.gates.keys()) this.release(id);
  }

  /** The next job started that no earlier call returned, in start order. */
  nextJob(): Promise<string> {
    const index = this.handedOut++;
    const known = this.started[index];
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve) => {
      const off = this.on('job', () => {
        const id = this.started[index];
        if (id === undefined) return;
        off();
        resolve(id);
      });
    });
  }

  /** Resolves when the job waits at a boundary (at once if it already does), or has ended. */
  parked(jobId: string): Promise<HeldJob> {
    return this.until(jobId, (g) => g.parked !== undefined || g.ended);
  }

  /** Resolves when the job has run at least `count` phases, or has ended. */
  phases(jobId: string, count: number): Promise<HeldJob> {
    return this.until(jobId, (g) => g.phases >= count || g.ended);
  }

  /** Resolves when the job has accepted at least `count` injections (queued for its next boundary), or has ended. */
  injected(jobId: string, count = 1): Promise<HeldJob> {
    return this.until(jobId, (g) => g.job.injected >= count || g.ended);
  }

  /**
   * Resolves when at least `count` named-event streams are attached to the job, or it has ended:
   * that stream is live only, so a test lets the job on only once the client listens.
   */
  attached(jobId: string, count = 1): Promise<HeldJob> {
    return this.until(jobId, (g) => g.job.streams >= count || g.ended);
  }

  /** Resolves when the job has ended (answered, failed or cancelled). */
  ended(jobId: string): Promise<HeldJob> {
    return this.until(jobId, (g) => g.ended);
  }

  /** Jobs running now, the peak since start, and how many started (counted whether or not holding is on). */
  stats(): JobStats {
    return { running: this.running, peak: this.peak, started: this.started.length };
  }

  job(jobId: string): HeldJob | undefined {
    const gate = this.gates.get(jobId);
    return gate === undefined ? undefined : this.view(jobId, gate);
  }

  jobs(): HeldJob[] {
    return [...this.gates].map(([id, gate]) => this.view(id, gate));
  }

  private view(jobId: string, g: Gate): HeldJob {
    return {
      jobId,
      held: g.held,
      phases: g.phases,
      parked: g.parked !== undefined,
      injected: g.job.injected,
      ended: g.ended,
      budgetReads: g.budgetReads,
    };
  }

  private until(jobId: string, done: (g: Gate) => boolean): Promise<HeldJob> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        const gate = this.gates.get(jobId);
        if (gate === undefined || !done(gate)) return false;
        resolve(this.view(jobId, gate));
        return true;
      };
      if (check()) return;
      const offs = (['job', 'phase', 'parked', 'change', 'end'] as const).map((e) =>
        this.on(e, () => check() && offs.forEach((off) => off())),
      );
    });
  }
}
