import type { CommandDef } from './command.js';
import { promptWords, readPrompt } from './shared/prompt.js';
import { openTarget, withSessionTarget } from './shared/session-target.js';

/**
 * `nsed tool-result CALL_ID VALUE|- [-s ID | --last] [--wait]`: answer a tool call the
 * session's running deliberation waits on (POST /deliberation/{job}/tool-calls/{call_id}), from
 * any terminal while the deliberation runs; the terminal following it shows the answer arrive.
 */
export const toolResult: CommandDef = {
  command: 'tool-result <call-id> [value..]',
  describe: "answer a tool call the session's running deliberation waits on",
  builder: (y) =>
    withSessionTarget(y)
      .positional('call-id', { type: 'string', describe: 'the call id (shown with the call)' })
      .positional('value', { type: 'string', array: true, describe: 'the result (- for stdin)' })
      .option('wait', { type: 'boolean', default: false, describe: 'then follow the deliberation to its answer' })
      .example('nsed tool-result --last call_ab12 prod', 'answer the question the council asked'),
  run: async (env, argv) => {
    const [{ connect }, { followPending }, { sendToolResult }] = await Promise.all([
      import('./shared/connection.js'),
      import('./shared/execute-turn.js'),
      import('./shared/send-tool-result.js'),
    ]);
    const callId = String(argv['call-id'] ?? '');
    const value = await readPrompt(promptWords(argv['value']), env.ctx.io, 'result');
    const { store, session } = await openTarget(env, argv);
    const conn = await connect(env, session.orchestrator);
    try {
      const pending = await sendToolResult(env, { store, conn }, session, callId, value);
      if (argv['wait'] !== true) return 0;
      return await followPending(env, { store, conn }, await store.read(session.id), pending);
    } finally {
      await conn.close();
    }
  },
};
