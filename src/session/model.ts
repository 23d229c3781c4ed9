import type { LiveSim } from '../protocol/live-sim.js';
import type { NsedRound, ToolDefinition } from '../protocol/wire.js';
import { readUsage, sumUsage, type CapCrossed, type Usage, type UsageTotal } from '../council/usage.js';
import type { CouncilVerdict, GateResult } from '../council/verdict.js';

export type { LiveSim };

/**
 * The transcript's shape (docs/history.md, schemas/session.schema.json). 2: answers' rounds and
 * ballots are kept apart (`rounds_apart`); a file of version 1 holds them in its turns, and is read
 * as it is and written as 2 on its next write.
 */
export const SESSION_VERSION = 2;

export type TurnStatus = 'complete' | 'interrupted' | 'failed' | 'cancelled';
export type TurnKind = 'message' | 'injection';
export type TurnPath = 'compat' | 'native';

/** A tool call the council made during a turn and, once settled, its result. */
export interface RecordedToolCall {
  id: string;
  name: string;
  arguments: string;
  /** What the council was given (an error text when the tool failed or was refused). */
  result?: string;
  /** ok, error, timeout, capped, refused, answered or expired (see the NDJSON tool-result). */
  status?: string;
  exit_code?: number | null;
  duration_ms?: number | null;
}

/** A file attached to a user turn (-f): what it was, never a second copy of what the prompt holds. */
export interface Attachment {
  /** As given, or as a glob matched it; `-` for standard input. */
  path: string;
  /** Bytes. */
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
}

/**
 * The transcript's note that a turn's rounds, and its verdict's ballots, are in a file beside it:
 * `<sessions>/<session id>.rounds/<file>` (src/session/rounds-apart.ts). The verdict then says
 * `ballots: null` when `ballots` is true; a reader that shows rounds reads the file.
 */
export interface RoundsApart {
  /** `<turn id>.<16 hex digits>.json`: a new version of the rounds gets a new name. */
  file: string;
  /** How many rounds the file holds. */
  rounds: number;
  /** Whether it holds the verdict's ballots. */
  ballots: boolean;
}

/**
 * One turn of the transcript (the seed's `turns[{role, content, policy_id, job_id, ts}]`,
 * plus what `sessions show` and `resume` need). Unknown fields written by other versions are
 * kept on rewrite.
 */
export interface Turn {
  id: string;
  role: 'user' | 'assistant';
  kind: TurnKind;
  content: string;
  status: TurnStatus;
  /** ISO-8601 time the turn was recorded. */
  ts: string;
  policy_id?: string;
  /** The agents --agents chose for this turn (then no policy chose it, and policy_id is absent). */
  agents?: string[];
  job_id?: string;
  path?: TurnPath;
  finish_reason?: string;
  reasoning?: string;
  /** Present only where the rounds are not kept apart (`rounds_apart`): a turn of an older nsed's file, or an answer without a recorded verdict. */
  rounds?: NsedRound[];
  rounds_apart?: RoundsApart;
  /**
   * Set by a read with its rounds only, never written: why this turn's rounds file could not be
   * read (its path and the reason), so the command showing the turn can say so.
   */
  rounds_unreadable?: string;
  tool_calls?: RecordedToolCall[];
  /** Injection turns: where the orchestrator placed the message. */
  sequence?: number;
  round?: number;
  /** Why a turn is interrupted or failed, in one line. */
  error?: string;
  /**
   * A resume's replay differed from what this turn had shown: the content is the orchestrator's
   * recorded answer when it gave one, else the splice (docs/reliability.md #33).
   */
  diverged?: boolean;
  /** Assistant turns: what the council concluded (docs/ndjson.md "The verdict"). */
  verdict?: CouncilVerdict;
  /** Assistant turns: what the turn cost (docs/ndjson.md "Usage"). */
  usage?: Usage;
  /** Assistant turns judged by gates: their result (a failed gate still records the answer). */
  gate?: GateResult;
  /** User turns: the files attached with -f, in prompt order. */
  attachments?: Attachment[];
  /** Assistant turns asked for a --schema: the answer parsed (null when it did not match). */
  structured?: unknown;
  /** ...and, when it did not match, what the validator said. */
  schema_errors?: Array<{ path: string; message: string }>;
  /**
   * Assistant turns a spend cap stopped (--max-cost, --max-tokens): which cap, its limit and what
   * had been spent when nsed cancelled the deliberation, and what the next round was expected to
   * add when it stopped at a round's boundary (CapCrossed); the turn is `cancelled`, its verdict kept.
   */
  capped?: CapCrossed;
  [extra: string]: unknown;
}

