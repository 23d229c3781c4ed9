import { stringFlag, type CommandDef } from './command.js';
import { promptWords, readPrompt } from '../input/prompt.js';
import {
  parseSessionTarget,
  readTarget,
  SESSION_TARGET_CONFLICTS,
  SESSION_TARGET_FLAGS,
  type SessionTarget,
} from './shared/session-target.js';

export interface ToolResultOptions {
  target: SessionTarget;
  callId: string;
  value: string[];
  /** Follow the deliberation to its answer after sending. */
  wait: boolean;
}

/**
 * `nsed tool-result CALL_ID VALUE|- [-s ID | --last] [--wait]`: answer a tool call the
 * session's running deliberation waits on (POST /deliberation/{job}/tool-calls/{call_id}), from
 * any terminal while the deliberation runs; the terminal following it shows the answer arrive.
 */
export const toolResult: CommandDef<ToolResultOptions> = {
  command: 'tool-result <call-id> [value..]',
  describe: "answer a tool call the session's running deliberation waits on",
  positionals: [
    { name: 'call-id', describe: 'the call id (shown with the call)' },
    { name: 'value', array: true, describe: 'the result (- for stdin)' },
  ],
  flags: [
    ...SESSION_TARGET_FLAGS,
    { name: 'wait', type: 'boolean', default: false, describe: 'then follow the deliberation to its answer' },
  ],
  conflicts: SESSION_TARGET_CONFLICTS,
  examples: [['nsed tool-result --last call_ab12 prod', 'answer the question the council asked']],
  parse: (argv) => ({
    target: parseSessionTarget(argv),
    callId: stringFlag(argv, 'call-id') ?? '',
    value: promptWords(argv['value'], argv['--']),
    wait: argv['wait'] === true,
  }),
  run: async (opts, ctx) => {
    const [{ followPending }, { sendToolResult }] = await Promise.all([
      import('../turn/execute-turn.js'),
      import('./shared/send-tool-result.js'),
    ]);
    const value = await readPrompt(opts.value, ctx, { what: 'result' });
    const session = await readTarget(ctx, opts.target);
    // The job waits on the simulator of the process that started it with --sim, if that one lives.
    const conn = await ctx.connect(session.orchestrator, { pending: session.pending_job, needsJob: true });
    try {
      const pending = await sendToolResult(ctx, conn, session, opts.callId, value);
      if (!opts.wait) return 0;
      const store = await ctx.store();
      return (await followPending(ctx, conn, await store.read(session.id), pending)).exitCode;
    } finally {
      await conn.close();
    }
  },
};
