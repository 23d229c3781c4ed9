import type { EventOf, NsedEvent } from '../events/events.js';
import { asIs, type RowFitter } from '../terminal/fit-rows.js';
import type { IO } from '../terminal/io.js';
import { safeWriter } from '../terminal/safe-writer.js';
import { oneLine } from '../terminal/sanitize.js';
import type { GateCheck, GateResult } from '../council/verdict.js';
import { GATE_MEASURE } from './gate-lines.js';
import { leaderText, roundClaims, roundClaimsText } from './progress-state.js';
import type { Renderer } from './renderer-types.js';
import { usageWords } from './usage-words.js';

/** The milestone after a scored round: `Round 3 complete — convergence: 81%` (docs/ndjson.md, `reasoning`). */
const MILESTONE = /\bround\s+(\d+)\b.*?convergence:?\s*(\d+(?:\.\d+)?)\s*%/i;

/**
 * `round 2/5 · 3 candidates · convergence 81% · leader CortexA 0.82 · all candidates: 0 wrong,
 * 1 contested`: one line per scored round; the counts of all candidates' claims are there even when 0, and
 * the convergence only when the server reported it for this round.
 */
export function plainRoundLine(e: EventOf<'round'>, convergence: number | undefined): string {
  const n = e.candidates.length;
  const parts = [`round ${e.round}/${e.total_rounds}`, `${n} candidate${n === 1 ? '' : 's'}`];
  if (convergence !== undefined) parts.push(`convergence ${Math.round(convergence * 100)}%`);
  const leader = leaderText(e);
  if (leader !== undefined) parts.push(leader);
  parts.push(roundClaimsText(roundClaims(e)));
  return parts.join(' · ');
}

const OP: Record<GateCheck['name'], string> = {
  'min-convergence': '>=',
  'max-wrong': '<=',
  'max-contested': '<=',
  'min-score': '>=',
  'min-margin': '>=',
  'min-agreement': '>=',
  'min-endorse': '>=',
  'min-endorse-share': '>=',
  'max-synthetic': '<=',
  'max-cost': '<=',
};

/** `gate max-wrong <= 0 (wrong claims of the chosen proposal): actual 2 · fail` per check, then `gate fail: 1 of 3 checks failed`. */
export function gateProgressLines(gate: GateResult): string[] {
  const lines = gate.checks.map((c) => {
    const actual = c.actual === null ? 'not reported' : String(c.actual);
    return `gate ${c.name} ${OP[c.name] ?? ''} ${c.expected} (${GATE_MEASURE[c.name]}): actual ${actual} · ${c.status}`;
  });
  const failed = gate.checks.filter((c) => c.status === 'fail').length;
  const open = gate.checks.filter((c) => c.status === 'inconclusive').length;
  const n = gate.checks.length;
  const tally = [`${failed} of ${n} check${n === 1 ? '' : 's'} failed`, ...(open > 0 ? [`${open} inconclusive`] : [])];
  lines.push(`gate ${gate.status}: ${tally.join(', ')}`);
  return lines;
}

/**
 * The lines text mode prints for the other events, without its styling (this module stays
 * free of the terminal's colour and spinner libraries: CI runs load neither).
 */
function plainNote(e: NsedEvent, start: EventOf<'turn-start'> | undefined): string | undefined {
  switch (e.type) {
    case 'job':
      return start === undefined
        ? `job ${oneLine(e.job_id, 80)}`
        : `session ${oneLine(start.session, 80)} · job ${oneLine(e.job_id, 80)} · ${start.agents === null ? `policy ${oneLine(start.policy ?? '*', 80)}` : `agents ${oneLine(start.agents.join(', '), 80)}`}`;
    case 'injection':
      return `injected at round ${e.round} (#${e.sequence}): ${oneLine(e.message, 80)}`;
    case 'finalized':
      return `finalized · ${oneLine(e.chosen_agent_id, 40)} chosen at round ${e.round}`;
    case 'tool-call':
      return `tool call ${oneLine(e.name, 60)} ${oneLine(e.arguments, 80)} · ${oneLine(e.id, 60)}`;
    case 'tool-result':
      return `tool result ${oneLine(e.name, 60)} · ${e.status}${e.exit_code === null ? '' : ` · exit ${e.exit_code}`}`;
    case 'reconnect':
      return `reconnecting (attempt ${e.attempt}): ${oneLine(e.reason)}`;
    default:
      return undefined;
  }
}

/**
 * `--progress plain`: progress as plain lines on stderr in every output mode, for a CI log that
 * is not a terminal: the session, job and policy, one line per scored round, the other notes
 * of text mode (injections, tool calls, reconnects), and what the turn cost when that changes. No colour, no spinner, no line rewritten.
 * A round's line waits for the event after it, the milestone that may carry its convergence.
 * `rows` lays each line out for a terminal's width (plain lines asked for on a terminal); a
 * log gets every line whole.
 */
export function plainProgress(inner: Renderer, io: IO, rows: RowFitter = asIs): Renderer {
  const err = safeWriter(io.stderr);
  let start: EventOf<'turn-start'> | undefined;
  let round: EventOf<'round'> | undefined;
  /** The last cost line written: a usage event that changes nothing adds no line. */
  let spent = '';
  const write = (line: string): void => void err.write(`${rows(line).join('\n')}\n`);
  const flushRound = (convergence?: number): void => {
    if (round !== undefined) write(plainRoundLine(round, convergence));
    round = undefined;
  };

  const onEvent = (e: NsedEvent): void => {
    if (e.type === 'turn-start') start = e;
    if (e.type === 'reasoning' && round !== undefined) {
      const m = MILESTONE.exec(e.text);
      flushRound(m !== null && Number(m[1]) === round.round ? Number(m[2]) / 100 : undefined);
    } else if (e.type === 'round' && e.scored) {
      flushRound();
      round = e;
    } else if (e.type === 'usage') {
      // What the turn has cost, each time the figures change (docs/ndjson.md §4d); an unknown
      // cost is said to be unknown, so a CI log never reads it as free.
      flushRound();
      const line = usageWords(e.usage);
      if (line !== spent) write(line);
      spent = line;
    } else if (e.type !== 'round') {
      flushRound();
      const note = plainNote(e, start);
      if (note !== undefined) write(note);
    }
    inner.onEvent(e);
  };

  return {
    onEvent,
    async close() {
      flushRound();
      await Promise.all([inner.close(), err.drain()]);
    },
  };
}
