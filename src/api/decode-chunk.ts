import type { Candidate, Claim, Verdict } from '../protocol/wire.js';
import type { NsedError } from '../errors.js';
import type { StreamEvent } from '../events/events.js';
import { errorInStream } from './http-errors.js';
import { sanitizeServerText } from './redact.js';
import { TOOL_CALL_DELTAS, toolCallEventOf } from './tool-call-events.js';

/**
 * Wire chunk -> events (docs/protocol.md §4.3-§4.6). The input is whatever JSON.parse produced, so
 * every field is checked before use: degenerate chunks are tolerated (docs/reliability.md #20),
 * indices are bounds-checked and nothing is keyed by server strings (docs/reliability.md #21), and tool calls are
 * assembled from fragments by index (docs/reliability.md #22).
 */

/** Choice indices beyond this are not tracked for the end of a turn (no council answers that wide). */
const MAX_CHOICES = 64;
/** The finish reasons the seeds define; any other one is settled by asking the orchestrator. */
export const DOCUMENTED_FINISH: readonly string[] = ['stop', 'tool_calls'];
/** More parallel tool calls than this in one turn is not a real council. */
const MAX_TOOL_CALLS = 64;
/** Arguments of one call beyond this are treated as a broken call, not buffered forever. */
const MAX_TOOL_ARGUMENT_CHARS = 16 * 1024 * 1024;

const VERDICTS: readonly Verdict[] = ['verified', 'contested', 'unverified', 'wrong', 'unknown'];

export type Rec = Record<string, unknown>;

export function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function claimOf(v: Rec): Claim {
  const verdict = VERDICTS.find((x) => x === v['verdict']) ?? 'unknown';
  const claim: Claim = { claim: str(v['claim']), verdict };
  if (typeof v['reason'] === 'string') claim.reason = v['reason'];
  return claim;
}

function candidateOf(v: Rec): Candidate {
  const claims = Array.isArray(v['claims']) ? v['claims'].filter(isRecord).map(claimOf) : [];
  return {
    agent_id: str(v['agent_id']),
    score: num(v['score']),
    content_preview: str(v['content_preview']),
    thought_preview: str(v['thought_preview']),
    claims,
  };
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
  broken: boolean;
}

function validArguments(args: string): boolean {
  try {
    return isRecord(JSON.parse(args));
  } catch {
    return false;
  }
}

/** A call nsed may surface: an id, a name and arguments that parse as a JSON object (docs/reliability.md #22). */
export function isUsableCall(id: string, name: string, args: string): boolean {
  return id !== '' && name !== '' && validArguments(args);
}

export interface ChunkDecoder {
  /**
   * Appends the events of one parsed chunk to `out`; throws on an error chunk (docs/reliability.md #19).
   * Returns true when the chunk was text alone: one text event, no finish on any choice, no
   * tool-call fragment, so decoding it again would change nothing but add its text (the chunk
   * may serve as a template, chunk-template.ts).
   */
  decode(chunk: unknown, index: number, out: StreamEvent[]): boolean;
  /** The last non-null finish_reason seen on choice 0. */
  readonly finishReason: string | undefined;
  /**
   * Every choice seen so far, choice 0 among them, has finished with `stop` or `tool_calls`: the
   * turn is over, whether or not `[DONE]` follows.
   */
  readonly ended: boolean;
  /** `nsed_metadata.mode`, if a chunk ever carried it. */
  readonly mode: string | undefined;
}

/** The message of a stream error object: `{"error":"x"}`, `{"error":{"message":"x"}}` or `{"message":"x"}`. */
export function streamErrorText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (!isRecord(v)) return 'an unspecified error';
  const e = v['error'] ?? v;
  if (typeof e === 'string') return e;
  if (isRecord(e)) {
    for (const key of ['message', 'type', 'code']) if (typeof e[key] === 'string') return e[key];
  }
  return 'an unspecified error';
}

/** An error chunk or `event: error`: exits as the same error would as an HTTP status (docs/reliability.md #19). */
export function streamError(v: unknown, token: string | undefined): NsedError {
  return errorInStream(v, sanitizeServerText(streamErrorText(v), token));
}

/** Only choice 0 carries the council's answer; a lone choice without an index is taken as it. */
export function answerChoice(choices: unknown[]): Rec | undefined {
  const choice =
    choices.find((c) => isRecord(c) && c['index'] === 0) ?? (choices.length === 1 ? choices[0] : undefined);
  if (!isRecord(choice) || (choice['index'] !== 0 && choice['index'] !== undefined)) return undefined;
  return choice;
}

/** The delta of choice 0, when the chunk has one. */
export function answerDelta(choices: unknown[]): Rec | undefined {
  const delta = answerChoice(choices)?.['delta'];
  return isRecord(delta) ? delta : undefined;
}

