import { describe, expect, it } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import { OUTPUT_MODES } from '../../src/output/modes.js';
import { gateProgressLines } from '../../src/output/plain-progress.js';
import { isCI, progressMode } from '../../src/output/progress-mode.js';
import { memoryIO } from '../terminal/memory-io.js';
import { failingGate, passingGate } from './report-fixtures.js';
import { candidate, finish, lines, render, script, turnStart } from './script.js';

/** `script`'s plain lines: its one milestone comes before the round, so no round carries it. */
const plainScript = [
  'session s1 · job job-1 · policy nsed:deep',
  'round 1/5 · 3 candidates · leader CortexA 0.47 · all candidates: 0 wrong, 0 contested',
  'injected at round 2 (#1): focus on latency',
  'reconnecting (attempt 1): the stream ended before the deliberation finished (no [DONE])',
  'round 2/5 · 1 candidate · leader CortexA 0.90 · all candidates: 0 wrong, 0 contested',
  'finalized · CortexA chosen at round 2',
];

describe('--progress plain (renderers)', () => {
  it('prints the same plain lines in every output mode, and leaves stdout as the mode has it', async () => {
    for (const mode of OUTPUT_MODES) {
      const { io, stdout, stderr } = memoryIO();
      await render(mode, io, script, { progress: 'plain' });
      expect(lines(stderr.text), mode).toEqual(plainScript);
      if (mode === 'final' || mode === 'text') expect(stdout.text).toBe('Hello, world.\n');
      if (mode === 'json') expect(JSON.parse(stdout.text)).toMatchObject({ content: 'Hello, world.' });
    }
  });

  it('says what the turn cost each time the figures change, an unknown cost as unknown (never $0)', async () => {
    const usage = (cost_usd: number | null, cost_source: 'reported' | 'unknown', tokens: number | null): NsedEvent => ({
      type: 'usage',
      usage: { input_tokens: tokens, output_tokens: tokens, cost_usd, cost_source },
    });
    const { io, stderr } = memoryIO();
    await render(
      'final',
      io,
      [
        turnStart,
        usage(null, 'unknown', null),
        usage(0.0421, 'reported', 1200),
        usage(0.0421, 'reported', 1200),
        finish,
      ],
      { progress: 'plain' },
    );
    expect(lines(stderr.text)).toEqual([
      'cost unknown · tokens not reported',
      'cost $0.042 · 1,200 tokens in, 1,200 out',
    ]);
  });

  it('names a selected agent (watch --agent) by its name and the round leader as leader, in every line', async () => {
    const round: NsedEvent = {
      type: 'round',
      round: 2,
      total_rounds: 3,
      progress: 0.6,
      scored: true,
      candidates: [candidate('CortexB', 0.61)],
      leader: { agent_id: 'CortexA', score: 0.82 },
    };
    const plain = memoryIO();
    await render('final', plain.io, [turnStart, round, finish], { progress: 'plain' });
    // The counts are CortexB's alone, and say so: not "all candidates".
    expect(lines(plain.stderr.text)).toContain(
      'round 2/3 · 1 candidate · CortexB 0.61 · leader CortexA 0.82 · claims of CortexB: 0 wrong, 0 contested',
    );
    const text = memoryIO();
    await render('text', text.io, [turnStart, round, finish]);
    expect(text.stderr.text + text.stdout.text).toContain(
      'round 2/3 · 1 candidate · CortexB 0.61 · leader CortexA 0.82',
    );
    expect(text.stderr.text + text.stdout.text).not.toContain('leader CortexB');
  });

  it("gives a round the convergence of the milestone right after it, and only that round's", async () => {
    const { io, stderr } = memoryIO();
    const contested = { ...candidate('CortexA', 0.5), claims: [{ claim: 'x', verdict: 'wrong' as const }] };
    const round = (n: number): NsedEvent => ({
      type: 'round',
      round: n,
      total_rounds: 3,
      progress: n / 3,
      scored: true,
      candidates: [contested, candidate('CortexB', 0.4)],
    });
    await render(
      'final',
      io,
      [
        turnStart,
        round(1),
        { type: 'reasoning', text: 'Round 1 complete — convergence: 62%' },
        round(2),
        { type: 'reasoning', text: 'Round 1 complete — convergence: 70%' },
        round(3),
        finish,
      ],
      { progress: 'plain' },
    );
    expect(lines(stderr.text)).toEqual([
      'round 1/3 · 2 candidates · convergence 62% · leader CortexA 0.50 · all candidates: 1 wrong, 0 contested',
      'round 2/3 · 2 candidates · leader CortexA 0.50 · all candidates: 1 wrong, 0 contested',
      'round 3/3 · 2 candidates · leader CortexA 0.50 · all candidates: 1 wrong, 0 contested',
    ]);
  });

  it('--progress none prints nothing on stderr, even on a terminal and in text mode', async () => {
    for (const mode of OUTPUT_MODES) {
      const { io, stdout, stderr } = memoryIO({ stderrTTY: true });
      await render(mode, io, script, { progress: 'none', showSessionHint: true });
      expect(stderr.text, mode).toBe('');
      expect(stdout.text).not.toBe('');
    }
  });

  it('plain on a terminal draws no spinner and rewrites no line; -q silences it', async () => {
    const tty = memoryIO({ stderrTTY: true });
    // Wide enough for every line whole (a narrower one breaks them: test/output/printed-rows.test.ts).
    tty.stderr.columns = 200;
    await render('final', tty.io, script, { progress: 'plain' });
    expect(lines(tty.stderr.text)).toEqual(plainScript);
    expect(tty.stderr.text).not.toContain('\x1b');
    expect(tty.stderr.text).not.toContain('\r');
    const quiet = memoryIO({ quiet: true });
    await render('ndjson', quiet.io, script, { progress: 'plain' });
    expect(quiet.stderr.text).toBe('');
  });

  it('states each gate check with expected and actual, then the outcome', () => {
    expect(gateProgressLines(failingGate)).toEqual([
      'gate min-convergence >= 0.9 (convergence): actual 0.81 · fail',
      'gate max-wrong <= 0 (wrong claims of the chosen proposal): actual 1 · fail',
      'gate max-contested <= 3 (contested claims of the chosen proposal): actual 1 · pass',
      'gate min-margin >= 0.05 (margin over the runner-up): actual not reported · inconclusive',
      'gate fail: 2 of 4 checks failed, 1 inconclusive',
    ]);
    expect(gateProgressLines(passingGate).at(-1)).toBe('gate pass: 0 of 2 checks failed');
  });
});

describe('--progress auto', () => {
  it('is plain off a terminal only when CI is set (not empty, not "false"), and as before otherwise', () => {
    expect(progressMode('auto', { CI: 'true' }, false)).toBe('plain');
    expect(progressMode('auto', { CI: '1' }, false)).toBe('plain');
    expect(progressMode('auto', { CI: 'true' }, true)).toBe('live');
    for (const CI of [undefined, '', 'false', 'FALSE', ' ']) expect(progressMode('auto', { CI }, false)).toBe('live');
    expect(progressMode('plain', {}, true)).toBe('plain');
    expect(progressMode('none', { CI: 'true' }, false)).toBe('none');
    expect(isCI({ GITLAB_CI: 'true' })).toBe(false);
  });
});
