/**
 * Every timer the simulator starts, in one place, so `close()` can stop them all at once and
 * tests that start and stop many simulators leave nothing running.
 */
export class TimerSet {
  private readonly live = new Set<NodeJS.Timeout>();
  private closed = false;

  after(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (this.closed) return undefined;
    const handle = setTimeout(() => {
      this.live.delete(handle);
      fn();
    }, ms);
    this.live.add(handle);
    return handle;
  }

  cancel(handle: NodeJS.Timeout | undefined): void {
    if (handle === undefined) return;
    clearTimeout(handle);
    this.live.delete(handle);
  }

  close(): void {
    this.closed = true;
    for (const h of this.live) clearTimeout(h);
    this.live.clear();
  }
}
