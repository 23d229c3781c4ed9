// What a person at a terminal sees while `nsed batch` runs (docs/reliability.md #165): the live bar
// on a pseudo-terminal, drawn by a terminal emulator, each item held by the simulator until the
// test has seen the bar count it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { HAS_PTY, NO_PTY, onScreen, texts } from '../harness/screen.js';

const BAR = /\d+\/\d+ · \d+ running/;
const WIDTHS = [40, 79, 120];

const rig = useRig({ hold: true });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-screen-batch-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'a batch on a terminal' : NO_PTY, () => {
  for (const columns of WIDTHS) {
    it(`draws one bar that never wraps, no stray characters, and leaves only its summary when it ends, at ${columns} columns (reliability #165)`, async () => {
      const items = join(dir, `items-${columns}.txt`);
      await writeFile(items, 'Plan the database migration\nName the risks\nSay what to test first\n');
      const run = onScreen(['batch', items, '-j', '1', '-p', 'fast'], {
        columns,
        env: { NSED_HOME: rig.home, NSED_URL: rig.sim.url },
        stdout: 'pipe',
        live: BAR,
      });
      for (let done = 0; done < 3; done++) {
        const job = await rig.sim.control.nextJob();
        await run.until(`the bar counting ${done} done`, (s) =>
          s.rows.some((r) => BAR.test(r.text) && r.text.includes(`${done}/3 · 1 running`)),
        );
        rig.sim.control.release(job);
      }
      const r = await run.result;
      expect(r.code, texts(r.rows).join('\n')).toBe(0);
      expect(r.problems).toEqual([]);
      expect(r.rows.filter((row) => BAR.test(row.text))).toEqual([]);
      expect(r.cursor).toEqual({ x: 0, row: '' });
      // Where the bar was, the summary: the whole screen is that one line.
      expect(texts(r.rows).join('')).toMatch(/^batch \S+: 3\/3 items in \S+: 3 ok; cost \$[\d.]+$/);
      expect(r.stdout.trim().split('\n')).toHaveLength(3);
    });
  }
});
