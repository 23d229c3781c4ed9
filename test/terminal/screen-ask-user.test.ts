// What a person sees when the council asks them a question (`--ask-user`, README "Giving the
// council tools") on a terminal (docs/reliability.md #165): the real CLI on a pseudo-terminal,
// drawn by a terminal emulator; the question waits for the person, who answers by typing.
import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { HAS_PTY, NO_PTY, onScreen, texts } from '../harness/screen.js';

const SPINNER = /[\u2800-\u28ff] \S/;
const WIDTHS = [40, 79, 120];
const QUESTION = 'Plan our database migration; ask me what matters';
const PROMPT = /^answer \(1-\d+ or text\)> /;

const rig = useRig({ toolWaitMs: 10 * 60_000 });

describe.skipIf(!HAS_PTY)(HAS_PTY ? '--ask-user on a terminal' : NO_PTY, () => {
  for (const columns of WIDTHS) {
    it(`puts the question on a clean screen, no status row over the prompt, and the typed choice stays as typed, at ${columns} columns (reliability #165)`, async () => {
      const run = onScreen(['ask', '-p', 'fast', '-o', 'final', '--ask-user', QUESTION], {
        columns,
        env: { NSED_HOME: rig.home, NSED_URL: rig.sim.url },
        stdout: 'pipe',
        live: SPINNER,
      });
      await run.until('the question and its prompt', (s) => s.rows.some((r) => PROMPT.test(r.text)));
      // Nothing draws over the question while it waits: no status row is on the screen.
      await run.until('the prompt with no status row', (s) => !s.rows.some((r) => SPINNER.test(r.text)));
      run.type('2\r');
      const r = await run.result;
      expect(r.code, texts(r.rows).join('\n')).toBe(0);
      expect(r.problems).toEqual([]);
      const screen = texts(r.rows).join('\n');
      expect(screen).toMatch(/the council asks: Which matters more/);
      // The prompt row keeps the answer as the person typed it, once.
      expect(r.rows.filter((row) => PROMPT.test(row.text)).map((row) => row.text.replace(PROMPT, ''))).toEqual(['2']);
      expect(r.rows.filter((row) => SPINNER.test(row.text))).toEqual([]);
      expect(r.cursor).toEqual({ x: 0, row: '' });
      expect(r.stdout).toContain('`ask_user` returned');
    });
  }
});
