import type { Argv } from 'yargs';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import type { Session } from '../../session/index.js';
import type { ParsedArgv } from '../command.js';

/** The session `sessions show` and `export` act on: an id (or a unique prefix), or the latest. */
export type ShownSession = { kind: 'id'; id: string } | { kind: 'last' };

/** `[id]` or `--last` (the most recently updated session). */
export function withShownSession(y: Argv): Argv {
  return y
    .positional('id', { type: 'string', describe: 'session id (a unique prefix is enough)' })
    .option('last', { type: 'boolean', describe: 'the most recently updated session' });
}

export function parseShownSession(argv: ParsedArgv): ShownSession {
  const id = typeof argv['id'] === 'string' ? argv['id'] : undefined;
  const last = argv['last'] === true;
  if (id !== undefined && last) throw usageError('name a session by id or with --last, not both');
  if (id !== undefined) return { kind: 'id', id };
  if (last) return { kind: 'last' };
  throw usageError('name a session: an id, or --last', "list sessions with 'nsed sessions ls'");
}

export async function readShown(ctx: Context, target: ShownSession): Promise<Session> {
  const store = await ctx.store();
  return store.read(target.kind === 'id' ? await store.resolve(target.id) : await store.latest());
}
