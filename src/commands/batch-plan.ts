import { usageError } from '../errors.js';
import type { Context } from '../run/context.js';
import type { BatchFormat } from '../batch/items.js';
import type { PlanBy } from '../batch/shard-plan.js';
import type { ResolvedItem } from '../batch/resolve.js';
import type { TurnOptions } from '../turn/turn-options.js';
import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { MAX_STDIN_BYTES, readFlagFile, readStdin, STDIN_MARKER } from '../input/prompt.js';
import { CORE_TURN_FLAGS, parseTurnOptions } from './shared/turn-flags.js';
import { parseInputOptions, TEMPLATE_FLAGS } from './shared/input-flags.js';

const GROUP = 'Plan:';

/** The default plan file: what `batch --shard-plan` is given in the documented recipes. */
export const DEFAULT_PLAN_FILE = 'nsed-shard-plan.json';

const PLAN_FLAGS = [
  {
    name: 'shards',
    type: 'number',
    integer: true,
    min: 1,
    max: 256,
    group: GROUP,
    valueName: 'N',
    describe: 'how many shards (legs of the matrix), 1-256',
  },
  {
    name: 'by',
    type: 'string',
    choices: ['count', 'cost'],
    default: 'count',
    group: GROUP,
    describe:
      "balance the shards by their items' count, or by each item's estimated cost (longest first onto the lightest)",
  },
  {
    name: 'out',
    type: 'string',
    group: GROUP,
    valueName: 'FILE',
    complete: 'file',
    defaultDescription: DEFAULT_PLAN_FILE,
    describe: 'write the plan to FILE, for batch --shard I/N --shard-plan FILE',
  },
  {
    name: 'format',
    type: 'string',
    choices: ['jsonl', 'csv', 'lines'],
    group: GROUP,
    describe: "the file's format (default: from its extension; .jsonl, .csv, else one prompt per line)",
  },
] as const satisfies readonly FlagDef[];

/** The turn flags an item's estimate depends on: the council and its rounds. */
const COUNCIL_FLAGS = CORE_TURN_FLAGS.filter((f) => ['policy', 'model', 'agents', 'rounds'].includes(f.name));

export interface PlanOptions {
  file: string;
  shards: number;
  by: PlanBy;
  out: string;
  format: BatchFormat | undefined;
  template: string | undefined;
  turn: TurnOptions;
}

const PLAN_POSITIONALS = [
  { name: 'items', describe: 'the items: a .jsonl, .csv or text file; - reads stdin', complete: 'file' },
] as const satisfies readonly PositionalDef[];

/**
 * `nsed batch plan ITEMS --shards N`: how a batch splits across N machines, as a GitHub matrix on
 * stdout (`-o json`: `{"include":[{"shard":"1/4"},…]}`) and a plan file `batch --shard-plan`
 * reads. By cost, the items' estimates come from one read of `/agents` and `/policies`; nothing
 * is sent.
 */
export const batchPlan: CommandDef<PlanOptions> = {
  command: 'plan <items>',
  describe: 'split a batch into N shards for a CI matrix: the matrix on stdout, the plan in a file',
  positionals: PLAN_POSITIONALS,
  flags: [...PLAN_FLAGS, ...TEMPLATE_FLAGS.slice(0, 1), ...COUNCIL_FLAGS],
  conflicts: [['model', 'policy']],
  examples: [
    ['nsed batch plan evals.jsonl --shards 4 -o json', 'the GitHub matrix of 4 legs; the plan in nsed-shard-plan.json'],
    ['nsed batch plan evals.jsonl --shards 16 --by cost -p deep', 'as much expected cost on each of 16 shards'],
  ],
  epilog:
    'Without -o json, a line per shard: its items and, by cost, its expected cost. Each leg then runs nsed batch ITEMS --shard I/N --shard-plan FILE; nsed batch merge joins their results.',
  parse: (argv, settings) => {
    const raw = positionalValues(PLAN_POSITIONALS, argv).items;
    const file = raw === STDIN_MARKER ? '-' : (raw ?? '');
    if (file.trim() === '')
      throw usageError('batch plan needs a file of items', 'nsed batch plan items.jsonl --shards 4');
    const f = flagValues(PLAN_FLAGS, argv);
    const turn = parseTurnOptions(argv, settings);
    if (f.shards === undefined) throw usageError('batch plan needs --shards N', 'e.g. --shards 4');
    const { template } = parseInputOptions(argv);
    return {
      file,
      shards: f.shards,
      by: f.by === 'cost' ? 'cost' : 'count',
      out: f.out ?? DEFAULT_PLAN_FILE,
      format: f.format,
      template,
      turn,
    };
  },
  run: async (opts, ctx) => runPlan(opts, ctx),
};

