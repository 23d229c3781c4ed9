// writeReports reads the verdict and gate result the turn recorded: with them on the turn, the
// plain gate lines and the annotations show them (the recorder writes both; docs/ndjson.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Turn } from '../../src/session/model.js';
import { writeReports } from '../../src/turn/reports/write-reports.js';
import { contextRig, type ContextRig } from '../harness/context-rig.js';
import { failingGate, fullVerdict, sessionWith } from '../output/report-fixtures.js';
import { settle } from '../terminal/memory-io.js';

let rig: ContextRig;
beforeAll(async () => {
  rig = await contextRig();
  await rig.store.create(sessionWith({ verdict: fullVerdict(), gate: failingGate } as Partial<Turn>));
});
afterAll(async () => {
  await rig.close();
});

const spec = { sessionId: '20261201-abc', assistantTurnId: 't2', policy: 'nsed:deep' };

describe('the reports of a recorded turn', () => {
  it('--progress plain prints the gate results; --annotate the claims of the chosen proposal, then the notice', async () => {
    const before = rig.mem.stderr.text.length;
    await writeReports(rig.ctx, spec, { saved: true, plain: true, reports: { annotate: true } });
    await settle();
    expect(rig.mem.stderr.text.slice(before).trimEnd().split('\n')).toEqual([
      'gate min-convergence >= 0.9 (convergence): actual 0.81 · fail',
      'gate max-wrong <= 0 (wrong claims of the chosen proposal): actual 1 · fail',
      'gate max-contested <= 3 (contested claims of the chosen proposal): actual 1 · pass',
      'gate min-margin >= 0.05 (margin over the runner-up): actual not reported · inconclusive',
      'gate fail: 2 of 4 checks failed, 1 inconclusive',
      '::error title=Wrong claim of CortexA::The table has no index — it has one since v2',
      '::warning title=Contested claim of CortexA::Downtime is zero',
      '::notice title=nsed council::CortexA chosen · claims of the chosen proposal: 1 wrong, 1 contested · summary: nsed sessions export 20261201-abc --format summary',
    ]);
  });

  it('prints no gate lines unless progress is plain, and nothing at all when nothing was asked', async () => {
    const before = rig.mem.stderr.text.length;
    await writeReports(rig.ctx, spec, { saved: true, plain: false });
    await writeReports(rig.ctx, spec, { saved: false, plain: false, reports: { annotate: true } });
    await settle();
    expect(rig.mem.stderr.text.slice(before)).toMatch(
      /^::error [^\n]*\n::warning [^\n]*\n::notice [^\n]*write one with --summary FILE\n$/,
    );
  });
});
