/**
 * Group commit (docs/reliability.md #260): one fsync serves every caller that asked for it before
 * it started. A caller that asks while one is running waits for the next, which starts as soon as
 * the running one ends and serves everyone who asked meanwhile; so each caller's promise settles
 * after an fsync that began after its own write, as if it had made its own, and N writes that end
 * together cost one fsync instead of N. Failures reach every caller of that fsync.
 */
export class SyncGroup {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly run: () => Promise<void>) {}

  sync(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const after = this.running ?? Promise.resolve();
    const next: Promise<void> = after
      .then(noop, noop)
      .then(() => {
        // From here on, a caller's write may be missed by this fsync: it waits for the next one.
        this.queued = undefined;
        this.running = next;
        return this.run();
      })
      .finally(() => {
        if (this.running === next) this.running = undefined;
      });
    this.queued = next;
    return next;
  }
}

const noop = (): void => undefined;
