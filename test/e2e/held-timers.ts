import { TimerSet } from '../../src/sim/timers.js';

/**
 * Until the shared harness has its own control: the simulator's timers, with every phase timer
 * held back while `held` (keep-alives and history expiry run as usual). Start the simulator with
 * `roundMs: PHASE_MS` and these timers; a held deliberation has sent its first chunk and waits
 * at its first phase boundary until `release()`.
 */
export const PHASE_MS = 7;

export class HeldTimers extends TimerSet {
  held = false;
  private parked: Array<() => void> = [];
  private waiters: Array<() => void> = [];

  override after(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (ms !== PHASE_MS || !this.held) return super.after(ms, fn);
    this.parked.push(fn);
    for (const w of this.waiters.splice(0)) w();
    return undefined;
  }

  /** Resolves once a deliberation waits at a phase boundary (its request has been taken). */
  nextParked(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    this.held = false;
    for (const fn of this.parked.splice(0)) super.after(0, fn);
  }
}

