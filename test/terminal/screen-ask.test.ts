// What a person at a terminal sees while `ask` deliberates (docs/reliability.md #165): the real CLI
// on a pseudo-terminal, its bytes drawn by a terminal emulator, the job held by the simulator
// so the spinner turns for as long as the test looks.
import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { HAS_PTY, laidOut, logicalLines, NO_PTY, onScreen, printedLines, texts } from '../harness/screen.js';

const SPINNER = /[\u2800-\u28ff] \S/;
const WIDTHS = [40, 79, 120];

const rig = useRig({ hold: true });

/** A person's environment: colour on, no NO_COLOR. */
const env = (): Record<string, string> => ({ NSED_HOME: rig.home, NSED_URL: rig.sim.url });

/**
 * `nsed ask` on a terminal of `columns`, its job held until the spinner has turned a dozen times,
 * then released: the run's screen once it ended clean (exit 0, no stray bytes, no spinner row left,
 * the cursor at the start of an empty row).
 */
async function heldAsk(columns: number, how: { stdout?: 'pipe' }) {
  const run = onScreen(['ask', '-p', 'fast', 'Plan the database migration'], {
    columns,
    env: env(),
    ...how,
    live: SPINNER,
  });
  const job = await rig.sim.control.nextJob();
  await run.until('the spinner turning while the job is held', (s) => s.liveFrames >= 12);
  rig.sim.control.release(job);
  const r = await run.result;
  expect(r.code, texts(r.rows).join('\n')).toBe(0);
  expect(r.problems).toEqual([]);
  expect(r.rows.filter((row) => SPINNER.test(row.text))).toEqual([]);
  expect(r.cursor).toEqual({ x: 0, row: '' });
  return r;
}

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'ask on a terminal' : NO_PTY, () => {
  for (const columns of WIDTHS) {
    it(`draws one status row that never wraps, no stray characters, and leaves nothing when it ends, at ${columns} columns (reliability #165)`, async () => {
      const r = await heldAsk(columns, { stdout: 'pipe' });
      expect(r.stdout).not.toBe('');
      // What is left is exactly the lines nsed printed, in whole words, laid out to the width:
      // the session, the round, the way on (test/terminal/screen-progress-lines.test.ts).
      expect(r.rows.filter((row) => row.wrapped)).toEqual([]);
      expect(printedLines(r.rows)).toEqual([
        expect.stringMatching(laidOut(String.raw`session \S+(?: · job \S+)? · policy nsed:fast`)),
        expect.stringMatching(
          laidOut(String.raw`round 1/1 · 3 candidates · leader \S+ [\d.]+ · all candidates: \d+ wrong, \d+ contested`),
        ),
        expect.stringMatching(laidOut(String.raw`session \S+ · continue: nsed continue -s \S+ "…"`)),
      ]);
    });

    it(`with the answer on the same terminal, the answer's lines are never cut into by the status row, at ${columns} columns (reliability #165)`, async () => {
      const r = await heldAsk(columns, {});
      // The answer as the simulator wrote it is on the screen, its lines whole.
      const answer = await rig.run(['sessions', 'show', '--last', '-o', 'final']);
      const lines = logicalLines(r.rows);
      const answerLines = answer.stdout.split('\n').filter((x) => x.trim() !== '');
      expect(answerLines.length).toBeGreaterThan(0);
      for (const l of answerLines) expect(lines).toContain(l);
    });
  }
});
