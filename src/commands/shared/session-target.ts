import type { Argv } from 'yargs';
import { usageError } from '../../errors.js';
import type { Session } from '../../session/model.js';
import type { SessionStore } from '../../session/store.js';
import type { CommandEnv } from '../command.js';

/** `-s ID | --last`: which session a command acts on. */
export function withSessionTarget(y: Argv): Argv {
  return y
    .option('session', { alias: 's', type: 'string', describe: 'session id (a unique prefix is enough)' })
    .option('last', { type: 'boolean', describe: 'the most recently updated session' })
    .conflicts('session', 'last');
}

/** Opens the store and reads the session `-s ID | --last` names. */
export async function openTarget(env: CommandEnv, argv: Record<string, unknown>): Promise<{ store: SessionStore; session: Session }> {
  const { openStore } = await import('./open-store.js');
  const store = await openStore(env);
  const id = typeof argv['session'] === 'string' ? argv['session'] : undefined;
  if (id === undefined && argv['last'] !== true) {
    throw usageError('name a session with -s ID or --last', "list sessions with 'nsed sessions ls'");
  }
  const resolved = id !== undefined ? await store.resolve(id) : await store.latest();
  return { store, session: await store.read(resolved) };
}
