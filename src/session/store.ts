import type { Secrets } from '../secrets.js';
import type { UsageTotal } from '../council/usage.js';
import { sessionAgents, sessionPolicy, sessionUsage, type Session } from './model.js';

/** Every state `sessions ls` shows and `--state` accepts. */
export const SESSION_STATES = ['ok', 'running', 'interrupted', 'failed', 'cancelled'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

/** What `sessions ls` shows; cheap to keep in the listing index. */
export interface SessionSummary {
  id: string;
  title: string;
  /** null when the council is chosen with --agents (`agents` names it). */
  policy: string | null;
  agents?: string[];
  turns: number;
  created: string;
  updated: string;
  state: SessionState;
  forked_from?: { session: string; turn: string | null };
  /** The id of the batch that ran it (`nsed batch`). */
  batch?: string;
  /** What its answers cost, summed (`sessionUsage`). */
  usage: UsageTotal;
}

/** A session file `list()` could not parse; listed, never thrown, never touched. */
export interface Unreadable {
  file: string;
  reason: string;
}

export interface UpdateOptions {
  /**
   * Asked with the session as read, before `mutate`: false means the new file is fsynced before
   * its rename, as always, but the directory is not fsynced after it, so a power loss may undo
   * the rename (never tear the file). Only for a write whose loss the file as it was already
   * recovers: the pending-job marker over a durable turn claim (docs/reliability.md #36).
   * Default: always durable.
   */
  durableRename?: (before: Session) => boolean;
  /**
   * Called once the new content is in place (renamed, and its directory synced when the rename
   * is durable). The lock's release, which makes nothing more durable, then waits two turns of
   * the event loop, so a caller waiting only for the content (the
   * pending-job marker before the first event is shown) goes on first; the lock is held that
   * much longer, never for more. The returned promise still settles after the release, with its
   * failure if it fails.
   */
  committed?: () => void;
}

export interface ReadOnlyOption {
  /** Write nothing, not even the listing index or a stale temp file's removal (`nsed watch`). */
  readOnly?: boolean;
}

export interface ReadOptions {
  /**
   * For printing or exporting, never for writing back: every string and key of the session passes
   * these secrets, also in a file an older nsed wrote or someone edited by hand
   * (docs/reliability.md #89); the file's text is looked at first, and a session it shows holds
   * nothing to redact is not walked (Secrets.redactRecord).
   */
  shownWith?: Pick<Secrets, 'redact' | 'redactRecord'>;
  /**
   * Also each answer's rounds and ballots, read from the files beside the transcript and joined
   * back into their turns (docs/history.md): only for what shows them (`sessions show --rounds`,
   * the exports, reports and MCP). Without it, a turn whose rounds are kept apart has none, and
   * its verdict's ballots are null. A rounds file that is missing or cannot be read leaves its
   * turn without them and is not touched.
   */
  rounds?: boolean;
}

/**
 * The local session store. Every method validates ids before touching the file
 * system; every failure is an NsedError carrying its exit code.
 */
export interface SessionStore {
  readonly home: string;
  /** `<home>/sessions` */
  readonly dir: string;
  /** Writes a new session; an existing id is a conflict (exit 7), never overwritten. */
  create(session: Session): Promise<void>;
  /** Exact id. Missing → not_found (3); unparsable → store (8), the file left untouched. The transcript alone unless `opts.rounds`. */
  read(id: string, opts?: ReadOptions): Promise<Session>;
  /** Exact id, else a unique prefix. Bad characters → usage (2); none → 3; several → 2. */
  resolve(idOrPrefix: string): Promise<string>;
  /** The most recently updated session; none → not_found. */
  latest(opts?: ReadOnlyOption): Promise<string>;
  /**
   * One read-modify-write under the session's cross-process lock: re-reads the file (the
   * transcript alone), applies `mutate`, bumps `updated`, writes atomically, any answer's rounds
   * and ballots `mutate` added (or an older nsed's file held) put apart first (docs/history.md). `mutate` may run again if the lock was lost
   * mid-write, so it must only change the record it is given.
   */
  update(id: string, mutate: (s: Session) => void, opts?: UpdateOptions): Promise<Session>;
  /** Newest `updated` first; unparsable files are reported in `unreadable`. */
  list(): Promise<{ sessions: SessionSummary[]; unreadable: Unreadable[] }>;
  /**
   * Deletes the session file under its lock; unknown → not_found. With `keepUnreadable`, a
   * file that cannot be parsed is renamed aside instead (its path is returned), so a transcript
   * that could still be repaired by hand is not lost to a mistyped id.
   */
  remove(id: string, opts?: { keepUnreadable?: boolean }): Promise<{ keptAs?: string }>;
}

/**
 * running: a job is pending; interrupted: its answer was cut short; failed or cancelled: the
 * last answer ended so on the orchestrator; ok otherwise.
 */
export function sessionState(s: Session): SessionState {
  const last = s.turns.at(-1);
  const pending = s.pending_job;
  if (pending) {
    const cut = s.turns.some((t) => t.job_id === pending.job_id && t.status === 'interrupted');
    return cut || last?.status === 'interrupted' ? 'interrupted' : 'running';
  }
  switch (s.turns.findLast((t) => t.role === 'assistant')?.status) {
    case 'interrupted':
      return 'interrupted';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'ok';
  }
}

export function summarizeSession(s: Session): SessionSummary {
  const summary: SessionSummary = {
    id: s.id,
    title: s.title,
    policy: sessionPolicy(s),
    turns: s.turns.length,
    created: s.created,
    updated: s.updated,
    state: sessionState(s),
    usage: sessionUsage(s),
  };
  const agents = sessionAgents(s);
  if (agents !== undefined) summary.agents = agents;
  if (s.forked_from) summary.forked_from = { session: s.forked_from.session, turn: s.forked_from.turn };
  const batch = batchIdOf(s);
  if (batch !== undefined) summary.batch = batch;
  return summary;
}

/** The batch a session belongs to; a hand-edited or foreign `batch` field is no batch, never an unreadable session. */
export function batchIdOf(s: Session): string | undefined {
  const b: unknown = s.batch;
  return isObject(b) && typeof b['id'] === 'string' ? b['id'] : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Accepts parsed JSON as a Session when the fields nsed relies on have the right types; unknown
 * fields (a newer nsed, a hand edit) are kept as they are (docs/reliability.md #68).
 */
export function validateSession(value: unknown): Session {
  if (!isObject(value)) throw new Error('it does not hold a JSON object');
  for (const key of ['id', 'title', 'created', 'updated', 'active_policy'] as const) {
    if (typeof value[key] !== 'string') throw new Error(`field '${key}' is missing or not a string`);
  }
  const turns = value.turns;
  if (!Array.isArray(turns)) throw new Error("field 'turns' is missing or not a list");
  turns.forEach((turn: unknown, i) => {
    if (!isObject(turn) || typeof turn.role !== 'string' || typeof turn.content !== 'string') {
      throw new Error(`turn ${i + 1} has no role or content`);
    }
  });
  if (value.pending_job !== undefined && !isObject(value.pending_job))
    throw new Error("field 'pending_job' is not an object");
  const fork = value.forked_from;
  if (fork !== undefined && !(isObject(fork) && typeof fork.session === 'string')) {
    throw new Error("field 'forked_from' has no session");
  }
  return value as Session;
}
