// Lines that arrive as events (an MCP server's log messages, its progress notifications), and a
// wait for the first that matches: each arrival wakes the wait at once, no clock involved; the
// bound is a backstop against a hang only (WAIT_MS).
import { WAIT_MS } from './limits.js';

export class Arrivals {
  readonly lines: string[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(private readonly what: string) {}

  push(line: string): void {
    this.lines.push(line);
    for (const w of [...this.waiters]) w();
  }

  /** The first line, past or next, that matches `re`; throws after WAIT_MS, naming what it saw. */
  async first(re: RegExp): Promise<string> {
    for (;;) {
      const hit = this.lines.find((l) => re.test(l));
      if (hit !== undefined) return hit;
      const woke = await new Promise<boolean>((resolve) => {
        const w = (): void => {
          clearTimeout(t);
          this.waiters.delete(w);
          resolve(true);
        };
        const t = setTimeout(() => {
          this.waiters.delete(w);
          resolve(false);
        }, WAIT_MS);
        this.waiters.add(w);
      });
      if (!woke) throw new Error(`no ${this.what} matched ${re}; saw: ${this.lines.join(' | ')}`);
    }
  }
}
