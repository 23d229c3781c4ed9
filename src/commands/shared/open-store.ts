import type { SessionStore } from '../../session/store.js';
import type { CommandEnv } from '../command.js';

/** The store under --home / NSED_HOME / XDG_DATA_HOME; lowdb loads only on paths that need it. */
export async function openStore(env: CommandEnv): Promise<SessionStore> {
  const [{ openFileStore }, { resolveHome }] = await Promise.all([import('../../session/file-store.js'), import('../../session/paths.js')]);
  return openFileStore(resolveHome(env.ctx.env, env.globals.home), { now: () => env.ctx.clock.now() });
}
