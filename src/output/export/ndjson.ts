import { NDJSON_SCHEMA_VERSION, type NsedEvent, type ToolResultStatus } from '../../events/events.js';
import { ExitCode } from '../../errors.js';
import type { RecordedToolCall, Session } from '../../session/index.js';
import { toJsonLine } from '../ndjson.js';
import { sessionDocument, type TurnDocument } from './json.js';

/** A line of the NDJSON contract: an event plus `v` and `seq`. */
export type NdjsonLine = NsedEvent & { v: number; seq: number };

/**
 * `export --format ndjson`: every assistant turn replayed as the events a live `-o ndjson` run
 * of that turn printed, in the same schema: turn-start, job, reasoning (one event per
 * milestone), the scored rounds as recorded with the turn's injections among them, text (the
 * whole answer as one event), tool-call, and finish, or error for a turn that did not
 * complete. `seq` starts at 1 for each turn, as it does for each live run.
 */
export function ndjsonExport(s: Session): string {
  return exportEvents(s)
    .map((line) => toJsonLine(line))
    .join('');
}

export function exportEvents(s: Session): NdjsonLine[] {
  const doc = sessionDocument(s);
  const lines: NdjsonLine[] = [];
  for (const t of doc.turns) {
    if (t.role !== 'assistant' || t.kind !== 'message') continue;
    const injections = doc.turns.filter((i) => i.kind === 'injection' && i.job_id !== null && i.job_id === t.job_id);
    turnEvents(doc.id, doc.policy, doc.orchestrator ?? '', t, injections).forEach((e, i) =>
      lines.push({ v: NDJSON_SCHEMA_VERSION, seq: i + 1, ...e }),
    );
  }
  return lines;
}

function turnEvents(
  session: string,
  policy: string | null,
  url: string,
  t: TurnDocument,
  injections: TurnDocument[],
): NsedEvent[] {
  const events: NsedEvent[] = [
    {
      type: 'turn-start',
      session,
      turn: t.id,
      policy: t.agents !== null ? null : (t.policy ?? policy),
      agents: t.agents,
      path: t.path ?? 'compat',
      url,
    },
  ];
  if (t.job_id !== null) events.push({ type: 'job', job_id: t.job_id });
  // One event per recorded milestone, as the live run printed them.
  for (const line of (t.reasoning ?? '').split('\n')) if (line !== '') events.push({ type: 'reasoning', text: line });
  const landing = (i: TurnDocument): number => i.injection?.round ?? 0;
  const injectionEvent = (i: TurnDocument): NsedEvent => ({
    type: 'injection',
    message: i.content,
    round: landing(i),
    sequence: i.injection?.sequence ?? 0,
  });
  let rest = [...injections].sort((a, b) => (a.injection?.sequence ?? 0) - (b.injection?.sequence ?? 0));
  for (const r of t.rounds) {
    // A live stream shows an injection at the phase boundary where it lands: before that round's summary.
    events.push(...rest.filter((i) => landing(i) <= r.round).map(injectionEvent));
    rest = rest.filter((i) => landing(i) > r.round);
    events.push({
      type: 'round',
      round: r.round,
      total_rounds: r.total_rounds,
      progress: r.progress,
      scored: r.scored,
      candidates: r.candidates,
      ...(r.convergence === undefined ? {} : { convergence: r.convergence }),
      ...(r.decisiveness === undefined ? {} : { decisiveness: r.decisiveness }),
    });
  }
  events.push(...rest.map(injectionEvent));
  // Calls come before the answer, as live: the council answers once their results are in.
  for (const c of t.tool_calls) {
    events.push({ type: 'tool-call', id: c.id, name: c.name, arguments: c.arguments });
    if (c.status !== undefined) events.push(toolResultEvent(c));
  }
  if (t.content !== '') events.push({ type: 'text', text: t.content });
  if (t.status === 'complete') {
    if (t.usage !== null) events.push({ type: 'usage', usage: t.usage });
    if (t.verdict !== null) events.push({ type: 'verdict', verdict: t.verdict });
    events.push({
      type: 'finish',
      finish_reason: t.finish_reason ?? 'stop',
      content: t.content,
      session,
      turn: t.id,
      job_id: t.job_id,
      ...(t.diverged ? { diverged: true as const } : {}),
      verdict: t.verdict,
      gate: t.gate,
      ...(t.usage === null ? {} : { usage: t.usage }),
      // A --schema answer, as its live finish carried it.
      ...(t.schema_errors !== null
        ? { structured: null, schema_errors: t.schema_errors }
        : t.structured !== null
          ? { structured: t.structured }
          : {}),
    });
  } else {
    // The store keeps the reason, not the original error kind: the code follows the status.
    const interrupted = t.status === 'interrupted';
    events.push({
      type: 'error',
      code: interrupted ? 'interrupted' : 'server',
      exit_code: interrupted ? ExitCode.interrupted : ExitCode.server,
      message: t.error ?? `the turn was ${t.status}`,
      verdict: t.verdict,
      gate: null,
      status: t.status,
      usage: t.usage,
    });
  }
  return events;
}

/**
 * The comparable core of an NDJSON stream, live or exported. What depends on timing, chunking
 * or the connection is dropped: `seq`, turn-start's `url`, reasoning (chunked by milestone),
 * unscored progress rounds, reconnect, finalized, chosen (kept in the verdict) and tool-result; consecutive text events are
 * merged into one; and an injection is placed before the first round numbered at or after the
 * round it landed in (where among the progress events it arrived is timing).
 */
export function comparableEvents(lines: ReadonlyArray<Record<string, unknown>>): Array<Record<string, unknown>> {
  const DROPPED = new Set(['reasoning', 'reconnect', 'finalized', 'chosen', 'tool-result']);
  const out: Array<Record<string, unknown>> = [];
  // The usage a live stream sent as the figures changed: only the last, the turn's, is kept.
  const lastUsage = lines.findLastIndex((l) => l.type === 'usage');
  for (const [i, line] of lines.entries()) {
    const { seq: _seq, ...e } = line;
    if (typeof e.type !== 'string' || DROPPED.has(e.type)) continue;
    if (e.type === 'usage' && i !== lastUsage) continue;
    if (e.type === 'round' && e.scored === false) continue;
    if (e.type === 'turn-start') delete e.url;
    const last = out.at(-1);
    if (e.type === 'text' && last?.type === 'text') {
      last.text = String(last.text) + String(e.text);
      continue;
    }
    out.push(e);
  }
  return orderRoundsAndInjections(out);
}

function orderRoundsAndInjections(events: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const key = (e: Record<string, unknown>): number => Number(e.round) * 2 + (e.type === 'round' ? 1 : 0);
  const result = [...events];
  let start = 0;
  while (start < result.length) {
    let end = start;
    while (end < result.length && (result[end]?.type === 'round' || result[end]?.type === 'injection')) end++;
    if (end > start) {
      const block = result.slice(start, end).sort((a, b) => key(a) - key(b));
      result.splice(start, block.length, ...block);
      start = end;
    } else {
      start += 1;
    }
  }
  return result;
}

function toolResultEvent(c: RecordedToolCall): NsedEvent {
  const status = TOOL_STATUSES.find((x) => x === c.status) ?? 'answered';
  return {
    type: 'tool-result',
    id: c.id,
    name: c.name,
    content: c.result ?? '',
    exit_code: c.exit_code ?? null,
    status,
    duration_ms: c.duration_ms ?? null,
  };
}

const TOOL_STATUSES: readonly ToolResultStatus[] = [
  'ok',
  'error',
  'timeout',
  'capped',
  'refused',
  'answered',
  'expired',
];
