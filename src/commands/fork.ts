import type { CommandDef } from './command.js';
import { promptWords, readPrompt } from './shared/prompt.js';
import { councilOf, toTurnOptions, withRecordedCouncil, withTurnOptions } from './shared/turn-options.js';

/**
 * `nsed fork SESSION [PROMPT...] [--at TURN]`: a new session holding SESSION's turns up to TURN,
 * with its own conversation id (a branch never resumes its parent's agent sessions: seed,
 * thread tutorial step 6). The parent file is only read, so parallel forks never contend.
 */
export const fork: CommandDef = {
  command: 'fork <source> [prompt..]',
  describe: "new session from SESSION's turns up to --at TURN; prints its id, or runs PROMPT on it",
  builder: (y) =>
    withTurnOptions(y)
      .positional('source', { type: 'string', describe: 'the session to branch from (id or unique prefix)' })
      .positional('prompt', { type: 'string', array: true, describe: 'a prompt to run on the fork at once (- for stdin)' })
      .option('at', { type: 'string', describe: 'last turn to keep: a turn id, a 1-based index, or a negative index from the end (default: all)' })
      .example('nsed fork 20261130 --at 2', 'branch after the second turn; prints the new id')
      .example('nsed fork 20261130 --at -2 "try it with Redis instead"', 'branch and ask at once'),
  run: async (env, argv) => {
    const flags = toTurnOptions(argv);
    const prompt = promptWords(argv['prompt'], argv['--']);
    const [{ openStore }, { resolveTurnRef }, { newConversationId, newSessionId }, { SESSION_VERSION }] = await Promise.all([
      import('./shared/open-store.js'),
      import('../session/lineage.js'),
      import('../session/ids.js'),
      import('../session/model.js'),
    ]);
    const { ctx } = env;
    const text = prompt.length === 0 ? undefined : await readPrompt(prompt, ctx.io);
    const store = await openStore(env);
    const parent = await store.read(await store.resolve(String(argv['source'])));
    const opts = withRecordedCouncil(flags, parent.council);
    const council = councilOf(opts);
    const at = typeof argv['at'] === 'string' ? resolveTurnRef(parent, argv['at']) : parent.turns.length - 1;
    const turns = parent.turns.slice(0, at + 1).map((t) => structuredClone(t));
    const forkedFrom = { session: parent.id, turn: turns.at(-1)?.id ?? null };
    const title = `${parent.title} (fork)`;

    if (text === undefined) {
      const now = ctx.clock.now();
      const id = newSessionId(ctx.randomHex, now);
      const system = opts.system ?? parent.system;
      await store.create({
        version: SESSION_VERSION,
        id,
        title: opts.title ?? title,
        created: now.toISOString(),
        updated: now.toISOString(),
        active_policy: opts.policy === undefined ? parent.active_policy : (await import('../protocol/policy-ref.js')).toModel(opts.policy),
        orchestrator: parent.orchestrator,
        conversation_id: newConversationId(ctx.randomHex),
        ...(system === undefined ? {} : { system }),
        ...(council === undefined ? {} : { council }),
        forked_from: forkedFrom,
        turns,
      });
      ctx.io.stdout.write(`${id}\n`);
      return 0;
    }

    const [{ connect }, { startSession }, { executeTurn }] = await Promise.all([
      import('./shared/connection.js'),
      import('./shared/start-session.js'),
      import('./shared/execute-turn.js'),
    ]);
    const conn = await connect(env, parent.orchestrator);
    try {
      const inherited = { ...opts, policy: opts.policy ?? parent.active_policy, system: opts.system ?? parent.system };
      const { session, userTurnId } = await startSession(env, store, {
        prompt: text,
        opts: inherited,
        orchestrator: conn.orchestrator,
        turns,
        forkedFrom,
        title,
      });
      return await executeTurn(env, { store, conn }, session, userTurnId, inherited, true);
    } finally {
      await conn.close();
    }
  },
};
