import type { Claim, NsedRound, Verdict } from '../../protocol/wire.js';
import {
  sessionPolicy,
  sessionUsage,
  type Attachment,
  type BatchRef,
  type IdempotencyRecord,
  type PendingJob,
  type RecordedToolCall,
  type Session,
  type Turn,
  type TurnPath,
  type TurnStatus,
} from '../../session/index.js';
import { sessionState, type SessionState } from '../../session/index.js';
import { readUsage, type Usage, type UsageTotal } from '../../council/usage.js';
import { deriveVerdict, readVerdict, type CouncilVerdict, type GateResult } from '../../council/verdict.js';

/** Version of the documents below; a field removed or retyped is a new version. */
export const SESSION_DOCUMENT_VERSION = 1;

/**
 * One turn as `sessions show --json` and `export --format json` document it. Every key is
 * always present (null or [] when the record has nothing), so `jq` filters never meet a
 * missing key; the store's own field names stay private.
 */
export interface TurnDocument {
  id: string;
  role: 'user' | 'assistant';
  kind: 'message' | 'injection';
  status: TurnStatus;
  content: string;
  ts: string;
  /** null when no policy chose the turn's council (--agents did, and `agents` names it). */
  policy: string | null;
  agents: string[] | null;
  job_id: string | null;
  path: TurnPath | null;
  finish_reason: string | null;
  error: string | null;
  /** A resume's replay differed from what the turn had shown (docs/reliability.md #33). */
  diverged: boolean;
  reasoning: string | null;
  /** Injection turns: where the orchestrator placed the message. */
  injection: { round: number | null; sequence: number | null } | null;
  rounds: NsedRound[];
  tool_calls: RecordedToolCall[];
  /** Assistant answers: what the council concluded (docs/ndjson.md "The verdict"); null on other turns. */
  verdict: CouncilVerdict | null;
  /** The gates' result when the run that recorded the answer set any, else null. */
  gate: GateResult | null;
  /** Assistant answers: what the turn cost (docs/ndjson.md "Usage"); null on other turns and on answers recorded before it was kept. */
  usage: Usage | null;
  /** User turns: the files attached with -f (path, size, sha256); their text is in `content`. */
  attachments: Attachment[];
  /** Assistant turns asked for a --schema: the answer parsed, or null (also when it did not match). */
  structured: unknown;
  /** ...and what the validator said when it did not match; null otherwise. */
  schema_errors: Array<{ path: string; message: string }> | null;
}

