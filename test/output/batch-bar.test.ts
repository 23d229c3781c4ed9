// The live bar of `nsed batch` as a pure function of its state (docs/reliability.md "Batches").
import { describe, expect, it } from 'vitest';
import { batchBar, shortDuration, type BatchBarState } from '../../src/output/batch-bar.js';

const state = (over: Partial<BatchBarState> = {}): BatchBarState => ({
  total: 40,
  done: 10,
  running: 4,
  notOk: 2,
  elapsedMs: 20_000,
  ...over,
});

describe('the batch bar', () => {
  it('shows the bar, done/total, running, not ok, ETA, rate and elapsed on a wide terminal', () => {
    expect(batchBar(state(), 120)).toBe(
      '[#######---------------------] 10/40 · 4 running · 2 not ok · ETA 1m00s · 30.0/min · 20s',
    );
  });

  it("stops two columns short of the edge (room for a Ctrl-C's ^C echo), and drops elapsed, rate, the bar, then the ETA as it narrows", () => {
    const widths = [200, 120, 80, 60, 50, 40, 30, 20, 10, 1];
    const lines = widths.map((w) => batchBar(state({ backoffMs: 5000 }), w));
    for (const [i, w] of widths.entries())
      expect(lines[i]?.length, `width ${w}: ${lines[i]}`).toBeLessThanOrEqual(Math.max(0, w - 2));
    // What each width keeps (the counts and the back-off under way stay longest).
    expect(lines[2]).toBe('[##------] 10/40 · 4 running · 2 not ok · back-off 5.0s · ETA 1m00s · 30.0/min');
    expect(lines[3]).toBe('10/40 · 4 running · 2 not ok · back-off 5.0s · ETA 1m00s');
    expect(lines[4]).toBe('10/40 · 4 running · 2 not ok · back-off 5.0s');
    expect(lines[5]).toBe('10/40 · 4 running · 2 not ok · back-o…');
    expect(lines[9]).toBe('');
  });

  it('shows no ETA or rate before the first item ends, and no back-off at 0', () => {
    const line = batchBar(state({ done: 0, notOk: 0, elapsedMs: 300, backoffMs: 0 }), 100);
    expect(line).toBe('[----------------------------] 0/40 · 4 running · ETA — · 0.3s');
  });

  it('fills the bar when every item is done, ETA 0', () => {
    const line = batchBar(state({ done: 40, running: 0, notOk: 0, elapsedMs: 3_723_000 }), 100);
    expect(line).toBe('[############################] 40/40 · 0 running · ETA 0.0s · 0.6/min · 1h02m');
  });

  it('words durations short', () => {
    expect([900, 9_940, 42_400, 185_000, 7_620_000].map(shortDuration)).toEqual([
      '0.9s',
      '9.9s',
      '42s',
      '3m05s',
      '2h07m',
    ]);
  });
});
