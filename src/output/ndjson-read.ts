import { NDJSON_SCHEMA_VERSION, type EventType, type NsedEvent } from '../events/events.js';
import type { Candidate, Claim } from '../protocol/wire.js';

/** What a line of a saved `-o ndjson` stream is: an event, a type this nsed does not know, or blank. */
export type ReadLine = { kind: 'event'; event: NsedEvent } | { kind: 'unknown'; type: string } | { kind: 'blank' };

/** Why a line cannot be read; `line` is 1-based, for the one line on stderr. */
export class NdjsonReadError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
    readonly newer = false,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

// Field kinds: s string, n number, b boolean, a trailing ? also null. A nullable field a stream
// lacks reads as null: docs/ndjson.md lets version 1 gain fields, and older streams predate them.
type Kind = 's' | 'n' | 'b' | 's?' | 'n?' | 'strings?' | 'candidates' | 'status' | 'object?' | 'list';
const FIELDS: { readonly [T in EventType]: Readonly<Record<string, Kind>> } = {
  'turn-start': { session: 's', turn: 's', policy: 's?', agents: 'strings?', path: 's', url: 's' },
  job: { job_id: 's' },
  reasoning: { text: 's' },
  round: { round: 'n', total_rounds: 'n', progress: 'n', scored: 'b', candidates: 'candidates' },
  text: { text: 's' },
  injection: { message: 's', round: 'n', sequence: 'n' },
  finalized: { chosen_agent_id: 's', round: 'n' },
  'tool-call': { id: 's', name: 's', arguments: 's' },
  'tool-result': { id: 's', name: 's', content: 's', exit_code: 'n?', status: 'status', duration_ms: 'n?' },
  reconnect: { attempt: 'n', reason: 's' },
  chosen: { agent_id: 's', score: 'n?', rounds_completed: 'n?', total_rounds: 'n?' },
  verdict: { verdict: 'object?' },
  usage: { usage: 'object?' },
  'schema-retry': { turn: 's', attempt: 'n', retries: 'n', errors: 'list' },
  finish: {
    finish_reason: 's',
    content: 's',
    session: 's',
    turn: 's',
    job_id: 's?',
    verdict: 'object?',
    gate: 'object?',
  },
  injected: { session: 's', job_id: 's', sequence: 'n?', round: 'n?' },
  cancelled: { session: 's', job_id: 's' },
  error: { code: 's', exit_code: 'n', message: 's', verdict: 'object?', gate: 'object?', status: 's?' },
};
const STATUSES = new Set(['ok', 'error', 'timeout', 'capped', 'refused', 'answered', 'expired']);
const VERDICTS = new Set(['verified', 'contested', 'unverified', 'wrong', 'unknown']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const known = (t: string): t is EventType => Object.hasOwn(FIELDS, t);

/**
 * One line of a saved stream, checked against the schema of docs/ndjson.md: blank lines are
 * skipped, a type this nsed does not know is reported as unknown (a reader ignores what it does
 * not know), and anything else that is not an event of this schema version is an error naming
 * the line. `v`, `seq` and fields the schema does not name are dropped.
 */
export function readNdjsonLine(text: string, line: number): ReadLine {
  if (text.trim() === '') return { kind: 'blank' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new NdjsonReadError(line, 'not JSON');
  }
  if (!isRecord(v)) throw new NdjsonReadError(line, 'not a JSON object');
  const version = v['v'];
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    throw new NdjsonReadError(line, 'no schema version ("v") in it');
  if (version > NDJSON_SCHEMA_VERSION)
    throw new NdjsonReadError(
      line,
      `schema version ${version} is newer than this nsed reads (${NDJSON_SCHEMA_VERSION})`,
      true,
    );
  const type = v['type'];
  if (typeof type !== 'string') throw new NdjsonReadError(line, 'no event "type" in it');
  if (!known(type)) return { kind: 'unknown', type };
  const event: Record<string, unknown> = { type };
  for (const [name, kind] of Object.entries(FIELDS[type])) {
    const value = fieldOf(v[name], kind);
    if (value === BAD)
      throw new NdjsonReadError(line, `${type} event: field "${name}" is missing or not ${KIND[kind]}`);
    event[name] = value;
  }
  return { kind: 'event', event: event as NsedEvent };
}

const BAD = Symbol('bad');
const KIND: Record<Kind, string> = {
  s: 'a string',
  n: 'a number',
  b: 'true or false',
  's?': 'a string or null',
  'n?': 'a number or null',
  'strings?': 'a list of strings or null',
  candidates: 'a list of candidates ({agent_id, score, claims})',
  status: 'a tool-result status',
  'object?': 'an object or null',
  list: 'a list',
};

function fieldOf(v: unknown, kind: Kind): unknown {
  switch (kind) {
    case 's':
      return typeof v === 'string' ? v : BAD;
    case 'n':
      return typeof v === 'number' ? v : BAD;
    case 'b':
      return typeof v === 'boolean' ? v : BAD;
    case 's?':
      return v === undefined || v === null ? null : typeof v === 'string' ? v : BAD;
    case 'n?':
      return v === undefined || v === null ? null : typeof v === 'number' ? v : BAD;
    case 'strings?':
      if (v === undefined || v === null) return null;
      return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : BAD;
    case 'status':
      return typeof v === 'string' && STATUSES.has(v) ? v : BAD;
    case 'object?':
      return v === undefined || v === null ? null : isRecord(v) ? v : BAD;
    case 'list':
      return Array.isArray(v) ? v : BAD;
    case 'candidates':
      if (!Array.isArray(v)) return BAD;
      return v.every(isCandidate) ? v : BAD;
  }
}

function isCandidate(c: unknown): c is Candidate {
  if (!isRecord(c) || typeof c['agent_id'] !== 'string' || typeof c['score'] !== 'number') return false;
  const claims = c['claims'];
  return Array.isArray(claims) && claims.every(isClaim);
}

function isClaim(c: unknown): c is Claim {
  return (
    isRecord(c) && typeof c['claim'] === 'string' && typeof c['verdict'] === 'string' && VERDICTS.has(c['verdict'])
  );
}
