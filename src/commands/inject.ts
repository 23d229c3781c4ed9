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
    const [{ connect }, { followPending }, { injectMessage }, { acknowledge }, { sanitizeForTerminal }] = await Promise.all([
      import('./shared/connection.js'),
      import('./shared/execute-turn.js'),
      import('./shared/send-injection.js'),
      import('../output/acknowledge.js'),
      import('../terminal/sanitize.js'),
    ]);
    const { ctx } = env;
    const wait = argv['wait'] !== false;
    const message = await readPrompt(promptWords(argv['message']), ctx.io, 'message');
    const { store, session } = await openTarget(env, argv);
    const id = session.id;
    const conn = await connect(env, session.orchestrator);
    try {
      const sent = await injectMessage(env, { store, conn }, session, message, wait);
      const { sequence, round } = sent.placed;
      if (!wait) {
        // The acknowledgement is the whole result: one terminal event in every output mode.
        await acknowledge(env.globals.output, ctx.io, { type: 'injected', session: id, job_id: sent.pending.job_id, sequence, round });
        return 0;
      }
      if (sent.kind === 'answered') return 0;
      ctx.io.stderr.write(`injected into deliberation ${sanitizeForTerminal(sent.pending.job_id)} at round ${round ?? '?'} (sequence ${sequence ?? '?'})\n`);
      return await followPending(env, { store, conn }, await store.read(id), sent.pending);
    } finally {
      await conn.close();
    }
  },
};
