// What a person at a terminal sees while `resume` and `watch` follow a deliberation that another
// run started (docs/reliability.md #165): the real CLI on a pseudo-terminal, drawn by a terminal
// emulator, the job held by the simulator so the spinner turns for as long as the test looks.
import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { HAS_PTY, NO_PTY, onScreen, texts, type ScreenResult } from '../harness/screen.js';

const SPINNER = /[\u2800-\u28ff] \S/;
const WIDTHS = [40, 79, 120];

const rig = useRig({ hold: true });

/** A person's environment: colour on, no NO_COLOR. */
const env = (): Record<string, string> => ({ NSED_HOME: rig.home, NSED_URL: rig.sim.url });

/** The end of a clean run: exit 0, no problem seen on the way, no status row left, the cursor on an empty row. */
function expectCleanEnd(r: ScreenResult): void {
  expect(r.code, texts(r.rows).join('\n')).toBe(0);
  expect(r.problems).toEqual([]);
  expect(r.rows.filter((row) => SPINNER.test(row.text))).toEqual([]);
  expect(r.cursor).toEqual({ x: 0, row: '' });
}

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'following a deliberation on a terminal' : NO_PTY, () => {
  for (const columns of WIDTHS) {
    it(`resume: one status row that never wraps, no stray characters, nothing left when it ends, at ${columns} columns (reliability #165)`, async () => {
      // The first run detaches while the job is held (a Ctrl-C), leaving the turn to resume.
      const first = rig.start(['ask', '-p', 'fast', 'Plan the database migration']);
      const job = await rig.sim.control.nextJob();
      await first.output((o) => o.includes('session '));
      first.interrupt();
      expect((await first.result).code).toBe(130);

      const run = onScreen(['resume', '--last'], { columns, env: env(), stdout: 'pipe', live: SPINNER });
      await run.until('the spinner turning while the job is held', (s) => s.liveFrames >= 12);
      rig.sim.control.release(job);
      const r = await run.result;
      expectCleanEnd(r);
      expect(r.stdout).not.toBe('');
    });

    it(`watch: one status row that never wraps, no stray characters, nothing left when it ends, at ${columns} columns (reliability #165)`, async () => {
      const owner = rig.start(['ask', '-p', 'fast', 'Plan the database migration']);
      const job = await rig.sim.control.nextJob();
      await owner.output((o) => o.includes('session '));

      const run = onScreen(['watch', '--last'], { columns, env: env(), stdout: 'terminal', live: SPINNER });
      await run.until('the spinner turning while the job is held', (s) => s.liveFrames >= 12);
      rig.sim.control.release(job);
      const r = await run.result;
      expectCleanEnd(r);
      expect((await owner.result).code).toBe(0);
    });
  }
});
