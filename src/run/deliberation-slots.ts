/**
 * The places among the deliberations one process runs at once (`nsed batch -j N`, README "Many
 * deliberations from one file"). A place is held from a deliberation's start until it has ended
 * on the orchestrator (its answer's `[DONE]`, or the error that stopped it), not until the item's
 * line is written: what follows the end (the ballots read, the answer recorded durably, the line
 * written) runs while the next deliberation already runs in the place it left
 * (docs/reliability.md #273). The orchestrator then sets the pace, not the disk.
 *
 * Places go in the order the leases were taken, whichever item is ready first: at -j 1 the items
 * start in the file's order, as they always did.
 */
export interface SlotLease {
  /**
   * Holds a place, waiting for this lease's turn; at once when it holds one already. False when
   * `signal` aborted first: the caller starts nothing.
   */
  acquire(signal: AbortSignal): Promise<boolean>;
  /** Gives the place back, or this lease's turn in the queue; the next lease in line takes it. */
  release(): void;
  /** Whether this lease ever held a place: a deliberation of its item may have started. */
  readonly started: boolean;
}

interface Ticket {
  granted: boolean;
  /** Set while acquire() waits for the grant. */
  wake: (() => void) | undefined;
}

export class DeliberationSlots {
  private readonly count: number;
  private free: number;
  private readonly queue: Ticket[] = [];

  constructor(count: number) {
    this.count = Math.max(1, count);
    this.free = this.count;
  }

  /** The places held now, granted to a lease whether or not its deliberation has started yet. */
  get held(): number {
    return this.count - this.free;
  }

  /**
   * A lease, in line from now: at most one place, taken and given back as its deliberations start
   * and end. `onStart` is called when it first holds one (an item's time is counted from then).
   */
  lease(onStart?: () => void): SlotLease {
    let ticket: Ticket | undefined = this.enqueue();
    let held = false;
    let started = false;
    return {
      get started() {
        return started;
      },
      acquire: async (signal) => {
        if (held) return true;
        // A deliberation after one this lease gave back (a corrective turn) queues again.
        ticket ??= this.enqueue();
        const mine = ticket;
        ticket = undefined;
        // A place granted after the signal aborted is passed on: nothing starts once it has.
        const ok = !signal.aborted && (mine.granted || (await this.granted(mine, signal))) && !signal.aborted;
        if (!ok) {
          this.drop(mine);
          return false;
        }
        held = true;
        if (!started) onStart?.();
        started = true;
        return true;
      },
      release: () => {
        if (held) {
          held = false;
          this.giveBack();
        } else if (ticket !== undefined) {
          this.drop(ticket);
          ticket = undefined;
        }
      },
    };
  }

  private enqueue(): Ticket {
    const t: Ticket = { granted: false, wake: undefined };
    this.queue.push(t);
    this.grant();
    return t;
  }

  /** Resolves true once `t` is granted, false when `signal` aborts first. */
  private granted(t: Ticket, signal: AbortSignal): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const aborted = (): void => {
        t.wake = undefined;
        resolve(false);
      };
      t.wake = () => {
        signal.removeEventListener('abort', aborted);
        resolve(true);
      };
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  /** A ticket leaves the line: a place it was granted and never used goes to the next. */
  private drop(t: Ticket): void {
    const at = this.queue.indexOf(t);
    if (at >= 0) this.queue.splice(at, 1);
    else if (t.granted) this.giveBack();
  }

  private giveBack(): void {
    this.free += 1;
    this.grant();
  }

  /** Free places go to the tickets at the head of the line, in order. */
  private grant(): void {
    while (this.free > 0) {
      const t = this.queue.shift();
      if (t === undefined) return;
      this.free -= 1;
      t.granted = true;
      const wake = t.wake;
      t.wake = undefined;
      wake?.();
    }
  }
}
