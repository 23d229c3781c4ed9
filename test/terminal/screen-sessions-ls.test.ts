// `sessions ls` on terminals of three widths (docs/reliability.md #165): the real CLI on a
// pseudo-terminal, drawn by a terminal emulator; one row per session, none wrapped, as gh's tables.
import { beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';
import { HAS_PTY, NO_PTY, onScreen, texts } from '../harness/screen.js';

const QUESTIONS = [
  'Plan the database migration from the old cluster to the new one, keeping the API running',
  'Name the risks',
  'Schätze die Kosten für den Umzug der Datenbank auf den neuen Cluster und begründe sie',
];

const rig = useRig();
let ids: string[];
beforeAll(async () => {
  ids = [];
  for (const q of QUESTIONS) {
    const r = await rig.run(['ask', '-p', 'fast', q]);
    expect(r.code, r.stderr).toBe(0);
    ids.push(/session (\S+)/.exec(r.stderr)?.[1] ?? '');
  }
});

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'sessions ls on a terminal' : NO_PTY, () => {
  for (const columns of [40, 79, 120])
    it(`shows one row per session, none wrapped, titles cut to fit and ids whole, at ${columns} columns (reliability #165)`, async () => {
      const r = await onScreen(['sessions', 'ls'], {
        columns,
        env: { NSED_HOME: rig.home, NSED_URL: rig.sim.url },
      }).result;
      expect(r.code, texts(r.rows).join('\n')).toBe(0);
      expect(r.problems).toEqual([]);
      expect(r.rows.filter((row) => row.wrapped)).toEqual([]);
      expect(r.rows).toHaveLength(1 + QUESTIONS.length);
      expect(r.rows[0]?.text).toMatch(/^ID +TITLE +/);
      // Newest first: every id whole at the start of its row, and the long titles cut with '…'.
      expect(r.rows.slice(1).map((row) => row.text.split(' ')[0])).toEqual([...ids].reverse());
      expect(r.rows.filter((row) => row.text.includes('…'))).toHaveLength(2);
    });
});
