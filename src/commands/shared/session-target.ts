import type { Argv } from 'yargs';
import { usageError } from '../../errors.js';
import type { SessionStore } from '../../session/store.js';

/** `-s ID | --last`: which session a command acts on. */
export function withSessionTarget(y: Argv): Argv {
  return y
    .option('session', { alias: 's', type: 'string', describe: 'session id (a unique prefix is enough)' })
    .option('last', { type: 'boolean', describe: 'the most recently updated session' })
    .conflicts('session', 'last');
}

export async function resolveTarget(store: SessionStore, argv: Record<string, unknown>): Promise<string> {
  const id = typeof argv['session'] === 'string' ? argv['session'] : undefined;
  if (id !== undefined) return store.resolve(id);
  if (argv['last'] === true) return store.latest();
  throw usageError('name a session with -s ID or --last', "list sessions with 'nsed sessions ls'");
}
