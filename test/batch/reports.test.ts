// A resumed batch's reports hold every item of the batch: the lines the earlier run wrote for
// the items not run again beside this run's own (docs/reliability.md "Batches", docs/reliability.md #158).
import { describe, expect, it } from 'vitest';
import type { EarlierLine } from '../../src/batch/earlier-results.js';
import { batchReport, keptLine } from '../../src/batch/reports.js';
import type { ResolvedItem } from '../../src/batch/resolve.js';
import type { ResultLine } from '../../src/batch/run-item.js';
import { batchJunitXml } from '../../src/output/export/batch-junit.js';
import { batchSummaryMarkdown } from '../../src/output/export/batch-summary.js';
import { failingGate, fullVerdict } from '../output/report-fixtures.js';

const item = (id: string, index: number): ResolvedItem => ({ id, index, prompt: `q ${id}` }) as ResolvedItem;

const runNow: ResultLine = {
  id: 'b',
  index: 1,
  batch: 'batch-0123456789ab',
  request_hash: 'h-b',
  session: '20261201-bbbb',
  job_id: 'job-b',
  status: 'ok',
  exit_code: 0,
  answer: 'fine',
  verdict: fullVerdict(),
  gate: null,
  usage: null,
  error: null,
};

/** As readEarlierResults hands them on: the whole parsed line, checked only where --resume needs it. */
const earlier = (line: Record<string, unknown>): EarlierLine => line as unknown as EarlierLine;

const outcome = (before: EarlierLine[]) =>
  batchReport({
    batch: 'batch-0123456789ab',
    saved: true,
    exitCode: 0,
    startedMs: Date.parse('2026-12-01T12:00:00.000Z'),
    wallMs: 2_000,
    items: [item('b', 1)],
    lines: [runNow],
    earlier: before,
    progress: { durations: new Map([['b', 900]]), interruptedIds: new Set<string>() },
  });

describe("a resumed batch's reports", () => {
  it("list the earlier lines with their verdict and gate, in file order among this run's", () => {
    const gated = earlier({
      id: 'a',
      index: 0,
      batch: 'batch-0123456789ab',
      request_hash: 'h-a',
      session: '20261201-aaaa',
      job_id: 'job-a',
      status: 'gate_failed',
      exit_code: 12,
      verdict: fullVerdict(),
      gate: failingGate,
      error: { code: 'gate_failed', exit_code: 12, message: 'gate min-convergence failed' },
    });
    const ok = earlier({ id: 'c', index: 2, batch: 'x', request_hash: 'h-c', status: 'ok', exit_code: 0 });
    const report = outcome([ok, gated]);
    expect(report.entries.map((e) => [e.id, e.ms])).toEqual([
      ['a', null],
      ['b', 900],
      ['c', null],
    ]);
    expect(report.entries[0]?.ended).toMatchObject({
      status: 'gate_failed',
      session: '20261201-aaaa',
      gate: failingGate,
      error: { code: 'gate_failed', exit_code: 12 },
    });
    const xml = batchJunitXml(report);
    expect(xml).toMatch(/tests="3" failures="1" errors="0"/);
    expect(xml).toMatch(/name="a"[^>]*>\s*<failure [^>]*type="gate_failed"/);
  });

  it('leave out the fields of a hand-edited earlier line that lack their documented shape', () => {
    const edited = earlier({
      id: 'a',
      index: 0,
      batch: 'batch-0123456789ab',
      request_hash: 'h-a',
      session: 7,
      job_id: ['job'],
      status: 'failed',
      exit_code: 5,
      verdict: 'the council agreed',
      gate: { status: 'pass' },
      error: { code: 5 },
      usage: 'free',
    });
    const report = outcome([edited]);
    expect(report.entries[0]?.ended).toEqual({
      session: null,
      job_id: null,
      status: 'failed',
      exit_code: 5,
      verdict: null,
      gate: null,
      error: null,
      usage: null,
    });
    // Both reports render it as any finished item without a verdict.
    expect(batchSummaryMarkdown(report)).toMatch(/\| `a` \| ✗ failed \| — \| — \| — \| — \| — \|/);
    expect(batchJunitXml(report)).toMatch(/name="a"[^>]*>\s*<failure /);
  });
});

describe('what a batch keeps of a written line (reliability #271)', () => {
  it('never its answer; its verdict, gate and error only when a report will show them', () => {
    expect(keptLine(runNow, false)).toEqual({ id: 'b', index: 1, status: 'ok', exit_code: 0, usage: null });
    const forReports = keptLine(runNow, true);
    expect(forReports).not.toHaveProperty('answer');
    // The reports read the same entries off what was kept as off the whole line.
    const report = (line: typeof forReports) =>
      batchReport({
        batch: 'batch-0123456789ab',
        saved: true,
        exitCode: 0,
        startedMs: 0,
        wallMs: 1,
        items: [item('b', 1)],
        lines: [line],
        progress: { durations: new Map(), interruptedIds: new Set<string>() },
      });
    expect(report(forReports)).toEqual(report(runNow));
  });
});
