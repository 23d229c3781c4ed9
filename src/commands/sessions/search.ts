import { usageError } from '../../errors.js';
import { GATE_OF_WORD, GATE_WORDS, queryTerms } from '../../session/index.js';
import type { GateStatus } from '../../council/verdict.js';
import type { CommandDef } from '../command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from '../shared/flag-def.js';
import { checkSince, SINCE_FLAG } from '../shared/session-index.js';
import { toModel } from '../../protocol/policy-ref.js';

export interface SearchOptions {
  query: string;
  policy: string | undefined;
  since: string | undefined;
  /** The recorded status the last gated answer must have. */
  gate: GateStatus | undefined;
  limit: number | undefined;
  json: boolean;
}

const SEARCH_FLAGS = [
  {
    name: 'policy',
    alias: 'p',
    type: 'string',
    describe: 'only sessions whose active policy is this (deep or nsed:deep)',
    valueName: 'POLICY',
    complete: 'policy',
    sample: 'nsed:deep',
  },
  SINCE_FLAG,
  {
    name: 'gate',
    type: 'string',
    choices: GATE_WORDS,
    describe: 'only sessions whose last gated answer passed, failed or was inconclusive',
  },
  {
    name: 'limit',
    alias: 'n',
    type: 'number',
    integer: true,
    min: 1,
    describe: 'show at most N sessions (default 20)',
  },
  {
    name: 'json',
    type: 'boolean',
    default: false,
    describe:
      'a JSON array of the sessions-ls items, best first, each with score, matched (question, claims, answer) and gate (also -o json)',
  },
] as const satisfies readonly FlagDef[];

const DEFAULT_LIMIT = 20;
/** Each word is a lookup per field: a bound on the work one query asks for. */
const MAX_WORDS = 32;

const SEARCH_POSITIONALS = [
  { name: 'query', array: true, describe: 'the words to find (every one must appear)' },
] as const satisfies readonly PositionalDef[];

/**
 * `nsed sessions search QUERY`: the sessions whose question, answer or claims (with their
 * verdicts) hold every word of QUERY, best first: a word in the question counts 3, in a claim 2,
 * in an answer 1; ties by recency, then id. Served from the search index (session/search-index/),
 * brought up to date first; archived sessions are left out.
 */
export const search: CommandDef<SearchOptions> = {
  command: 'search [query..]',
  describe: 'find sessions by the words of their questions, answers and claims',
  positionals: SEARCH_POSITIONALS,
  flags: SEARCH_FLAGS,
  examples: [
    ['nsed sessions search retry budget', 'sessions about retry budgets, best match first'],
    ['nsed sessions search cache --gate failed --since 7d', 'failed gates of the last week that mention a cache'],
    ["nsed sessions search postgres --json | jq -r '.[0].id'", 'the id of the best match'],
  ],
  fast: { positional: 'prompt' },
  parse: (argv) => {
    const f = flagValues(SEARCH_FLAGS, argv);
    const p = positionalValues(SEARCH_POSITIONALS, argv);
    const query = [...p.query, ...p['--']].join(' ');
    const words = queryTerms(query).length;
    if (words === 0) throw usageError('name the words to search for', 'for example: nsed sessions search retry budget');
    if (words > MAX_WORDS)
      throw usageError(
        `the query has ${words} different words; search takes at most ${MAX_WORDS}`,
        'keep the words that tell the sessions apart',
      );
    return {
      query,
      policy: f.policy === undefined ? undefined : toModel(f.policy),
      since: checkSince(f.since),
      gate: f.gate === undefined ? undefined : GATE_OF_WORD[f.gate],
      limit: f.limit,
      json: f.json,
    };
  },
  run: async (opts, ctx) => {
    const [list, { openIndex, sinceIso }, { inertJson }, { writeStdout }] = await Promise.all([
      import('../../output/session-list.js'),
      import('../shared/session-index.js'),
      import('../../output/export/inert-json.js'),
      import('../../output/session-write.js'),
    ]);
    const index = await openIndex(ctx);
    let hits;
    try {
      const filters = {
        ...(opts.policy === undefined ? {} : { policy: opts.policy }),
        ...(opts.gate === undefined ? {} : { gate: opts.gate }),
        ...(opts.since === undefined ? {} : { since: sinceIso(opts.since, ctx.clock.now()) }),
      };
      hits = await index.search(opts.query, filters, opts.limit ?? DEFAULT_LIMIT);
    } finally {
      index.close();
    }
    const mode = ctx.globals.settings.output.value;
    let text: string;
    const items = hits.map((h) => ({
      ...list.listItem(h.entry),
      gate: h.entry.gate,
      score: h.score,
      matched: h.fields,
    }));
    if (opts.json || mode === 'json') text = inertJson(items);
    else if (mode === 'ndjson') text = list.sessionNdjson(items);
    else if (ctx.io.stdoutIsTTY)
      text =
        hits.length === 0
          ? ''
          : list.sessionTable(
              hits.map((h) => h.entry),
              ctx.clock.now(),
              (ctx.io.stdout as { columns?: number }).columns,
            );
    else text = list.sessionLines(hits.map((h) => h.entry));
    if (hits.length === 0 && ctx.io.stdoutIsTTY && !ctx.io.quiet) ctx.io.stderr.write('no session matches\n');
    await writeStdout(ctx.io, text);
    return 0;
  },
};