export interface SessionDocument {
  v: number;
  id: string;
  title: string;
  /** null when the session's council is chosen with --agents (`council.agents`). */
  policy: string | null;
  orchestrator: string | null;
  conversation_id: string | null;
  created: string;
  updated: string;
  state: SessionState;
  system: string | null;
  forked_from: { session: string; turn: string | null } | null;
  /** The council chosen with --agents/--rounds, reused by later turns; null when none was. */
  council: { agents: string[] | null; rounds: number | null } | null;
  pending_job: PendingJob | null;
  /** The `nsed batch` item this session ran as (`sessions ls --batch`); null when it was not one. */
  batch: BatchRef | null;
  /** The `--idempotency-key` it was started under, with its request's hash; null when none was. */
  idempotency: IdempotencyRecord | null;
  /**
   * What the session's answers cost together (docs/ndjson.md §4d): known figures summed, the
   * answers whose cost is unknown counted in `unknown_cost_turns`, never as 0.
   */
  usage: UsageTotal;
  turns: TurnDocument[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const STATUSES: readonly TurnStatus[] = ['complete', 'interrupted', 'failed', 'cancelled'];
const VERDICTS: readonly Verdict[] = ['verified', 'contested', 'unverified', 'wrong', 'unknown'];

/**
 * The session as documented; a hand-edited record with odd field types still exports. `rounds`
 * false leaves every turn's rounds empty, for a reader that never shows them: they are most of
 * a long session's bytes (the transcript without --rounds).
 */
export function sessionDocument(s: Session, opts: { rounds?: boolean } = {}): SessionDocument {
  const withRounds = opts.rounds !== false;
  const fork = s.forked_from;
  return {
    v: SESSION_DOCUMENT_VERSION,
    id: s.id,
    title: s.title,
    policy: sessionPolicy(s),
    orchestrator: str(s.orchestrator),
    conversation_id: str(s.conversation_id),
    created: s.created,
    updated: s.updated,
    state: sessionState(s),
    system: str(s.system),
    forked_from: fork === undefined ? null : { session: fork.session, turn: str(fork.turn) },
    council: councilDocument(s.council),
    pending_job: isObject(s.pending_job) ? s.pending_job : null,
    batch: batchDocument(s.batch),
    idempotency: idempotencyDocument(s.idempotency),
    usage: sessionUsage(s),
    turns: s.turns.map((t) => turnDocument(t, withRounds)),
  };
}

function batchDocument(b: unknown): BatchRef | null {
  if (!isObject(b)) return null;
  const [id, item, hash, out] = [str(b.id), str(b.item), str(b.request_hash), str(b.out)];
  if (id === null || item === null || hash === null) return null;
  return out === null ? { id, item, request_hash: hash } : { id, item, request_hash: hash, out };
}

function idempotencyDocument(k: unknown): IdempotencyRecord | null {
  if (!isObject(k)) return null;
  const [key, hash] = [str(k.key), str(k.request_hash)];
  return key === null || hash === null ? null : { key, request_hash: hash };
}

function councilDocument(c: unknown): SessionDocument['council'] {
  if (!isObject(c)) return null;
  const agents = Array.isArray(c.agents) ? c.agents.filter((a): a is string => typeof a === 'string') : null;
  const rounds = num(c.rounds);
  return agents === null && rounds === null ? null : { agents, rounds };
}

export function turnDocument(t: Turn, withRounds = true): TurnDocument {
  const injection = t.kind === 'injection';
  // Without --rounds the rounds are built only for an answer whose verdict must be derived from
  // them: a 1,000-turn `sessions show` spent a tenth of its time building rounds it never printed.
  const recorded = readVerdict(t.verdict);
  const rounds =
    Array.isArray(t.rounds) && (withRounds || (recorded === null && answerTurn(t)))
      ? (t.rounds as unknown[]).filter(isObject).map(roundOf)
      : [];
  return {
    id: str(t.id) ?? '',
    role: t.role,
    kind: injection ? 'injection' : 'message',
    status: STATUSES.includes(t.status) ? t.status : 'complete',
    content: t.content,
    ts: str(t.ts) ?? '',
    policy: str(t.policy_id),
    agents: Array.isArray(t.agents) ? t.agents.filter((a): a is string => typeof a === 'string') : null,
    job_id: str(t.job_id),
    path: t.path === 'compat' || t.path === 'native' ? t.path : null,
    finish_reason: str(t.finish_reason),
    error: str(t.error),
    diverged: t.diverged === true,
    reasoning: str(t.reasoning),
    injection: injection ? { round: num(t.round), sequence: num(t.sequence) } : null,
    rounds: withRounds ? rounds : [],
    tool_calls: Array.isArray(t.tool_calls) ? t.tool_calls.filter(isObject).map(toolCallOf) : [],
    verdict: verdictOf(t, recorded, rounds),
    usage: t.role === 'assistant' && t.kind !== 'injection' && t.usage !== undefined ? readUsage(t.usage) : null,
    gate: isGateResult(t.gate) ? t.gate : null,
    attachments: Array.isArray(t.attachments) ? t.attachments.filter(isObject).map(attachmentOf) : [],
    structured: t.structured ?? null,
    schema_errors: Array.isArray(t.schema_errors)
      ? t.schema_errors.filter(isObject).map((e) => ({ path: str(e.path) ?? '', message: str(e.message) ?? '' }))
      : null,
  };
}

/**
 * The recorded verdict; an answer recorded before verdicts were kept gets one derived from its
 * recorded rounds and milestones, the same sources a live run reads.
 */
function verdictOf(t: Turn, recorded: CouncilVerdict | null, rounds: NsedRound[]): CouncilVerdict | null {
  if (!answerTurn(t)) return null;
  if (recorded !== null) return recorded;
  return deriveVerdict({ rounds, reasoning: str(t.reasoning) });
}

/** An answer of the council: the turns that carry a verdict. */
const answerTurn = (t: Turn): boolean => t.role === 'assistant' && t.kind !== 'injection';

const isGateResult = (g: unknown): g is GateResult =>
  isObject(g) && typeof g.status === 'string' && Array.isArray(g.checks);

function attachmentOf(a: object): Attachment {
  const r = a as Record<string, unknown>;
  return { path: str(r.path) ?? '', size: num(r.size) ?? 0, sha256: str(r.sha256) ?? '' };
}

/** A recorded call, with its result when it was settled (fields of other versions are dropped). */
function toolCallOf(call: object): RecordedToolCall {
  const c = call as Record<string, unknown>;
  const out: RecordedToolCall = { id: str(c.id) ?? '', name: str(c.name) ?? '', arguments: str(c.arguments) ?? '' };
  const status = str(c.status);
  if (status === null) return out;
  return { ...out, result: str(c.result) ?? '', status, exit_code: num(c.exit_code), duration_ms: num(c.duration_ms) };
}

function roundOf(r: Record<string, unknown>): NsedRound {
  const candidates = Array.isArray(r.candidates) ? r.candidates.filter(isObject) : [];
  const convergence = num(r.convergence);
  return {
    ...(convergence === null ? {} : { convergence }),
    round: num(r.round) ?? 0,
    total_rounds: num(r.total_rounds) ?? 0,
    progress: num(r.progress) ?? 0,
    scored: r.scored !== false,
    candidates: candidates.map((c) => ({
      agent_id: str(c.agent_id) ?? '',
      score: num(c.score) ?? 0,
      content_preview: str(c.content_preview) ?? '',
      thought_preview: str(c.thought_preview) ?? '',
      claims: (Array.isArray(c.claims) ? c.claims.filter(isObject) : []).map(claimOf),
    })),
  };
}

function claimOf(c: Record<string, unknown>): Claim {
  const verdict = VERDICTS.find((v) => v === c.verdict) ?? 'unknown';
  const claim: Claim = { claim: str(c.claim) ?? '', verdict };
  const reason = str(c.reason);
  if (reason !== null) claim.reason = reason;
  return claim;
}
