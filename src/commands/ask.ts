import type { CommandDef } from './command.js';
import { promptWords, readPrompt } from './shared/prompt.js';
import { toTurnOptions, withTurnOptions } from './shared/turn-options.js';

/** `nsed ask [PROMPT...]`: start a session and run its first turn. */
export const ask: CommandDef = {
  command: 'ask [prompt..]',
  describe: 'start a session and run its first turn',
  builder: (y) =>
    withTurnOptions(y)
      .positional('prompt', { type: 'string', array: true, describe: 'the question (- or a pipe for stdin)' })
      .example('nsed ask -p deep "Design a cache" > answer.md', 'one-shot question, answer on stdout')
      .example('git diff | nsed ask -o final -p fast', 'prompt from stdin'),
  run: async (env, argv) => {
    const opts = toTurnOptions(argv);
    const prompt = await readPrompt(promptWords(argv['prompt'], argv['--']), env.ctx.io);
    const [{ openStore }, { connect }, { startSession }, { executeTurn }] = await Promise.all([
      import('./shared/open-store.js'),
      import('./shared/connection.js'),
      import('./shared/start-session.js'),
      import('./shared/execute-turn.js'),
    ]);
    const store = await openStore(env);
    const conn = await connect(env);
    try {
      const { session, userTurnId } = await startSession(env, store, { prompt, opts, orchestrator: conn.orchestrator });
      return await executeTurn(env, { store, conn }, session, userTurnId, opts, true);
    } finally {
      await conn.close();
    }
  },
};
