import { STATS_GROUPS, type StatsGroup } from '../../session/index.js';
import type { CommandDef } from '../command.js';
import { flagValues, type FlagDef } from '../shared/flag-def.js';
import { checkSince, SINCE_FLAG } from '../shared/session-index.js';

export interface StatsOptions {
  by: StatsGroup | undefined;
  since: string | undefined;
  json: boolean;
}

const STATS_FLAGS = [
  {
    name: 'by',
    type: 'string',
    choices: STATS_GROUPS,
    describe: 'one row per day the sessions were created (UTC), per policy or per batch; default: one row for all',
  },
  SINCE_FLAG,
  {
    name: 'json',
    type: 'boolean',
    default: false,
    describe:
      'a JSON array of rows {key, sessions, turns, answers, input_tokens, output_tokens, cost_usd, unknown_cost_answers, gates, convergence, leader_changed} (also -o json)',
  },
] as const satisfies readonly FlagDef[];

/**
 * `nsed sessions stats`: turns, tokens, cost, gate outcomes, convergence and how often the debate
 * changed the leader, from the search index (never by reading every session file). A cost no
 * server reported is counted apart, never summed as 0; a figure no session reported is null.
 * Archived sessions count: they are hidden from the listing, not from the history.
 */
export const stats: CommandDef<StatsOptions> = {
  command: 'stats',
  describe: 'sum up the sessions: turns, tokens, cost, gates, convergence, by day, policy or batch',
  flags: STATS_FLAGS,
  examples: [
    ['nsed sessions stats --since 30d', 'the last month at a glance'],
    ['nsed sessions stats --by policy --json', 'what each policy cost and how often its gates passed'],
  ],
  fast: { positional: 'none' },
  parse: (argv) => {
    const f = flagValues(STATS_FLAGS, argv);
    return { by: f.by, since: checkSince(f.since), json: f.json };
  },
  run: async (opts, ctx) => {
    const [{ openIndex, sinceIso }, { statsOf }, { statsText }, { inertJson }, { toJsonLine }, { writeStdout }] =
      await Promise.all([
        import('../shared/session-index.js'),
        import('../../session/index.js'),
        import('../../output/session-stats.js'),
        import('../../output/export/inert-json.js'),
        import('../../output/ndjson.js'),
        import('../../output/session-write.js'),
      ]);
    const index = await openIndex(ctx);
    let rows;
    try {
      const since = sinceIso(opts.since, ctx.clock.now());
      const filters = since === undefined ? {} : { since };
      // Archived sessions are part of the history the figures describe.
      const entries = [...(await index.entries(filters)), ...(await index.entries({ ...filters, archived: true }))];
      rows = statsOf(entries, opts.by);
    } finally {
      index.close();
    }
    const mode = ctx.globals.settings.output.value;
    const text =
      opts.json || mode === 'json'
        ? inertJson(rows)
        : mode === 'ndjson'
          ? rows.map((r) => toJsonLine(r)).join('')
          : statsText(rows, opts.by);
    await writeStdout(ctx.io, text);
    return 0;
  },
};
