import type { Context } from '../../context.js';
import { notNsedOrchestrator, usageError } from '../../errors.js';
import { oneLine } from '../../terminal/sanitize.js';
import type { Session } from '../../session/index.js';
import { stringFlag, type ParsedArgv } from '../command.js';
import type { FlagDef } from './flag-def.js';

/** Which session a command acts on: an id (or a unique prefix of one), or the latest. */
export type SessionTarget = { kind: 'id'; id: string } | { kind: 'last' };

/** `-s ID | --last`: a shared group of every command that acts on one session. */
export const SESSION_TARGET_FLAGS: readonly FlagDef[] = [
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
];

export const SESSION_TARGET_CONFLICTS: ReadonlyArray<readonly [string, string]> = [['session', 'last']];

export function parseSessionTarget(argv: ParsedArgv): SessionTarget {
  const id = stringFlag(argv, 'session');
  if (id !== undefined) return { kind: 'id', id };
  if (argv['last'] === true) return { kind: 'last' };
  throw usageError('name a session with -s ID or --last', "list sessions with 'nsed sessions ls'");
}

/** Reads the session the target names from the context's store. */
export async function readTarget(ctx: Context, target: SessionTarget): Promise<Session> {
  const store = await ctx.store();
  const id = target.kind === 'id' ? await store.resolve(target.id) : await store.latest();
  return store.read(id);
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
