import { createHash } from 'node:crypto';
import { sessionPolicy, type Session, type Turn } from '../../session/index.js';

/** docs/protocol.md §9.2: one message of the reference client's thread tree. */
export interface ThreadMessage {
  id: string;
  parent_id?: string;
  branch_id: string;
  role: 'user' | 'assistant';
  content: string;
  policy_id?: string;
  job_id?: string;
  ts: number;
}

/** docs/protocol.md §9.2: the reference client's thread file. Unset optional fields are omitted, never null. */
export interface ThreadFile {
  id: string;
  subject: string;
  created: number;
  updated: number;
  active_policy?: string;
  orchestrator?: string;
  server_thread?: string;
  pending_job?: string;
  messages: ThreadMessage[];
}

const hex32 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** Unix seconds of an ISO time; `fallback` when the record holds something unreadable. */
function unixSeconds(iso: unknown, fallback: number): number {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : fallback;
}

/**
 * `export --format thread`: the session as a thread file the reference TUI can open (save it
 * as `$NSED_THREAD_DIR/<id>.json`). The ids are derived from the session and turn ids, so
 * exporting twice gives the same file. The messages form one chain (each `parent_id` names
 * the message before it) on one branch, the session's conversation id: a fork is its own
 * session with its own conversation id, as a branch is in the reference client. Only what
 * the conversation replays goes in: user turns and injections, and complete answers.
 */
export function threadExport(s: Session): ThreadFile {
  const created = unixSeconds(s.created, 0);
  const branch =
    typeof s.conversation_id === 'string' && s.conversation_id !== ''
      ? s.conversation_id
      : `thread-${hex32(`branch:${s.id}`)}`;
  const messages: ThreadMessage[] = [];
  for (const t of s.turns.filter(replayed)) {
    const parent = messages.at(-1);
    // Key order as in docs/protocol.md §9.2 (and the reference client's files), so a diff against them stays small.
    messages.push({
      id: hex32(`message:${s.id}:${String(t.id)}`),
      ...(parent === undefined ? {} : { parent_id: parent.id }),
      branch_id: branch,
      role: t.role,
      content: t.content,
      ...(t.role === 'assistant' && typeof t.policy_id === 'string' ? { policy_id: t.policy_id } : {}),
      ...(typeof t.job_id === 'string' ? { job_id: t.job_id } : {}),
      ts: unixSeconds(t.ts, created),
    });
  }
  const text = (v: unknown): v is string => typeof v === 'string' && v !== '';
  return {
    id: `thread-${hex32(`thread:${s.id}`)}`,
    subject: s.title,
    created,
    // docs/protocol.md §9.2: `updated` is never older than the newest message.
    updated: Math.max(unixSeconds(s.updated, created), ...messages.map((m) => m.ts)),
    // A council chosen with --agents has no policy to name (optional in the thread file).
    ...(text(sessionPolicy(s)) ? { active_policy: s.active_policy } : {}),
    ...(text(s.orchestrator) ? { orchestrator: s.orchestrator } : {}),
    ...(text(s.server_thread) ? { server_thread: s.server_thread } : {}),
    ...(s.pending_job !== undefined && text(s.pending_job.job_id) ? { pending_job: s.pending_job.job_id } : {}),
    messages,
  };
}

function replayed(t: Turn): boolean {
  if (t.content.trim() === '') return false;
  return t.role === 'user' || (t.role === 'assistant' && t.status === 'complete');
}
