import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { haveScript, onTerminal } from './pty.js';

const rig = useRig();

describe.skipIf(!haveScript)('a terminal worth watching (on a pseudo-terminal via script)', () => {
  it('-o final shows the phase, round, convergence, leader and contested claims while it runs, then the answer and the continue hint', async () => {
    const r = await onTerminal(rig, ['ask', '-o', 'final', 'Design a cache']);
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/^proposing · round 1\/3 · \d+s$/m);
    expect(r.screen).toMatch(
      /^round 1\/3 · 3 candidates · leader \S+ \d\.\d\d( · all candidates: \d+ wrong, \d+ contested)?$/m,
    );
    expect(r.screen).toMatch(/^evaluating · round 2\/3 · \d+s · convergence \d+% · leader \S+ \d\.\d\d/m);
    expect(r.screen).toMatch(/^consensus · round 3\/3 · /m);
    const hint = /^session (\S+) · continue: nsed continue -s (\S+) "…"$/m.exec(r.screen);
    expect(hint?.[1]).toBe(hint?.[2]);
    expect(r.screen.indexOf('## Design a cache')).toBeLessThan(r.screen.indexOf('continue: nsed continue'));
  });

  it('-o json on a terminal: progress too, and the hint after the document', async () => {
    const r = await onTerminal(rig, ['ask', '-o', 'json', 'Design a cache']);
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/^consensus · round 3\/3 · /m);
    expect(r.screen).toMatch(/^\{"session":/m);
    expect(r.screen).toMatch(/continue: nsed continue -s \S+ "…"\n$/);
  });

  it('text mode on a terminal ends with the continue hint', async () => {
    const r = await onTerminal(rig, ['ask', 'Design a cache']);
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/continue: nsed continue -s \S+ "…"\n$/);
  });

  it('--no-save and -q show no continue hint', async () => {
    for (const flag of ['--no-save', '-q']) {
      const r = await onTerminal(rig, ['ask', flag, '-o', 'final', 'Design a cache']);
      expect(r.code, flag).toBe(0);
      expect(r.screen, flag).not.toContain('continue:');
    }
  });
});

describe('off a terminal', () => {
  it('piped, -o final and text print no progress and no continue hint on stderr', async () => {
    const final = await rig.run(['ask', '-o', 'final', 'Design a cache']);
    expect(final.code).toBe(0);
    expect(final.stderr).toBe('');
    const text = await rig.run(['ask', 'Design a cache']);
    expect(text.code).toBe(0);
    expect(text.stderr).not.toContain('continue');
    expect(text.stderr).not.toMatch(/proposing|evaluating|consensus/);
  });
});
