import type { Context } from '../../run/context.js';
import { notNsedOrchestrator, usageError } from '../../errors.js';
import { oneLine } from '../../terminal/sanitize.js';
import { printableId, readNamedSession, type Session, type SessionTarget } from '../../session/index.js';
import type { ParsedArgv } from '../command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './flag-def.js';

export type { SessionTarget } from '../../session/index.js';

/** `-s ID | --last`, typed: a command that reads them itself spreads this into its own `as const` table. */
export const SESSION_TARGET_TABLE = [
  {
    name: 'session',
    alias: 's',
    type: 'string',
    describe: 'session id (a unique prefix is enough)',
    valueName: 'ID',
    complete: 'session',
    sample: '20261130-3f9a2c1b',
  },
  { name: 'last', type: 'boolean', describe: 'the most recently updated session' },
] as const satisfies readonly FlagDef[];

/** `-s ID | --last`: a shared group of every command that acts on one session. */
export const SESSION_TARGET_FLAGS: readonly FlagDef[] = SESSION_TARGET_TABLE;

export const SESSION_TARGET_CONFLICTS: ReadonlyArray<readonly [string, string]> = [['session', 'last']];

/** `[id]` of `sessions show` and `export`: the session named as a word, beside `-s ID` and `--last`. */
export const SESSION_ID_POSITIONAL = {
  name: 'id',
  describe: 'session id (a unique prefix is enough; or -s ID)',
  complete: 'session',
} as const satisfies PositionalDef;

/**
 * The one session `-s ID` or `--last` names; with `positional`, also an id word (before or
 * after `--`, as SESSION_ID_POSITIONAL declares it), where the parse refuses two names itself.
 */
export function parseSessionTarget(argv: ParsedArgv, opts: { positional?: boolean } = {}): SessionTarget {
  const f = flagValues(SESSION_TARGET_TABLE, argv);
  const flag = f.session;
  const last = f.last === true;
  if (opts.positional !== true) {
    if (flag !== undefined) return { kind: 'id', id: flag };
    if (last) return { kind: 'last' };
    throw usageError('name a session with -s ID or --last', "list sessions with 'nsed sessions ls'");
  }
  const p = positionalValues([SESSION_ID_POSITIONAL], argv);
  const words = [...(p.id === undefined ? [] : [p.id]), ...p['--']];
  const ids = flag === undefined ? words : [...words, flag];
  if (ids.length > 1) throw usageError('name one session', `got ${ids.length} ids`);
  const id = ids[0];
  if (id !== undefined && last) throw usageError('name a session by id or with --last, not both');
  if (id !== undefined) return { kind: 'id', id };
  if (last) return { kind: 'last' };
  throw usageError('name a session: an id, -s ID or --last', "list sessions with 'nsed sessions ls'");
}

/**
 * Reads the session the target names from the context's store. `shown`: for printing or
 * exporting, so also a file an older nsed wrote passes the run's secrets (docs/reliability.md #89);
 * never for a session that is written back. `rounds`: with its answers' rounds and ballots, which
 * are kept beside the transcript (docs/history.md), for what shows them.
 */
export async function readTarget(
  ctx: Context,
  target: SessionTarget,
  opts: { shown?: boolean; rounds?: boolean } = {},
): Promise<Session> {
  const session = await readNamedSession(await ctx.store(), target, {
    ...(opts.shown === true ? { shownWith: ctx.secrets } : {}),
    ...(opts.rounds === true ? { rounds: true } : {}),
  });
  for (const t of session.turns) {
    if (typeof t.rounds_unreadable !== 'string') continue;
    ctx.io.stderr.write(
      `nsed: warning: the rounds of turn ${printableId(t.id)} cannot be read (${oneLine(t.rounds_unreadable, 300)}); it is shown without them: repair or remove that file by hand, nsed left it as it is\n`,
    );
  }
  return session;
}

/**
 * Refuses a job command (resume, inject, cancel) on a session whose answers came from a plain
 * OpenAI-compatible server: an NSED orchestrator names a job for every answer, so a complete
 * answer without one means there never was, and never will be, a job to act on.
 */
export function assertNsedSession(session: Session): void {
  if (session.pending_job !== undefined) return;
  const last = session.turns.findLast((t) => t.role === 'assistant' && t.status === 'complete');
  if (last === undefined || last.job_id !== undefined) return;
  throw notNsedOrchestrator(
    session.orchestrator === 'sim' ? 'the simulator' : oneLine(session.orchestrator, 200),
    `session ${session.id} got its answers without a deliberation id, so there is no job to act on`,
  );
}
