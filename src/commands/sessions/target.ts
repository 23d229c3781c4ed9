import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { redactDeep } from '../../secrets.js';
import type { Session } from '../../session/index.js';
import { stringFlag, type ParsedArgv } from '../command.js';
import type { PositionalDef } from '../shared/flag-def.js';
import { SESSION_TARGET_FLAGS, type SessionTarget } from '../shared/session-target.js';

/** The session `sessions show` and `export` act on: an id (or a unique prefix), or the latest. */
export type ShownSession = SessionTarget;

/** `[id]`, or `-s ID` and `--last` as every other command takes them. */
export const SHOWN_SESSION_POSITIONAL: PositionalDef = {
  name: 'id',
  describe: 'session id (a unique prefix is enough; or -s ID)',
  complete: 'session',
};
export const SHOWN_SESSION_FLAGS = SESSION_TARGET_FLAGS;

/** The one session named by an id (before or after `--`), `-s ID` or `--last`. */
export function parseShownSession(argv: ParsedArgv): ShownSession {
  const words = [argv['id'], ...(Array.isArray(argv['--']) ? argv['--'] : [])].filter(
    (w): w is string => typeof w === 'string',
  );
  const flag = stringFlag(argv, 'session');
  const ids = flag === undefined ? words : [...words, flag];
  const last = argv['last'] === true;
  if (ids.length > 1) throw usageError('name one session', `got ${ids.length} ids`);
  const id = ids[0];
  if (id !== undefined && last) throw usageError('name a session by id or with --last, not both');
  if (id !== undefined) return { kind: 'id', id };
  if (last) return { kind: 'last' };
  throw usageError('name a session: an id, -s ID or --last', "list sessions with 'nsed sessions ls'");
}

export async function readShown(ctx: Context, target: ShownSession): Promise<Session> {
  const store = await ctx.store();
  const session = await store.read(target.kind === 'id' ? await store.resolve(target.id) : await store.latest());
  // Also for a file an older nsed wrote: what is shown or exported passes the run's secrets (docs/reliability.md #89).
  return redactDeep(session, (text) => ctx.secrets.redact(text));
}
