import { describe, expect, it } from 'vitest';
import type { NsedEvent } from '../../src/events/events.js';
import { advanceProgress, initialProgress, progressLine } from '../../src/output/progress-state.js';
import { createRenderer } from '../../src/output/renderer.js';
import { roundLine } from '../../src/output/text.js';
import { renderScreen } from '../terminal/screen.js';
import { candidate, finish, lines, render, script } from '../output/script.js';
import { memoryIO, settle } from '../terminal/memory-io.js';

const HINT = 'session s1 · continue: nsed continue -s s1 "…"';

describe('the progress line: phase, round, elapsed, convergence, leader, contested claims', () => {
  it('folds the events a deliberation sends into one line', () => {
    let s = initialProgress;
    const fold = (e: NsedEvent) => (s = advanceProgress(s, e));
    expect(progressLine(s, 0)).toBe('deliberating · 0s');
    fold({ type: 'reasoning', text: 'Round 1/3 — proposals from A, B' });
    fold({ type: 'round', round: 1, total_rounds: 3, progress: 0.1, scored: false, candidates: [candidate('A', 0)] });
    expect(progressLine(s, 1500)).toBe('proposing · round 1/3 · 1s');
    fold({ type: 'reasoning', text: 'Round 1 — evaluations from A, B' });
    expect(s.phase).toBe('evaluating');
    const claims = [
      { claim: 'x', verdict: 'contested' as const },
      { claim: 'y', verdict: 'verified' as const },
      { claim: 'z', verdict: 'wrong' as const },
    ];
    fold({
      type: 'round',
      round: 1,
      total_rounds: 3,
      progress: 0.3,
      scored: true,
      candidates: [candidate('A', 0.2), { ...candidate('B', 0.61), claims }],
    });
    fold({ type: 'reasoning', text: 'Round 1 complete — convergence: 45%' });
    expect(progressLine(s, 12_400)).toBe(
      'evaluating · round 1/3 · 12s · convergence 45% · leader B 0.61 · all candidates: 1 wrong, 1 contested',
    );
    fold({ type: 'text', text: 'The answer' });
    expect(s.phase).toBe('consensus');
  });

  it('shows the cost once a usage event says what it is, marks an estimate, and says nothing of a cost nobody knows (never $0)', () => {
    let s = advanceProgress(initialProgress, { type: 'reasoning', text: 'Round 1/3 — proposals from A, B' });
    const usage = (cost_usd: number | null, cost_source: 'reported' | 'estimated' | 'unknown'): NsedEvent => ({
      type: 'usage',
      usage: { input_tokens: 1200, output_tokens: 300, cost_usd, cost_source },
    });
    s = advanceProgress(s, usage(null, 'unknown'));
    expect(progressLine(s, 3000)).toBe('proposing · round 1/3 · 3s');
    s = advanceProgress(s, usage(0.0421, 'reported'));
    expect(progressLine(s, 3000)).toBe('proposing · round 1/3 · 3s · $0.042');
    // The figures change when the next usage event fires.
    s = advanceProgress(s, usage(0.093, 'estimated'));
    expect(progressLine(s, 4000)).toBe('proposing · round 1/3 · 4s · $0.093 (estimated)');
  });

  it('the round line counts the wrong and contested claims of all candidates, in those words, only when there are some', () => {
    const e = { round: 2, total_rounds: 5, candidates: [candidate('A', 0.5)] };
    expect(roundLine(e)).toBe('round 2/5 · 1 candidate · leader A 0.50');
    expect(roundLine(e, { wrong: 1, contested: 3 })).toBe(
      'round 2/5 · 1 candidate · leader A 0.50 · all candidates: 1 wrong, 3 contested',
    );
  });
});

describe('-o final, json and ndjson show progress on a terminal stderr, and nothing off one', () => {
  it('a 0-column or dumb terminal gets plain lines: the round lines and one status line per phase and round', async () => {
    const { io, stdout, stderr } = memoryIO({ stderrTTY: true });
    await render('final', io, script, { showSessionHint: true, now: () => 0 });
    expect(stdout.text).toBe('Hello, world.\n');
    const got = lines(stderr.text);
    expect(got).toContain('proposing · round 1/5 · 0s · convergence 45%');
    expect(got).toContain('round 1/5 · 3 candidates · leader CortexA 0.47');
    expect(got).toContain('consensus · round 2/5 · 0s · convergence 45% · leader CortexA 0.90');
    expect(got.at(-1)).toBe(HINT);
  });

  it('a drawable terminal gets a spinner whose frames end in whole lines, then the answer and the hint', async () => {
    const { io, stdout } = memoryIO({ sharedTerminal: true });
    await render('final', io, script, { showSessionHint: true, now: () => 0 });
    const screen = renderScreen(stdout.text);
    expect(screen.slice(-2)).toEqual(['Hello, world.', HINT]);
    expect(screen).toContain('round 2/5 · 1 candidate · leader CortexA 0.90');
  });

  it('json on a terminal stderr: stdout is still one JSON document', async () => {
    const { io, stdout, stderr } = memoryIO({ stderrTTY: true });
    await render('json', io, script, { showSessionHint: true });
    expect(JSON.parse(stdout.text)).toMatchObject({ content: 'Hello, world.' });
    expect(lines(stderr.text)).toContain('round 1/5 · 3 candidates · leader CortexA 0.47');
  });

  it('stderr off a terminal, or -q: nothing at all on stderr, in every quiet-until-the-end mode', async () => {
    for (const mode of ['final', 'json', 'ndjson'] as const) {
      for (const opts of [{}, { stderrTTY: true, quiet: true }]) {
        const { io, stderr } = memoryIO(opts);
        await render(mode, io, script, { showSessionHint: true });
        expect(stderr.text, `${mode} ${JSON.stringify(opts)}`).toBe('');
      }
    }
  });

  it('no hint when the session is not saved (--no-save passes showSessionHint false)', async () => {
    const { io, stderr } = memoryIO({ stderrTTY: true });
    await render('final', io, script, { showSessionHint: false });
    expect(stderr.text).not.toContain('continue');
  });

  it('an error ends the status line and prints no hint', async () => {
    const { io, stderr } = memoryIO({ stderrTTY: true });
    const renderer = await createRenderer('final', io, { showSessionHint: true });
    for (const e of script.slice(0, 4)) renderer.onEvent(e);
    renderer.onEvent({
      type: 'error',
      code: 'network',
      exit_code: 6,
      message: 'reset',
      verdict: null,
      gate: null,
      status: null,
    });
    renderer.onEvent(finish);
    await renderer.close();
    await settle();
    expect(stderr.text).not.toContain('continue');
  });
});
