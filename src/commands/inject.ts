import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { promptWords, readPrompt } from '../input/prompt.js';
import {
  assertNsedSession,
  parseSessionTarget,
  readTarget,
  SESSION_TARGET_CONFLICTS,
  SESSION_TARGET_FLAGS,
  type SessionTarget,
} from './shared/session-target.js';

export interface InjectOptions {
  target: SessionTarget;
  message: string[];
  /** Follow the deliberation to its answer after the acknowledgement. */
  wait: boolean;
}

const POSITIONALS = [
  { name: 'message', array: true, describe: 'the guidance (- for stdin)' },
] as const satisfies readonly PositionalDef[];

const FLAGS = [
  {
    name: 'wait',
    type: 'boolean',
    default: true,
    describe: 'follow the deliberation to its answer (--no-wait returns after the acknowledgement)',
  },
] as const satisfies readonly FlagDef[];

/**
 * `nsed inject MESSAGE... [-s ID | --last] [--no-wait]`: steer a running deliberation from
 * another terminal (POST /deliberation/{job}/inject), record the message as an injection turn,
 * then follow the job to its answer unless --no-wait.
 */
export const inject: CommandDef<InjectOptions> = {
  command: 'inject [message..]',
  describe: "steer the session's running deliberation from another terminal",
  positionals: POSITIONALS,
  flags: [...SESSION_TARGET_FLAGS, ...FLAGS],
  conflicts: SESSION_TARGET_CONFLICTS,
  examples: [['nsed inject --last "Focus on memory safety over throughput"', 'nudge the running council']],
  parse: (argv) => {
    const p = positionalValues(POSITIONALS, argv);
    return {
      message: promptWords(p.message, p['--']),
      target: parseSessionTarget(argv),
      wait: flagValues(FLAGS, argv).wait,
    };
  },
  run: async (opts, ctx) => {
    const [{ followPending }, { injectMessage }, { acknowledge }, { sanitizeForTerminal }] = await Promise.all([
      import('../turn/execute-turn.js'),
      import('../turn/steer/send-injection.js'),
      import('../output/acknowledge.js'),
      import('../terminal/sanitize.js'),
    ]);
    const message = await readPrompt(opts.message, ctx, { what: 'message' });
    const session = await readTarget(ctx, opts.target);
    assertNsedSession(session);
    const conn = await ctx.connect(session.orchestrator, { pending: session.pending_job, needsJob: true });
    try {
      const sent = await injectMessage(ctx, conn, session, message, { wait: opts.wait });
      const { sequence, round } = sent.placed;
      if (!opts.wait) {
        // The acknowledgement is the whole result: one terminal event in every output mode.
        await acknowledge(ctx.globals.settings.output.value, ctx.io, {
          type: 'injected',
          session: session.id,
          job_id: sent.pending.job_id,
          sequence,
          round,
        });
        return 0;
      }
      if (sent.kind === 'answered') return 0;
      if (!ctx.io.quiet)
        ctx.io.stderr
          .write(`injected into deliberation ${sanitizeForTerminal(sent.pending.job_id)} at round ${round ?? '?'} (sequence ${sequence ?? '?'})
`);
      const store = await ctx.store();
      return (await followPending(ctx, conn, await store.read(session.id), sent.pending)).exitCode;
    } finally {
      await conn.close();
    }
  },
};
