// The lines a turn prints on stderr as it goes (the session line, a line per scored round, the way
// on), as a person sees them on a terminal of 40, 79 and 120 columns: the real CLI on a
// pseudo-terminal, drawn by a terminal emulator. None is wider than the terminal, so none wraps
// where the terminal chooses (inside a word); a line too long for a row is broken by nsed between
// its ` · ` parts or its words, each row after the first indented, or shortened by dropping detail.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { HAS_PTY, laidOut, NO_PTY, onScreen, printedLines, texts } from '../harness/screen.js';

const SPINNER = /[\u2800-\u28ff] \S/;
const WIDTHS = [40, 79, 120];

const rig = useRig();

const SESSION = laidOut(String.raw`session \S+(?: · job \S+)? · policy nsed:\*`);
const ROUND = laidOut(
  String.raw`round \d/3 · 3 candidates(?: · convergence \d+%)? · leader \S+ \d\.\d\d(?: · all candidates: \d+ wrong, \d+ contested)?`,
);
const CONTINUE = laidOut(String.raw`session \S+ · continue: nsed continue -s \S+ "…"`);
const COST = laidOut(String.raw`cost \$[\d.]+(?: \(estimated\))? · [\d,]+ tokens in, [\d,]+ out`);

const MODES: Array<{ name: string; args: string[]; lines: RegExp[] }> = [
  { name: 'text mode', args: [], lines: [SESSION, ROUND, ROUND, ROUND, CONTINUE] },
  { name: '-o final', args: ['-o', 'final'], lines: [SESSION, ROUND, ROUND, ROUND, CONTINUE] },
  { name: '--progress plain', args: ['--progress', 'plain'], lines: [SESSION, ROUND, ROUND, ROUND, COST] },
];

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'progress lines on a terminal' : NO_PTY, () => {
  for (const mode of MODES)
    for (const columns of WIDTHS) {
      it(`${mode.name}: every line printed during the turn fits ${columns} columns, broken only between parts or words (reliability #165)`, async () => {
        const run = onScreen(['ask', ...mode.args, 'Plan the database migration'], {
          columns,
          env: { NSED_HOME: rig.home, NSED_URL: rig.sim.url },
          stdout: 'pipe',
          live: SPINNER,
        });
        const r = await run.result;
        const screen = texts(r.rows).join('\n');
        expect(r.code, screen).toBe(0);
        expect(r.problems).toEqual([]);
        expect(r.stdout).not.toBe('');
        // No row was wrapped by the terminal, and none reaches the last column.
        expect(r.rows.filter((row) => row.wrapped).map((row) => row.text)).toEqual([]);
        for (const row of r.rows) expect(stringWidth(row.text), row.text).toBeLessThan(columns);
        const lines = printedLines(r.rows);
        expect(lines.length, screen).toBe(mode.lines.length);
        lines.forEach((line, i) => expect(line).toMatch(mode.lines[i] ?? /^$/));
        // The widest terminal shows every line on one row, with all its detail.
        if (columns === 120) expect(r.rows.length, screen).toBe(mode.lines.length);
      });
    }
});
