// The batch's --summary and --junit reports from a fixed outcome (docs/reliability.md "Batches"): one entry
// per item, every status, hostile ids, and the 1 MiB limit of a step summary.
import { parse, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { batchJunitXml } from '../../src/output/export/batch-junit.js';
import type { BatchEntry, BatchItemLine, BatchReport } from '../../src/output/export/batch-report.js';
import { batchSummaryMarkdown } from '../../src/output/export/batch-summary.js';
import { SUMMARY_LIMIT_BYTES } from '../../src/output/export/summary.js';
import { failingGate, fullVerdict, passingGate } from './report-fixtures.js';

const line = (over: Partial<BatchItemLine> = {}): BatchItemLine => ({
  session: '20261201-aaaa',
  job_id: 'job-1',
  status: 'ok',
  exit_code: 0,
  verdict: fullVerdict(),
  gate: passingGate,
  error: null,
  usage: { input_tokens: 1791, output_tokens: 786, cost_usd: 0.0077928, cost_source: 'reported' },
  ...over,
});

const entry = (id: string, index: number, ended: BatchEntry['ended'], ms: number | null = 1200): BatchEntry => ({
  id,
  index,
  ended,
  ms: typeof ended === 'string' ? null : ms,
});

/** One item of each way an item can end, in file order. */
const mixed = (saved = true): BatchReport => ({
  batch: 'batch-0123456789ab',
  name: 'items.jsonl',
  saved,
  started: '2026-12-01T12:00:00.000Z',
  wallMs: 61_000,
  entries: [
    entry('pass', 0, line()),
    entry('gated', 1, line({ status: 'gate_failed', exit_code: 12, gate: failingGate, error: err('gate_failed', 12) })),
    entry('unsure', 2, line({ status: 'inconclusive', exit_code: 13, error: err('inconclusive', 13) })),
    entry('broke', 3, line({ status: 'failed', exit_code: 5, verdict: null, gate: null, error: err('server', 5) })),
    entry(
      'net',
      4,
      line({
        status: 'error',
        session: null,
        job_id: null,
        verdict: null,
        gate: null,
        exit_code: 3,
        error: err('not_found', 3),
      }),
    ),
    entry(
      'stopped',
      5,
      line({ status: 'cancelled', exit_code: 9, verdict: null, gate: null, error: err('cancelled', 9) }),
    ),
    entry('cut', 6, 'interrupted'),
    entry('later', 7, 'not-run'),
  ],
});

function err(code: string, exit: number): BatchItemLine['error'] {
  return { code, exit_code: exit, message: `${code} happened <b>here</b> | twice` };
}

async function read(xml: string): Promise<TestSuites> {
  const doc = await parse(xml);
  if (doc == null || !('testsuite' in doc)) throw new Error('no <testsuites> root');
  return doc as TestSuites;
}

describe('the batch JUnit report', () => {
  it('has one case per item: failures for gate_failed/inconclusive/failed, an error for error, skipped for the rest', async () => {
    const doc = await read(batchJunitXml(mixed()));
    expect(doc).toMatchObject({ name: 'nsed batch', tests: 8, failures: 3, errors: 1, time: 61 });
    const suite = doc.testsuite?.[0];
    expect(suite).toMatchObject({
      name: 'items.jsonl',
      tests: 8,
      failures: 3,
      errors: 1,
      skipped: 3,
    });
    const cases = Object.fromEntries((suite?.testcase ?? []).map((c) => [c.name, c]));
    expect(Object.keys(cases)).toEqual(['pass', 'gated', 'unsure', 'broke', 'net', 'stopped', 'cut', 'later']);
    expect(cases['pass']).toMatchObject({ classname: 'nsed.batch', time: 1.2 });
    expect(cases['pass']?.failure ?? cases['pass']?.error ?? cases['pass']?.skipped).toBeUndefined();
    expect(cases['gated']?.failure?.[0]).toMatchObject({ type: 'gate_failed' });
    expect(cases['gated']?.failure?.[0]?.inner).toContain('min-convergence 0.9: actual 0.81');
    expect(cases['unsure']?.failure?.[0]).toMatchObject({ type: 'inconclusive' });
    expect(cases['broke']?.failure?.[0]).toMatchObject({
      type: 'failed',
      message: 'server happened <b>here</b> | twice',
    });
    expect(cases['net']?.error?.[0]).toMatchObject({ type: 'not_found' });
    for (const id of ['stopped', 'cut', 'later']) expect(cases[id]?.skipped, id).toHaveLength(1);
    expect(cases['cut']?.skipped?.[0]).toMatchObject({ type: 'interrupted' });
    expect(cases['pass']?.['system-out']?.[0]).toBe('status: ok\nsession: 20261201-aaaa');
  });

  it('keeps a hostile id readable: markup and characters XML cannot carry', async () => {
    const r = mixed();
    r.entries = [entry('a"<x>&\u0001\uD800', 0, line())];
    const doc = await read(batchJunitXml(r));
    expect(doc.testsuite?.[0]?.testcase?.[0]?.name).toBe('a"<x>&\uFFFD\uFFFD');
  });
});

describe('the batch summary', () => {
  it('says the outcome, the counts, a row per item worst first, and why each went wrong', () => {
    const md = batchSummaryMarkdown(mixed());
    expect(md.startsWith('## nsed batch · ✗ 6 of 8 items finished, 1 ok\n')).toBe(true);
    expect(md).toContain('batch `batch-0123456789ab` · started 2026-12-01T12:00:00.000Z · 1m01s wall');
    expect(md).toContain(
      '**8 items:** 1 error · 1 failed · 1 cancelled · 1 inconclusive · 1 gate_failed · 1 ok · 1 interrupted · 1 not run',
    );
    const rows = md.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.map((l) => /^\| `([^`]+)`/.exec(l)?.[1])).toEqual([
      'net',
      'broke',
      'stopped',
      'cut',
      'unsure',
      'gated',
      'later',
      'pass',
    ]);
    expect(rows[7]).toBe('| `pass` | ✓ ok | 81% | CortexA 0.82 | ✓ pass | 1.2s | $0.0078 | `20261201-aaaa` |');
    expect(rows[5]).toContain('| ✗ fail: min-convergence, max-wrong, min-margin |');
    expect(rows[3]).toBe('| `cut` | ⊘ interrupted | — | — | — | — | — | — |');
    // Server text stays in its cell and on its line: no raw HTML, no column break.
    expect(md).toContain('- `net` (error, exit 3): not_found happened &lt;b>here&lt;/b> | twice');
    expect(md).toContain('- `cut`: interrupted by a signal while it ran; no result line');
    expect(md.trimEnd().endsWith("_Each item's own report: `nsed sessions export SESSION --format summary`._")).toBe(
      true,
    );
  });

  it('says when all passed, and with --no-save points at the result lines instead of sessions', () => {
    const r = mixed(false);
    r.entries = [entry('a', 0, line({ session: null })), entry('b', 1, line({ session: null }))];
    const md = batchSummaryMarkdown(r);
    expect(md.startsWith('## nsed batch · ✓ all 2 items ok\n')).toBe(true);
    expect(md).toContain('| not saved |');
    expect(md).not.toContain('### Problems');
    expect(md).toContain('(--no-save)');
  });

  it('stays under 1 MiB for 6,000 items with long ids, saying what it left out', () => {
    const r = mixed();
    r.entries = Array.from({ length: 6_000 }, (_, i) =>
      entry(
        `item-${i}-${'x'.repeat(200)}`,
        i,
        i % 3 === 0 ? line({ status: 'error', error: err('network', 3) }) : line(),
      ),
    );
    const md = batchSummaryMarkdown(r);
    expect(Buffer.byteLength(md)).toBeLessThan(SUMMARY_LIMIT_BYTES);
    expect(md).toMatch(/\*\*Truncated:\*\* the item table \(\d+ of 6000 items left out, the best last\)/);
    expect(md).toMatch(/\*\*Truncated:\*\* the problems \(\d+ left out\)/);
    expect(md).toContain('**6000 items:** 2000 error · 4000 ok');
  });
});
