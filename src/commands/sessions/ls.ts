import { toModel } from '../../protocol/policy-ref.js';
import { SESSION_STATES, type SessionState } from '../../session/index.js';
import type { CommandDef } from '../command.js';
import { flagValues, type FlagDef } from '../shared/flag-def.js';

export interface LsOptions {
  limit: number | undefined;
  /** The model string (`nsed:deep`) a listed session's active policy must equal. */
  policy: string | undefined;
  state: SessionState | undefined;
  /** Only the sessions `nsed batch` ran as items of this batch. */
  batch: string | undefined;
  /** List the archived sessions (`sessions archive`) instead of the others. */
  archived: boolean;
  /** What to print; `auto` follows the global output mode and whether stdout is a terminal. */
  format: 'ids' | 'json' | 'auto';
}

const LS_FLAGS = [
  { name: 'limit', alias: 'n', type: 'number', integer: true, min: 1, describe: 'show at most N sessions' },
  {
    name: 'policy',
    alias: 'p',
    type: 'string',
    describe: 'only sessions whose active policy is this (deep or nsed:deep)',
    valueName: 'POLICY',
    complete: 'policy',
    sample: 'nsed:deep',
  },
  { name: 'state', type: 'string', choices: SESSION_STATES, describe: 'only sessions in this state' },
  {
    name: 'batch',
    type: 'string',
    describe: "only the sessions of this batch (the `batch` of its result lines, and of 'nsed batch' on stderr)",
    valueName: 'ID',
    sample: 'batch-0123456789ab',
  },
  {
    name: 'archived',
    type: 'boolean',
    default: false,
    describe: "list the archived sessions instead ('nsed sessions archive'; 'unarchive' brings them back)",
  },
  {
    name: 'json',
    type: 'boolean',
    default: false,
    describe:
      "a JSON array of {id, title, policy, turns, created, updated, state, forked_from, batch, usage} (usage: what the session's answers cost together; also -o json)",
  },
  {
    name: 'ids',
    type: 'boolean',
    default: false,
    describe: 'print only the ids, one per line (what the completion scripts use)',
  },
] as const satisfies readonly FlagDef[];

/**
 * `nsed sessions ls`: newest activity first, a page at a time (-n) from the search index
 * (session/search-index/), never the transcripts: the index is brought up to date when the
 * sessions directory changed, and each session shown is checked against its file first
 * (docs/reliability.md #58). Nothing of the network or the spinner is loaded, so it stays fast
 * with 100,000 sessions.
 */
export const ls: CommandDef<LsOptions> = {
  command: 'ls',
  describe: 'list sessions, newest activity first',
  aliases: ['list'],
  flags: LS_FLAGS,
  examples: [
    ['nsed sessions ls -n 5', 'the five most recently active sessions'],
    ["nsed sessions ls --state interrupted --json | jq -r '.[].id'", 'ids of sessions whose answer was cut short'],
    ['nsed sessions ls --batch batch-0123456789ab --ids', "the sessions of one batch's items"],
  ],
  fast: { positional: 'none' },
  parse: (argv) => {
    const f = flagValues(LS_FLAGS, argv);
    return {
      limit: f.limit,
      policy: f.policy === undefined ? undefined : toModel(f.policy),
      state: f.state,
      batch: f.batch,
      archived: f.archived,
      format: f.ids ? 'ids' : f.json ? 'json' : 'auto',
    };
  },
  run: async (opts, ctx) => {
    const [list, { oneLine }, { openIndex }] = await Promise.all([
      import('../../output/session-list.js'),
      import('../../terminal/sanitize.js'),
      import('../shared/session-index.js'),
    ]);
    const { policy, state, batch, limit, archived } = opts;
    const { globals } = ctx;
    const index = await openIndex(ctx);
    let chosen;
    let none: boolean;
    try {
      const filters = {
        archived,
        ...(policy === undefined ? {} : { policy }),
        ...(state === undefined ? {} : { state }),
        ...(batch === undefined ? {} : { batch }),
      };
      chosen = await index.page(filters, limit);
      for (const u of index.unreadable())
        ctx.io.stderr.write(`nsed: warning: skipped ${oneLine(u.file, 300)}: ${oneLine(u.reason, 200)}\n`);
      // Which of the two messages an empty answer gets: only asked when there is nothing to show.
      none =
        chosen.length === 0 &&
        (await index.page({}, 1)).length === 0 &&
        (await index.page({ archived: true }, 1)).length === 0;
    } finally {
      index.close();
    }

    // The documented item shape (every key present) only where a format prints whole items.
    let text: string;
    if (opts.format === 'ids') text = chosen.map((s) => `${s.id}\n`).join('');
    else if (opts.format === 'json' || globals.settings.output.value === 'json')
      text = list.sessionJson(chosen.map(list.listItem));
    else if (globals.settings.output.value === 'ndjson') text = list.sessionNdjson(chosen.map(list.listItem));
    else if (ctx.io.stdoutIsTTY)
      text =
        chosen.length === 0
          ? ''
          : list.sessionTable(chosen, ctx.clock.now(), (ctx.io.stdout as { columns?: number }).columns);
    else text = list.sessionLines(chosen);
    if (text === '' && ctx.io.stdoutIsTTY && !ctx.io.quiet) {
      if (!ctx.io.quiet)
        ctx.io.stderr.write(none ? "no sessions yet; start one with 'nsed ask'\n" : 'no session matches\n');
    }
    await (await import('../../output/session-write.js')).writeStdout(ctx.io, text);
    return 0;
  },
};