export function createChunkDecoder(token: string | undefined): ChunkDecoder {
  let finishReason: string | undefined;
  let mode: string | undefined;
  let calls: Array<PartialCall | undefined> = [];
  // Per choice index: true once it finished with a documented reason, false while open or
  // ended some other way (which the orchestrator, not the client, must then interpret).
  const choiceDone = new Map<number, boolean>();

  /** Notes each choice's end; returns whether any choice carried a finish reason. */
  function trackChoices(choices: unknown[]): boolean {
    let finished = false;
    for (const c of choices) {
      if (!isRecord(c)) continue;
      const reason = c['finish_reason'];
      const finishing = typeof reason === 'string' && reason !== '';
      if (finishing) finished = true;
      const i = c['index'] ?? (choices.length === 1 ? 0 : undefined);
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= MAX_CHOICES) continue;
      if (finishing) choiceDone.set(i, DOCUMENTED_FINISH.includes(reason));
      else if (!choiceDone.has(i)) choiceDone.set(i, false);
    }
    return finished;
  }

  function addFragment(f: Rec): void {
    const i = f['index'];
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= MAX_TOOL_CALLS) return;
    while (calls.length <= i) calls.push(undefined);
    const call = calls[i] ?? { id: '', name: '', args: '', broken: false };
    calls[i] = call;
    if (call.id === '' && typeof f['id'] === 'string') call.id = f['id'];
    const fn = f['function'];
    if (!isRecord(fn)) return;
    if (call.name === '' && typeof fn['name'] === 'string') call.name = fn['name'];
    if (typeof fn['arguments'] === 'string') {
      if (call.args.length + fn['arguments'].length > MAX_TOOL_ARGUMENT_CHARS) call.broken = true;
      else call.args += fn['arguments'];
    }
  }

  function flushCalls(index: number, out: StreamEvent[]): void {
    for (const c of calls) {
      // An incomplete call is never surfaced: running it would act on half an instruction (docs/reliability.md #22).
      if (c === undefined || c.broken || !isUsableCall(c.id, c.name, c.args)) continue;
      out.push({ type: 'tool-call', id: c.id, name: c.name, arguments: c.args, index });
    }
    calls = [];
  }

  function decodeDelta(d: Rec, index: number, out: StreamEvent[]): void {
    const sid = d['nsed_session_id'];
    if (typeof sid === 'string' && sid !== '') out.push({ type: 'job', job_id: sid, index });
    const reasoning = d['reasoning_content'];
    if (typeof reasoning === 'string' && reasoning !== '') out.push({ type: 'reasoning', text: reasoning, index });
    const r = d['nsed_round'];
    if (isRecord(r)) {
      const candidates = Array.isArray(r['candidates']) ? r['candidates'].filter(isRecord).map(candidateOf) : [];
      out.push({
        type: 'round',
        round: num(r['round']),
        total_rounds: num(r['total_rounds']),
        progress: num(r['progress']),
        scored: r['scored'] === true,
        candidates,
        index,
      });
    }
    const content = d['content'];
    if (typeof content === 'string' && content !== '') out.push({ type: 'text', text: content, index });
    const inj = d['nsed_injected'];
    if (isRecord(inj) && typeof inj['message'] === 'string') {
      out.push({
        type: 'injection',
        message: inj['message'],
        round: num(inj['round']),
        sequence: num(inj['sequence']),
        index,
      });
    }
    const fin = d['nsed_finalized'];
    if (isRecord(fin) && typeof fin['chosen_agent_id'] === 'string') {
      out.push({ type: 'finalized', chosen_agent_id: fin['chosen_agent_id'], round: num(fin['round']), index });
    }
    for (const [field, name] of TOOL_CALL_DELTAS) {
      if (d[field] === undefined) continue;
      const e = toolCallEventOf(name, d[field], index);
      if (e !== undefined) out.push(e);
    }
    const tc = d['tool_calls'];
    if (Array.isArray(tc)) for (const f of tc) if (isRecord(f)) addFragment(f);
  }

  return {
    decode(chunk, index, out) {
      if (!isRecord(chunk)) return false;
      const err = chunk['error'];
      if (err !== undefined && err !== null) throw streamError(chunk, token);
      const meta = chunk['nsed_metadata'];
      if (isRecord(meta) && typeof meta['mode'] === 'string') mode = meta['mode'];
      const choices = chunk['choices'];
      if (!Array.isArray(choices)) return false;
      const finished = trackChoices(choices);
      const delta = answerDelta(choices);
      const before = out.length;
      if (delta !== undefined) decodeDelta(delta, index, out);
      const reason = finished ? answerChoice(choices)?.['finish_reason'] : undefined;
      if (typeof reason === 'string' && reason !== '') {
        finishReason = reason;
        if (reason === 'tool_calls') flushCalls(index, out);
      }
      return (
        !finished && out.length === before + 1 && out[before]?.type === 'text' && !Array.isArray(delta?.['tool_calls'])
      );
    },
    get finishReason() {
      return finishReason;
    },
    get ended() {
      return choiceDone.get(0) === true && [...choiceDone.values()].every((d) => d);
    },
    get mode() {
      return mode;
    },
  };
}
