import type { Session } from './model.js';
import type { ReadOnlyOption, ReadOptions, SessionStore } from './store.js';

/** Which session a command acts on: an id (or a unique prefix of one), or the latest. */
export type SessionTarget = { kind: 'id'; id: string } | { kind: 'last' };

/**
 * Reads the session the target names. `readOnly` finds the latest without writing the listing
 * index, for the commands that write nothing to the store (docs/architecture.md); `shownWith`
 * redacts it for showing, `rounds` joins its answers' rounds back (ReadOptions).
 */
export async function readNamedSession(
  store: SessionStore,
  target: SessionTarget,
  opts: ReadOnlyOption & ReadOptions = {},
): Promise<Session> {
  const id = target.kind === 'id' ? await store.resolve(target.id) : await store.latest(opts);
  return store.read(id, {
    ...(opts.shownWith === undefined ? {} : { shownWith: opts.shownWith }),
    ...(opts.rounds === true ? { rounds: true } : {}),
  });
}
