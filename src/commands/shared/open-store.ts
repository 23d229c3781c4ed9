import type { SessionStore } from '../../session/store.js';
import type { CommandEnv } from '../command.js';

/** The store under --home / NSED_HOME / XDG_DATA_HOME; lowdb loads only on paths that need it. */
export async function openStore(env: CommandEnv): Promise<SessionStore> {
  const [{ openFileStore }, { resolveHome }] = await Promise.all([import('../../session/file-store.js'), import('../../session/paths.js')]);
  const { io } = env.ctx;
  return openFileStore(resolveHome(env.ctx.env, env.globals.home), {
    now: () => env.ctx.clock.now(),
    // A wait is bounded by the store; saying whose lock it is tells the user what to look at (docs/reliability.md #59).
    onLockWait: (pid) => {
      if (!io.quiet) io.stderr.write(`waiting for the session lock held by ${pid === undefined ? 'another nsed process' : `pid ${pid}`}\n`);
    },
  });
}
