import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, useRig } from '../harness/rig.js';

/**
 * A stream that closes without [DONE] after the first piece of the answer, whose /result then
 * says completed with another text (docs/reliability.md #26, #33, #160): the answer is
 * /result's, the turn is marked diverged, and one warning line says so in every output mode.
 */

const OTHER = 'The recorded answer, which is not what was streamed.';
const rig = useRig();
const homes: string[] = [];
beforeAll(async () => {
  rig.sim.setFaults([`all:eof-without-done;result-text=${OTHER}`]);
});
afterAll(async () => {
  await Promise.all(homes.map((h) => rm(h, { recursive: true, force: true })));
});

const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('nsed: warning:'));

/** `ask` in a store of its own, and the assistant turn it recorded. */
async function ask(mode: string): Promise<{ code: number; stdout: string; stderr: string; turn: unknown }> {
  const home = await mkdtemp(join(tmpdir(), 'nsed-eof-'));
  homes.push(home);
  const r = await rig.run(['-o', mode, 'ask', 'Design a cache'], { env: { NSED_HOME: home } });
  const [file] = (await readdir(join(home, 'sessions'))).filter((n) => n.endsWith('.json'));
  const stored = JSON.parse(await readFile(join(home, 'sessions', String(file)), 'utf8')) as {
    turns: Array<Record<string, unknown>>;
  };
  return { ...r, turn: stored.turns.find((t) => t['role'] === 'assistant') };
}

describe('a stream closed early whose /result answers another text (reliability #160)', () => {
  it.each(['text', 'final', 'json', 'ndjson'])(
    "-o %s: the answer kept and recorded is /result's, marked diverged, with one warning",
    async (mode) => {
      const r = await ask(mode);
      expect(r.code, r.stderr).toBe(0);
      expect(warnings(r.stderr), r.stderr).toHaveLength(1);
      expect(r.turn).toMatchObject({ status: 'complete', content: OTHER, diverged: true });
      if (mode === 'final') expect(r.stdout).toBe(`${OTHER}\n`);
      if (mode === 'json')
        expect(JSON.parse(r.stdout)).toMatchObject({ status: 'complete', content: OTHER, diverged: true });
      if (mode === 'ndjson')
        expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'finish', content: OTHER, diverged: true });
      // Text mode printed the streamed piece as it came: the warning says that is not the answer.
      if (mode === 'text') {
        expect(r.stdout).not.toContain(OTHER);
        expect(warnings(r.stderr)[0]).toContain('the text printed above is not the answer');
      }
    },
  );
});
