import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
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

const POSITIONALS = [
  { name: 'call-id', describe: 'the call id (shown with the call)' },
  { name: 'value', array: true, describe: 'the result (- for stdin)' },
] as const satisfies readonly PositionalDef[];

const FLAGS = [
  { name: 'wait', type: 'boolean', default: false, describe: 'then follow the deliberation to its answer' },
] as const satisfies readonly FlagDef[];

/**
 * `nsed tool-result CALL_ID VALUE|- [-s ID | --last] [--wait]`: answer a tool call the
 * session's running deliberation waits on (POST /deliberation/{job}/tool-calls/{call_id}), from
 * any terminal while the deliberation runs; the terminal following it shows the answer arrive.
 */
export const toolResult: CommandDef<ToolResultOptions> = {
  command: 'tool-result <call-id> [value..]',
  describe: "answer a tool call the session's running deliberation waits on",
  positionals: POSITIONALS,
  flags: [...SESSION_TARGET_FLAGS, ...FLAGS],
  conflicts: SESSION_TARGET_CONFLICTS,
  examples: [['nsed tool-result --last call_ab12 prod', 'answer the question the council asked']],
  parse: (argv) => {
    const p = positionalValues(POSITIONALS, argv);
    return {
      target: parseSessionTarget(argv),
      callId: p['call-id'] ?? '',
      value: promptWords(p.value, p['--']),
      wait: flagValues(FLAGS, argv).wait,
    };
  },
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