async function runPlan(opts: PlanOptions, ctx: Context): Promise<number> {
  const [{ parseItems, formatOf }, { resolveItems }, { parseTemplate }, { itemsSha256 }, planMod, { machine }] =
    await Promise.all([
      import('../batch/items.js'),
      import('../batch/resolve.js'),
      import('../input/template.js'),
      import('../batch/shard-identity.js'),
      import('../batch/shard-plan.js'),
      import('./shared/estimate-flag.js'),
    ]);
  const text =
    opts.file === '-'
      ? await readStdin(ctx, 'the items', MAX_STDIN_BYTES)
      : await readFlagFile(opts.file, 'the batch file', ctx, MAX_STDIN_BYTES);
  const template =
    opts.template === undefined
      ? undefined
      : parseTemplate(await readFlagFile(opts.template, '--template', ctx), opts.template);
  // The same items, resolved the same way, as `batch` resolves them: the plan's hash is theirs.
  const items = resolveItems(
    parseItems(text, formatOf(opts.file, opts.format), opts.file === '-' ? '(stdin)' : opts.file),
    template,
  );
  const estimates = opts.by === 'cost' ? await estimatesOf(ctx, items, opts.turn) : undefined;
  const { plan, unknownCost } = planMod.planShards(items, opts.shards, opts.by, itemsSha256(items), estimates);
  await (await import('../turn/reports/write-reports.js')).writeReportFile(opts.out, `${JSON.stringify(plan)}\n`);
  if (!ctx.io.quiet) {
    if (opts.by === 'cost' && plan.by === 'count')
      ctx.io.stderr.write('nsed: warning: no item has a cost estimate, so the shards are balanced by count\n');
    else if (unknownCost > 0)
      ctx.io.stderr.write(
        `nsed: warning: ${unknownCost} item${unknownCost === 1 ? ' has' : 's have'} no cost estimate and count at the mean of the others\n`,
      );
    ctx.io.stderr.write(`wrote the plan of ${plan.shards} shards to ${opts.out}\n`);
  }
  if (machine(ctx)) {
    ctx.io.stdout.write(`${JSON.stringify(planMod.planMatrix(plan.shards))}\n`);
    return 0;
  }
  const counts = Array.from({ length: plan.shards }, () => 0);
  for (const s of Object.values(plan.assign)) counts[s - 1] = (counts[s - 1] ?? 0) + 1;
  const { money } = await import('../council/usage.js');
  for (let i = 0; i < plan.shards; i++) {
    const weight = plan.by === 'cost' ? `, ${money(plan.weights[i] ?? 0)} expected` : '';
    ctx.io.stdout.write(`shard ${i + 1}/${plan.shards}: ${counts[i]} item${counts[i] === 1 ? '' : 's'}${weight}\n`);
  }
  return 0;
}

/** Each item's expected cost (its estimate's high end, as a batch's cap counts it); null where none is known. */
async function estimatesOf(
  ctx: Context,
  items: readonly ResolvedItem[],
  turn: TurnOptions,
): Promise<Map<string, number | null>> {
  const [{ estimateItems }, { readEstimateSources }] = await Promise.all([
    import('../batch/estimate-items.js'),
    import('../turn/estimate-turn.js'),
  ]);
  const conn = await ctx.connect();
  try {
    const estimate = estimateItems(ctx, items, turn, await readEstimateSources(conn.client, ctx.signal));
    return new Map(estimate.items.map((i) => [i.id, i.estimate.high.cost_usd]));
  } finally {
    await conn.close();
  }
}
