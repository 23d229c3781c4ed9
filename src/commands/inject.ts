import type { CommandDef } from './command.js';
import { promptWords, readPrompt } from './shared/prompt.js';
import { openTarget, withSessionTarget } from './shared/session-target.js';

/**
 * `nsed inject MESSAGE... [-s ID | --last] [--no-wait]`: steer a running deliberation from
 * another terminal (POST /deliberation/{job}/inject), record the message as an injection turn,
 * then follow the job to its answer unless --no-wait.
 */
export const inject: CommandDef = {
  command: 'inject [message..]',
  describe: "steer the session's running deliberation from another terminal",
  builder: (y) =>
    withSessionTarget(y)
      .positional('message', { type: 'string', array: true, describe: 'the guidance (- for stdin)' })
      .option('wait', { type: 'boolean', default: true, describe: 'follow the deliberation to its answer (--no-wait returns after the acknowledgement)' })
      .example('nsed inject --last "Focus on memory safety over throughput"', 'nudge the running council'),
  run: async (env, argv) => {
    const [{ connect }, { followPending }, { injectMessage }] = await Promise.all([
      import('./shared/connection.js'),
      import('./shared/execute-turn.js'),
      import('./shared/send-injection.js'),
    ]);
    const { ctx } = env;
    const message = await readPrompt(promptWords(argv['message'], argv['--']), ctx.io, 'message');
    const { store, session } = await openTarget(env, argv);
    const id = session.id;
    const conn = await connect(env, session.orchestrator, session.pending_job);
    try {
      const sent = await injectMessage(env, { store, conn }, session, message, argv['wait'] !== false);
      if (sent.kind === 'answered' || argv['wait'] === false) return 0;
      return await followPending(env, { store, conn }, await store.read(id), sent.pending);
    } finally {
      await conn.close();
    }
  },
};
