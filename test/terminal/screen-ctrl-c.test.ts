// What a person is left looking at after Ctrl-C while the status row is drawn
// (docs/reliability.md #42, #119, #165): the real CLI on a pseudo-terminal whose line discipline
// echoes `^C` where the cursor is, as a real terminal's does, drawn by a terminal emulator. The job is held by
// the simulator after its first scored round, so the row is as long as it gets (cut to the width at
// 40 and 79 columns) when the key is typed: an echo that wrapped there would move the cursor to a
// new row, the erase would clear that one, and the row would stay on the screen for good.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { liveRowRoom } from '../../src/terminal/fit-rows.js';
import { until } from '../harness/sse.js';
import { useRig } from '../harness/rig.js';
import { HAS_PTY, NO_PTY, onScreen, texts, type ScreenResult, type ScreenRun } from '../harness/screen.js';

const SPINNER = /[\u2800-\u28ff] \S/;
const WIDTHS = [40, 79, 120];

const rig = useRig({ hold: true });

/** A person's environment: colour on, no NO_COLOR. */
const env = (): Record<string, string> => ({ NSED_HOME: rig.home, NSED_URL: rig.sim.url });

/**
 * Waits until the first scored round is printed and the status row has been drawn twice since
 * (so it shows that round), and returns the row as drawn: what the Ctrl-C will be typed after.
 */
async function rowAfterRound(run: ScreenRun): Promise<string> {
  let row = '';
  let framesAtRound: number | undefined;
  await run.until('the status row after the first scored round', (s) => {
    if (framesAtRound === undefined && s.rows.some((r) => /^round 1\/\d+ · /.test(r.text)))
      framesAtRound = s.liveFrames;
    row = s.rows.find((r) => SPINNER.test(r.text))?.text ?? '';
    return framesAtRound !== undefined && s.liveFrames >= framesAtRound + 2 && row !== '';
  });
  return row;
}

/** The row reached the width it may take, where the bug lived; at 120 the row is shorter than that. */
function expectRowAtTheEdge(row: string, columns: number): void {
  if (columns < 100) expect(stringWidth(row), row).toBe(liveRowRoom(columns));
  else expect(stringWidth(row), row).toBeLessThanOrEqual(liveRowRoom(columns));
}

/** The screen once the run ended on the Ctrl-C: the echo was made, and nothing of the row is left. */
function expectNoFrozenRow(r: ScreenResult): void {
  expect(r.code, texts(r.rows).join('\n')).toBe(ExitCode.interrupted);
  expect(r.problems).toEqual([]);
  // The terminal did echo the key: the test saw what a person's terminal does.
  expect(r.drawn).toContain('^C');
  expect(
    r.rows.filter((row) => SPINNER.test(row.text) || row.text.includes('^')),
    texts(r.rows).join('\n'),
  ).toEqual([]);
  expect(r.cursor).toEqual({ x: 0, row: '' });
}

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'Ctrl-C on a terminal that echoes it' : NO_PTY, () => {
  for (const columns of WIDTHS) {
    it(`ask: the status row is gone after Ctrl-C, the ^C echo with it, at ${columns} columns (reliability #42, #165)`, async () => {
      const run = onScreen(['ask', 'Plan the database migration'], {
        columns,
        env: env(),
        stdout: 'pipe',
        live: SPINNER,
      });
      const job = await rig.sim.control.nextJob();
      // Round 1 runs (its proposals, then its evaluations) and the job waits at the next boundary.
      rig.sim.control.release(job, 2);
      expectRowAtTheEdge(await rowAfterRound(run), columns);
      run.type('\x03');
      const r = await run.result;
      rig.sim.control.release(job);
      expectNoFrozenRow(r);
      expect(texts(r.rows).join('\n')).toContain('nsed resume -s');
    });

    it(`watch: the status row is gone after Ctrl-C, the ^C echo with it, at ${columns} columns (reliability #119, #165)`, async () => {
      const owner = rig.start(['ask', 'Plan the database migration']);
      const job = await rig.sim.control.nextJob();
      await owner.output((o) => o.includes('session '));
      const before = rig.sim.requests.length;
      const run = onScreen(['watch', '--last'], { columns, env: env(), stdout: 'terminal', live: SPINNER });
      // The watch follows the job before it moves on, so it sees the round as it is scored.
      await until(() => rig.sim.requests.slice(before).some((q) => q.path === `/deliberation/${job}/resume`));
      rig.sim.control.release(job, 2);
      expectRowAtTheEdge(await rowAfterRound(run), columns);
      run.type('\x03');
      const r = await run.result;
      rig.sim.control.release(job);
      expectNoFrozenRow(r);
      expect(texts(r.rows).join('\n')).toContain('stopped watching');
      expect((await owner.result).code).toBe(0);
    });
  }
});
