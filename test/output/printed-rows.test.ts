// Every kind of line a turn prints on a terminal's stderr (the session line, rounds, injections,
// tool calls and results, reconnects, a schema retry, the pick, the way on), through each
// renderer that prints them, drawn on a terminal emulator of 40, 79 and 120 columns: no row wider
// than the terminal, and every row made of whole words of the line, in order (detail dropped at
// most, never a word cut in two across rows). Under `watch --agent` the counts name the agents.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { EventOf, NsedEvent } from '../../src/events/events.js';
import type { RendererOptions } from '../../src/output/renderer.js';
import { drawOn, type Row } from '../harness/screen.js';
import { memoryIO } from '../terminal/memory-io.js';
import { candidate, finish, render, turnStart } from './script.js';

const WIDTHS = [40, 79, 120];

const claimed = (agent: string, score: number, verdicts: Array<'wrong' | 'contested'>) => ({
  ...candidate(agent, score),
  claims: verdicts.map((verdict, i) => ({ claim: `claim ${i}`, verdict })),
});

/** A turn that earns every kind of printed line, each longer than 40 columns. */
const turn: NsedEvent[] = [
  { ...(turnStart as EventOf<'turn-start'>), session: '20261206-065aaef7', policy: 'nsed:fast' },
  { type: 'job', job_id: 'oc-thread-8e37eda1e713d06add4f1989c2f4e248-1796533826232' },
  {
    type: 'round',
    round: 1,
    total_rounds: 3,
    progress: 0.3,
    scored: true,
    candidates: [claimed('CortexA', 0.47, ['wrong', 'contested']), claimed('CortexC', 0.39, ['contested'])],
  },
  {
    type: 'injection',
    message: 'keep the old schema readable until every reader has moved over',
    round: 2,
    sequence: 1,
  },
  { type: 'tool-call', id: 'call-7f3a9c', name: 'calculator', arguments: '{"expression": "3 * (4 + 5) / 7 - 12"}' },
  {
    type: 'tool-result',
    id: 'call-7f3a9c',
    name: 'calculator',
    content: 'the expression evaluates to -8.142857142857142',
    exit_code: 0,
    status: 'ok',
    duration_ms: 12,
  },
  { type: 'reconnect', attempt: 1, reason: 'the stream ended before the deliberation finished (no [DONE])' },
  {
    type: 'schema-retry',
    turn: 't2',
    attempt: 1,
    retries: 2,
    errors: [{ path: '/score', message: 'must be number' }],
  },
  { type: 'finalized', chosen_agent_id: 'CortexA', round: 2 },
  { type: 'text', text: 'The plan.' },
  { ...(finish as EventOf<'finish'>), session: '20261206-065aaef7' },
];

const RENDERERS: Array<{ name: string; mode: 'text' | 'final'; opts: RendererOptions }> = [
  { name: 'text mode', mode: 'text', opts: { showSessionHint: true } },
  { name: '-o final', mode: 'final', opts: { showSessionHint: true } },
  { name: '--progress plain', mode: 'final', opts: { progress: 'plain' } },
];

/** What a renderer writes on the stderr of a terminal `columns` wide (colour off, no spinner). */
async function stderrAt(columns: number, mode: 'text' | 'final', opts: RendererOptions, events = turn) {
  const { io, stderr } = memoryIO({ stderrTTY: true });
  stderr.columns = columns;
  await render(mode, io, events, opts);
  return stderr.text;
}

/** The rows grouped into the lines nsed printed: a row that starts indented continues the one above. */
function printedLines(rows: readonly Row[]): string[][] {
  const out: string[][] = [];
  for (const r of rows) {
    const last = out.at(-1);
    if (r.text.startsWith('  ') && last !== undefined) last.push(r.text);
    else out.push([r.text]);
  }
  return out;
}

const words = (text: string): string[] => text.split(/\s+/).filter((w) => w !== '' && w !== '·');

/** Whether `part` is `whole` with some words left out, the rest in order and each whole. */
function isSubsequence(part: readonly string[], whole: readonly string[]): boolean {
  let i = 0;
  for (const w of whole) if (w === part[i]) i++;
  return i === part.length;
}

describe('every line printed during a turn, at a terminal width', () => {
  for (const { name, mode, opts } of RENDERERS)
    for (const columns of WIDTHS) {
      it(`${name}: fits ${columns} columns, in whole words, each line's rows together`, async () => {
        // The lines as written on a terminal wide enough for all of them.
        const whole = (await stderrAt(10_000, mode, opts)).split('\n').filter((l) => l !== '');
        expect(whole.length).toBeGreaterThanOrEqual(7);
        // A terminal's line discipline turns each \n into \r\n (ONLCR) on the way to the screen.
        const rows = await drawOn((await stderrAt(columns, mode, opts)).replaceAll('\n', '\r\n'), columns, 80);
        expect(rows.filter((r) => r.wrapped).map((r) => r.text)).toEqual([]);
        for (const r of rows) expect(stringWidth(r.text), r.text).toBeLessThan(columns);
        const lines = printedLines(rows);
        expect(lines.length, rows.map((r) => r.text).join('\n')).toBe(whole.length);
        lines.forEach((line, i) => {
          const shown = line.flatMap(words);
          expect(isSubsequence(shown, words(whole[i] ?? '')), `${line.join('\n')}\nof\n${whole[i]}`).toBe(true);
          // Only detail goes: the line still starts as it did.
          expect(shown[0]).toBe(words(whole[i] ?? '')[0]);
        });
        if (columns === 120)
          expect(lines.filter((l) => l.length > 1).map((l) => l.join('\n'))).toEqual(
            // At 120 only lines longer than that are broken.
            lines.filter((_, i) => (whole[i] ?? '').length >= 120).map((l) => l.join('\n')),
          );
      });
    }

  it("under watch --agent, a round's counts say they are the selected agents' claims, in every renderer", async () => {
    const selected: NsedEvent = {
      type: 'round',
      round: 2,
      total_rounds: 3,
      progress: 0.6,
      scored: true,
      candidates: [claimed('CortexB', 0.61, ['wrong', 'contested', 'contested'])],
      leader: { agent_id: 'CortexA', score: 0.82 },
    };
    for (const { name, mode, opts } of RENDERERS) {
      const text = await stderrAt(10_000, mode, opts, [turnStart, selected, finish]);
      expect(text, name).toContain('CortexB 0.61 · leader CortexA 0.82 · claims of CortexB: 1 wrong, 2 contested');
      expect(text, name).not.toContain('all candidates');
    }
  });
});
