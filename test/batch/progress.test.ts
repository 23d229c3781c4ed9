// The batch's live bar on its row: throttled by the Context's clock, off the row before any other
// stderr line, gone at the end (docs/reliability.md "Batches"). The terminal is a memory stream dressed as one.
import { describe, expect, it } from 'vitest';
import { liveBar, REDRAW_MS } from '../../src/batch/progress.js';
import type { Clock } from '../../src/run/context.js';
import type { BatchBarState } from '../../src/output/batch-bar.js';
import { liveLine } from '../../src/terminal/live-line.js';
import { FakeTerminal } from '../terminal/memory-io.js';

const ERASE = '\r\x1b[2K';

/** A clock that moves only when the test says, and whose sleeps end only then. */
function manualClock(): Clock & { tick(ms: number): Promise<void>; sleeping: () => number } {
  let t = 0;
  let waiters: Array<{ at: number; wake: () => void }> = [];
  return {
    now: () => new Date(t),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const w = { at: t + ms, wake: resolve };
        waiters.push(w);
        signal?.addEventListener('abort', () => {
          waiters = waiters.filter((x) => x !== w);
          reject(signal.reason as Error);
        });
      }),
    async tick(ms) {
      t += ms;
      const due = waiters.filter((w) => w.at <= t);
      waiters = waiters.filter((w) => w.at > t);
      for (const w of due) w.wake();
      // The bar's loop runs on the woken sleep's continuation.
      await new Promise((r) => setImmediate(r));
    },
    sleeping: () => waiters.length,
  };
}

function rig() {
  const term = new FakeTerminal();
  term.columns = 60;
  const clock = manualClock();
  const s: BatchBarState = { total: 5, done: 0, running: 0, notOk: 0, elapsedMs: 0 };
  const bar = liveBar(liveLine(term), clock, () => ({ ...s, elapsedMs: clock.now().getTime() }));
  const draws = (): number => term.text.split(ERASE).filter((p) => /^\S*\[[#-]+\]/.test(p) || /^\d+\/5/.test(p)).length;
  return { term, clock, s, bar, draws };
}

describe('the live bar', () => {
  it('draws at once, then at most once per tick however many items change (at most 10 a second)', async () => {
    const { clock, s, bar, draws } = rig();
    expect(draws()).toBe(1);
    for (let i = 0; i < 50; i++) {
      s.running = i % 4;
      bar.changed();
    }
    expect(draws()).toBe(1);
    await clock.tick(REDRAW_MS);
    expect(draws()).toBe(2);
    // Nothing changed: no redraw until a second has passed (the elapsed time and ETA move).
    for (let i = 0; i < 8; i++) await clock.tick(REDRAW_MS);
    expect(draws()).toBe(2);
    await clock.tick(REDRAW_MS);
    await clock.tick(REDRAW_MS);
    expect(draws()).toBe(3);
    bar.stop();
  });

  it('takes its row off before another stderr line, and puts it back below it on the next tick', async () => {
    const { term, clock, bar } = rig();
    term.write('waiting for the session lock held by pid 42\n');
    const text = term.text;
    const note = text.indexOf('waiting for');
    expect(text.slice(note - ERASE.length, note)).toBe(ERASE);
    bar.changed();
    await clock.tick(REDRAW_MS);
    expect(term.text.slice(text.length).startsWith(ERASE)).toBe(true);
    expect(term.text.slice(text.length + ERASE.length)).toMatch(/^\[[#-]+\] 0\/5/);
    bar.stop();
  });

  it('stop erases the row, ends its ticks and gives the stream its own write back', async () => {
    const { term, clock, bar, draws } = rig();
    const own = FakeTerminal.prototype.write;
    expect(term.write).not.toBe(own);
    expect(clock.sleeping()).toBe(1);
    bar.stop();
    expect(term.text.endsWith(ERASE)).toBe(true);
    expect(term.write).toBe(own);
    await new Promise((r) => setImmediate(r));
    expect(clock.sleeping()).toBe(0);
    bar.changed();
    await clock.tick(REDRAW_MS * 20);
    term.write('batch b: 5/5 items\n');
    expect(draws()).toBe(1);
    expect(term.text.endsWith(`${ERASE}batch b: 5/5 items\n`)).toBe(true);
    bar.stop();
  });
});
