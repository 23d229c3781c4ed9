import { SESSION_STATES } from '../../session/store.js';
import type { CommandDef } from '../command.js';

/**
 * `nsed sessions ls`: the store's listing index, newest activity first. Only `store.list()` is
 * read (one journal plus a stat per file), never the transcripts, and nothing of the network
 * or the spinner is loaded, so it stays fast with 10,000 sessions.
 */
export const ls: CommandDef = {
  command: 'ls',
  describe: 'list sessions, newest activity first',
  aliases: ['list'],
  builder: (y) =>
    y
      .option('limit', { alias: 'n', type: 'number', describe: 'show at most N sessions' })
      .option('policy', { alias: 'p', type: 'string', describe: 'only sessions whose active policy is this (deep or nsed:deep)' })
      .option('state', { choices: SESSION_STATES, describe: 'only sessions in this state' })
      .option('json', { type: 'boolean', default: false, describe: 'a JSON array of {id, title, policy, turns, created, updated, state, forked_from} (also -o json)' })
      .option('ids', { type: 'boolean', default: false, describe: 'print only the ids, one per line (what the completion scripts use)' })
      .example('nsed sessions ls -n 5', 'the five most recently active sessions')
      .example("nsed sessions ls --state interrupted --json | jq -r '.[].id'", 'ids of sessions whose answer was cut short'),
  run: async (env, argv) => {
    const limit = argv['limit'];
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
      throw (await import('../../errors.js')).usageError('--limit must be a whole number of at least 1');
    }
    const policyFlag = typeof argv['policy'] === 'string' ? argv['policy'] : undefined;
    const [{ openStore }, list, { oneLine }, { toModel }] = await Promise.all([
      import('../shared/open-store.js'),
      import('../../output/session-list.js'),
      import('../../terminal/sanitize.js'),
      import('../../protocol/policy-ref.js'),
    ]);
    const policy = policyFlag === undefined ? undefined : toModel(policyFlag);
    const state = typeof argv['state'] === 'string' ? argv['state'] : undefined;
    const { ctx, globals } = env;
    const store = await openStore(env);
    const { sessions, unreadable } = await store.list();
    for (const u of unreadable) ctx.io.stderr.write(`nsed: warning: skipped ${oneLine(u.file, 300)}: ${oneLine(u.reason, 200)}\n`);
    const chosen = sessions
      .filter((s) => (policy === undefined || s.policy === policy) && (state === undefined || s.state === state))
      .slice(0, typeof limit === 'number' ? limit : undefined)
      .map(list.listItem);

    let text: string;
    if (argv['ids'] === true) text = chosen.map((s) => `${s.id}\n`).join('');
    else if (argv['json'] === true || globals.output === 'json') text = list.sessionJson(chosen);
    else if (globals.output === 'ndjson') text = list.sessionNdjson(chosen);
    else if (ctx.io.stdoutIsTTY) text = chosen.length === 0 ? '' : list.sessionTable(chosen, ctx.clock.now());
    else text = list.sessionLines(chosen);
    if (text === '' && ctx.io.stdoutIsTTY && !ctx.io.quiet) {
      ctx.io.stderr.write(sessions.length === 0 ? "no sessions yet; start one with 'nsed ask'\n" : 'no session matches\n');
    }
    await (await import('../../output/session-write.js')).writeStdout(ctx.io, text);
    return 0;
  },
};
