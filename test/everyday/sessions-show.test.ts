import { chmod, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { convergenceByRound, roundPicture, sparkline } from '../../src/output/round-picture.js';
import { parseNdjson, useRig } from '../harness/rig.js';
import { candidate } from '../output/script.js';
import { haveScript, onTerminal } from './pty.js';

const rig = useRig();
let id: string;
let pager: string;
let paged: string;
beforeAll(async () => {
  const r = await rig.run(['ask', '-o', 'json', 'Design a cache']);
  id = (JSON.parse(r.stdout) as { session: string }).session;
  // A fake pager that records what it was given, and shows it, as less -FRX would on a short text.
  pager = join(rig.home, 'pager.sh');
  paged = join(rig.home, 'paged.txt');
  await writeFile(pager, `#!/bin/sh\ntee "${paged}"\n`);
  await chmod(pager, 0o755);
});

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('the round picture', () => {
  it('draws a score as one of eight blocks, clamped to [0, 1], a gap where an agent sat out', () => {
    expect(sparkline([0, 0.5, 1, -0.4, 2, undefined])).toBe('▁▅█▁█ ');
  });

  it('reads convergence per round from the reasoning milestones', () => {
    const got = convergenceByRound('Round 1 complete — convergence: 45%\nRound 2 complete — convergence: 63%');
    expect([...got]).toEqual([
      [1, 0.45],
      [2, 0.63],
    ]);
  });

  it('a row per agent across rounds, a star on the final leader, then convergence', () => {
    const rounds = [
      {
        round: 1,
        total_rounds: 2,
        progress: 0.5,
        scored: true,
        candidates: [candidate('CortexA', 0.2), candidate('CortexB', 0.6)],
      },
      {
        round: 2,
        total_rounds: 2,
        progress: 1,
        scored: true,
        candidates: [candidate('CortexA', 0.9), candidate('CortexB', 0.5)],
      },
    ];
    const lines = roundPicture(rounds, 'Round 1 complete — convergence: 40%\nRound 2 complete — convergence: 80%');
    expect(lines).toEqual([
      '  round               1    2',
      '  CortexA     ▂▇   0.20 0.90 ★',
      '  CortexB     ▅▅   0.60 0.50',
      '  convergence ▄▇    40%  80%',
    ]);
  });
});

describe('sessions show and export', () => {
  it('show --last and export --last name the most recent session', async () => {
    const show = await rig.run(['sessions', 'show', '--last']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`session ${id}`);
    const exp = await rig.run(['sessions', 'export', '--last', '--format', 'json']);
    expect(exp.code).toBe(0);
    expect((JSON.parse(exp.stdout) as { id: string }).id).toBe(id);
    const none = await rig.run(['sessions', 'show']);
    expect(none.code).toBe(2);
    expect(none.stderr.split('\n')[0]).toBe('nsed: name a session: an id, -s ID or --last');
  });

  it('-o ndjson is honoured (the export schema), -o final prints the last answer', async () => {
    const nd = await rig.run(['sessions', 'show', id, '-o', 'ndjson']);
    expect(nd.code).toBe(0);
    const events = parseNdjson(nd.stdout);
    expect(events.length).toBeGreaterThan(2);
    expect(events.at(-1)).toMatchObject({ type: 'finish' });
    const final = await rig.run(['sessions', 'show', id, '-o', 'final']);
    expect(final.code).toBe(0);
    expect(final.stdout.startsWith('## Design a cache')).toBe(true);
    expect(final.stdout).not.toContain(`session ${id}`);
  });

  it('piped, --rounds writes the rounds as text, without the picture and without a pager', async () => {
    await rm(paged, { force: true });
    const r = await rig.run(['sessions', 'show', id, '--rounds'], { env: { NSED_PAGER: pager } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}round 1\/3 · 3 candidates$/m);
    expect(r.stdout).not.toContain('★');
    expect(await exists(paged)).toBe(false);
  });

  it.skipIf(!haveScript)('on a terminal, --rounds draws the picture and goes through $NSED_PAGER', async () => {
    await rm(paged, { force: true });
    const r = await onTerminal(rig, ['sessions', 'show', id, '--rounds'], { NSED_PAGER: pager, PAGER: 'false' });
    expect(r.code).toBe(0);
    const text = await readFile(paged, 'utf8');
    expect(text).toMatch(/^ {2}Cortex\S+ +[▁▂▃▄▅▆▇█]{3} +(\d\.\d\d ?){3}/m);
    expect(text).toContain('★');
    expect(text).toMatch(/^ {2}convergence +[▁▂▃▄▅▆▇█]{3} +\d+%/m);
    expect(r.screen).toContain('★');
  });

  it.skipIf(!haveScript)(
    '$PAGER is used when NSED_PAGER is unset; a pager that cannot start falls back to plain output',
    async () => {
      await rm(paged, { force: true });
      const r = await onTerminal(rig, ['sessions', 'show', id], { PAGER: pager });
      expect(r.code).toBe(0);
      expect(await readFile(paged, 'utf8')).toContain(`session ${id}`);
      const missing = await onTerminal(rig, ['sessions', 'show', id], { NSED_PAGER: '/nonexistent/pager' });
      expect(missing.code).toBe(0);
      expect(missing.screen).toContain(`session ${id}`);
    },
  );
});
