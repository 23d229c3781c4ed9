/**
 * Inodes one process keeps for reuse instead of freeing them: the session lock directories and
 * the old versions of session files of a batch's store (docs/reliability.md #272). ext4 without
 * a journal (the machines nsed's figures run on) keeps a freed inode out of reuse for a minute
 * or more, and every later create in its block group steps over each such inode; in a batch of
 * 1,000 items making three files and freeing two per item, the creates were the largest part of
 * the batch's system time (bench/RESULTS.md round 8). Each kept path carries a name the store's
 * sweep already removes once its process is dead (docs/reliability.md #56); a process removes
 * its own at exit.
 */
export class Spares {
  private static readonly live = new Set<Spares>();
  private readonly kept = new Map<string, string[]>();

  /** `remove` deletes one kept path, best effort; at most `max` are kept per directory. */
  constructor(
    private readonly remove: (kept: string) => void,
    private readonly max = 32,
  ) {}

  /** A kept path in `dir`, no longer kept; undefined when there is none. */
  take(dir: string): string | undefined {
    return this.kept.get(dir)?.pop();
  }

  /** Keeps `p` (a path in directory `dir`) for reuse; false when enough are kept, and the caller removes it. */
  keep(dir: string, p: string): boolean {
    const list = this.kept.get(dir) ?? [];
    if (list.length >= this.max) return false;
    list.push(p);
    this.kept.set(dir, list);
    if (Spares.live.size === 0) process.once('exit', () => Spares.removeAll());
    Spares.live.add(this);
    return true;
  }

  /** Removes every kept path of this process (at exit: synchronous). */
  private static removeAll(): void {
    for (const spares of Spares.live)
      for (const list of spares.kept.values()) for (const p of list.splice(0)) spares.remove(p);
    Spares.live.clear();
  }
}