/** The marker of a sent turn whose answer has not landed, so `nsed resume` finds it after a crash. */
export interface PendingJob {
  job_id: string;
  /** The user turn this job answers. */
  turn: string;
  path: TurnPath;
  policy: string;
  started: string;
  /**
   * Set when the job runs on an in-process simulator (--sim): where it listens and the process
   * that owns it. A second terminal reaches the job there while that process lives.
   */
  sim?: LiveSim;
  /**
   * The process that follows the job and records its answer (a terminal's `ask`, an `nsed mcp`).
   * One killed with -9 records nothing, so a follower that finds it gone on this host takes the
   * turn over and records it, as `nsed resume` does. Absent in markers written before it was kept.
   */
  owner?: { pid: number; host: string };
}

export interface Council {
  agents?: string[];
  rounds?: number;
}

/**
 * The policy a session runs with, for display and listing: none when its council is chosen with
 * --agents (`active_policy` is then only what a later -p-less compat turn would fall back to).
 */
export function sessionPolicy(s: Pick<Session, 'active_policy' | 'council'>): string | null {
  const agents = s.council?.agents;
  return Array.isArray(agents) && agents.length > 0 ? null : s.active_policy;
}

/**
 * What a session cost (docs/ndjson.md §4d): its answers' usage summed, each answer whose cost is
 * unknown (or was recorded before usage was kept) counted apart in `unknown_cost_turns`, never as 0.
 */
export function sessionUsage(s: Pick<Session, 'turns'>): UsageTotal {
  const answers = s.turns.filter((t) => t.role === 'assistant' && t.kind !== 'injection');
  return sumUsage(answers.map((t) => readUsage(t.usage)));
}

/** The agents a session's council is chosen with, if --agents chose it. */
export function sessionAgents(s: Pick<Session, 'council'>): string[] | undefined {
  const agents = s.council?.agents;
  return Array.isArray(agents) && agents.length > 0 ? agents.filter((a) => typeof a === 'string') : undefined;
}

/**
 * The turn lease: set, in the same locked write that checks nothing runs, by the command that
 * sends a turn, before the request leaves; cleared once the job id is recorded (the pending
 * marker takes over) or the turn is recorded. Its owner is named so that a claim left by a
 * process that died can be told from a live one.
 */
export interface TurnClaim {
  /** The user turn being sent. */
  turn: string;
  pid: number;
  host: string;
  /** Random, so the owner releases only its own claim. */
  token: string;
  since: string;
  /**
   * When the owner gave up before the orchestrator named a job (a signal, a timeout or a reset
   * between the request and the response headers): the request may have started one, which
   * `resume` and `continue` look up as they do for a dead owner's claim (docs/reliability.md #97).
   */
  abandoned?: string;
}

/**
 * A session run as one item of `nsed batch` (docs/reliability.md "Batches"): `sessions ls --batch` lists a
 * batch's sessions by `id`, and `batch --resume` finds the deliberations a killed batch left
 * running by it (`out`: the results file, absolute, when the batch wrote one).
 */
export interface BatchRef {
  id: string;
  item: string;
  request_hash: string;
  out?: string;
}

/**
 * The `--idempotency-key` a session was started under, and the hash of the request it was asked
 * for: a second run with the same key finds it (docs/ci.md "Re-runs that never pay twice"). Absent on
 * every other session, and on stores written before the key existed.
 */
export interface IdempotencyRecord {
  key: string;
  /** SHA-256, hex, of the resolved request (prompt, context, files, council, system, tools, schema). */
  request_hash: string;
}

/** The seed's ChatSession, plus nsed's bookkeeping (docs/protocol.md §13). */
export interface Session {
  version: number;
  id: string;
  title: string;
  created: string;
  updated: string;
  active_policy: string;
  orchestrator: string;
  conversation_id: string;
  server_thread?: string;
  system?: string;
  pending_job?: PendingJob;
  claim?: TurnClaim;
  forked_from?: { session: string; turn: string | null };
  /** The council chosen with --agents/--rounds; later turns reuse it unless flags override. */
  council?: Council;
  /** The tools offered last (definitions only: how to run them is never stored), re-sent on continue. */
  tools?: ToolDefinition[];
  batch?: BatchRef;
  idempotency?: IdempotencyRecord;
  turns: Turn[];
  [extra: string]: unknown;
}
