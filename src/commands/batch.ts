import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { usageError } from '../errors.js';
import type { BatchFormat } from '../batch/items.js';
import type { ResolvedItem } from '../batch/resolve.js';
import type { Context } from '../run/context.js';
import { givenByFlag, type RunSettings } from '../run/settings.js';
import type { ReportOptions } from '../turn/reports/report-options.js';
import type { TurnOptions } from '../turn/turn-options.js';
import type { Shard } from '../batch/shard.js';
import type { ShardCapReport } from '../batch/shard-cap.js';
import type { ShardRun } from '../batch/shard-run.js';
import type { TurnCap } from '../council/spend-cap.js';
import type { Gates } from '../council/verdict.js';
import type { CommandDef, CommandGroup, ParsedArgv } from './command.js';
import { batchMerge } from './batch-merge.js';
import { batchPlan } from './batch-plan.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { GATE_FLAGS, loadGates, parseGateFlags, type GateRequest } from './shared/gate-flags.js';
import { IDEMPOTENCY_FLAGS, parseIdempotencyFlags, type IdempotencyOptions } from './shared/idempotency-flags.js';
import type { InputOptions } from '../input/turn-input.js';
import { FILE_FLAGS, SCHEMA_FLAGS, TEMPLATE_FLAGS, parseInputOptions } from './shared/input-flags.js';
import { MAX_STDIN_BYTES, readFlagFile, readStdin, STDIN_MARKER } from '../input/prompt.js';
import { parseReportOptions } from './shared/report-flags.js';
import { batchReportFlag, parsePassRate } from './shared/batch-flags.js';
import { CORE_TURN_FLAGS, parseTurnOptions, TURN_CONFLICTS } from './shared/turn-flags.js';
import { ESTIMATE_FLAG, parseEstimate } from './shared/estimate-flag.js';
import { ownFlags } from './shared/setting-flags.js';
import { settingOfFlag } from './global-options.js';

const GROUP = 'Batch:';
export const DEFAULT_JOBS = 4;
const MAX_JOBS = 256;

// Declared `as const`, so that parseBatch reads each flag typed from its entry (FlagValues).
const BATCH_RUN = [
  {
    name: 'format',
    type: 'string',
    choices: ['jsonl', 'csv', 'lines'],
    group: GROUP,
    describe: "the file's format (default: from its extension; .jsonl, .csv, else one prompt per line)",
  },
  {
    name: 'jobs',
    alias: 'j',
    type: 'number',
    default: DEFAULT_JOBS,
    integer: true,
    min: 1,
    max: MAX_JOBS,
    group: GROUP,
    describe: `deliberations at once (1-${MAX_JOBS})`,
  },
  {
    name: 'out',
    type: 'string',
    group: GROUP,
    describe: 'append the result lines to FILE (fsync after each) instead of stdout',
  },
  {
    name: 'min-pass-rate',
    type: 'string',
    group: GROUP,
    describe: 'exit 0 when this share of items is ok (0-1 or 80%)',
  },
  { name: 'shard', type: 'string', group: GROUP, describe: 'run only shard I of N (I/N, by a hash of each id)' },
  {
    name: 'shard-plan',
    type: 'string',
    group: GROUP,
    valueName: 'FILE',
    complete: 'file',
    describe: "with --shard: take the shard's items from the plan `nsed batch plan --out FILE` wrote",
  },
  {
    name: 'max-cost-per-shard',
    type: 'number',
    min: 0.000001,
    group: GROUP,
    valueName: 'USD',
    describe:
      "with --shard: a ceiling of USD for this shard alone (--max-cost is the whole matrix's, each shard keeping its share)",
  },
] as const satisfies readonly FlagDef[];

const BATCH_RESUME = [
  {
    name: 'resume',
    type: 'boolean',
    group: GROUP,
    describe:
      'go on with the batch whose --out FILE this is: skip items it finished, follow those left running, append the rest',
  },
  {
    name: 'retry-errors',
    type: 'boolean',
    group: GROUP,
    describe: 'with --resume: run again the items whose last line is error or failed (never a gate failure)',
  },
  {
    name: 'allow-outside-files',
    type: 'boolean',
    group: GROUP,
    describe: 'let an item\'s "files" name files outside the batch file\'s folder (trusted batch files only)',
  },
] as const satisfies readonly FlagDef[];

/** The flags of `nsed batch` beside the turn flags, as data (one place for the flags table). */
export const BATCH_FLAGS: readonly FlagDef[] = [
  ...BATCH_RUN,
  batchReportFlag(
    'summary',
    'write GitHub step-summary markdown to FILE at the end: a table row per item (works with --no-save)',
  ),
  batchReportFlag(
    'junit',
    'write a JUnit XML report to FILE at the end: one test case per item (works with --no-save)',
  ),
  batchReportFlag('junit-name', "the JUnit test suite's name, the same on every run (default: the batch file's name)"),
  batchReportFlag(
    'github-output',
    'append step outputs (batch-id, status, exit-code, items, items-ok, …) to FILE (default under GitHub Actions: $GITHUB_OUTPUT)',
  ),
  batchReportFlag(
    'check-run',
    "write one GitHub check run NAME on the head commit at the end: the batch's exit code as its conclusion, its summary; a re-run updates it (GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_SHA from the environment)",
  ),
  ...BATCH_RESUME,
  // Per item: the key plus the item's id, so a re-run batch pays for no item twice.
  ...IDEMPOTENCY_FLAGS,
];

export interface BatchOptions {
  file: string;
  format: BatchFormat | undefined;
  jobs: number;
  out: string | undefined;
  minPassRate: number | undefined;
  shard: string | undefined;
  /** --shard-plan FILE: the plan that gives each item its shard. */
  shardPlan: string | undefined;
  /** --max-cost-per-shard USD. */
  maxCostPerShard: number | undefined;
  /** The flags that shape each item's request, as given: with --shard, hashed into each line's stamp. */
  requestFlags: Record<string, unknown>;
  reports: ReportOptions | undefined;
  resume: boolean;
  retryErrors: boolean;
  /** --allow-outside-files: an item's files may lie outside the batch file's folder. */
  allowOutsideFiles: boolean;
  turn: TurnOptions;
  gates: GateRequest;
  input: InputOptions;
  idempotency?: IdempotencyOptions;
  /** --estimate: print what each item and the batch may cost, and run nothing. */
  estimate?: boolean;
}

const POSITIONALS = [
  { name: 'items', describe: 'the items: a .jsonl, .csv or text file; - reads stdin', complete: 'file' },
] as const satisfies readonly PositionalDef[];

/** `nsed batch FILE|-`: many deliberations from one file, a JSON line per item as it ends. */
export const batch: CommandDef<BatchOptions> = {
  command: 'batch <items>',
  describe: 'run a deliberation per item of a JSONL, CSV or prompt-per-line file',
  positionals: POSITIONALS,
  // The batch's own reports are per item, not one turn's: the turn flags without theirs
  // (--summary and --junit are among BATCH_FLAGS, worded for the batch; no --html or --annotate).
  flags: [
    ...CORE_TURN_FLAGS,
    ...FILE_FLAGS,
    ...SCHEMA_FLAGS,
    ...TEMPLATE_FLAGS.slice(0, 1),
    ...GATE_FLAGS,
    ...BATCH_FLAGS,
    ESTIMATE_FLAG,
  ],
  conflicts: TURN_CONFLICTS,
  examples: [
    ['nsed batch prompts.txt > results.jsonl', 'one deliberation per line, 4 at once'],
    ['nsed batch rows.csv --template review.md -j 8 --out results.jsonl', 'a template filled from each row'],
    [
      'nsed batch evals.jsonl --min-convergence 60% --summary "$GITHUB_STEP_SUMMARY" --junit nsed.xml',
      'gate each item; a summary row and a JUnit case per item',
    ],
    ['nsed batch evals.jsonl --estimate', 'what each item and the whole batch are expected to cost; nothing is sent'],
  ],
  epilog:
    'Each result line: id, index, session, job_id, status (ok, gate_failed, inconclusive, failed, cancelled, skipped, error), answer, verdict, gate, usage, error.' +
    ' Exit 0 when every item is ok; else the code of the worst status (error, failed, cancelled, skipped, inconclusive, gate_failed).' +
    " --max-cost and --max-tokens are the batch's total: an item that would cross it is skipped (exit 15); --resume counts what was spent." +
    " With --shard I/N they are the whole matrix's, each shard keeping its share (batch plan, batch merge: docs/ci-matrix.md)." +
    ' On a terminal a live bar shows the progress; elsewhere a line per finished item.',
  parse: (argv, settings) => parseBatch(argv, settings),
  run: async (opts, ctx) => {
    const [{ parseItems, formatOf }, { resolveItems }, { parseTemplate }, { runBatch }, sinks, { parseShard }] =
      await Promise.all([
        import('../batch/items.js'),
        import('../batch/resolve.js'),
        import('../input/template.js'),
        import('../batch/run-batch.js'),
        import('../batch/result-sink.js'),
        import('../batch/shard.js'),
      ]);
    const shard = opts.shard === undefined ? undefined : parseShard(opts.shard);
    const source = opts.file === '-' ? '(stdin)' : opts.file;
    // Bounded by --timeout as every read of stdin to its end is (docs/reliability.md #111).
    const text =
      opts.file === '-'
        ? await readStdin(ctx, 'the items', MAX_STDIN_BYTES)
        : await readFlagFile(opts.file, 'the batch file', ctx, MAX_STDIN_BYTES);
    const template =
      opts.input.template === undefined
        ? undefined
        : parseTemplate(await readFlagFile(opts.input.template, '--template', ctx), opts.input.template);
    // Every item is parsed, checked and filled before the first request: a bad line sends nothing.
    const parsedItems = parseItems(text, formatOf(opts.file, opts.format), source);
    const all = resolveItems(parsedItems, template);
    if (!opts.allowOutsideFiles)
      await (await import('../batch/item-files.js')).confineItemFiles(parsedItems, opts.file);
    const gates = await loadGates(opts.gates, ctx);
    const matrixCap = {
      maxCostUsd: ctx.globals.settings.maxCostUsd.value,
      maxTokens: ctx.globals.settings.maxTokens.value,
      allowUnmetered: opts.turn.cap?.allowUnmetered,
    };
    const sharded = shard === undefined ? undefined : await shardOf(ctx, opts, shard, all, gates, matrixCap);
    const items = sharded?.items ?? all;
    if (opts.estimate === true) return printBatchEstimate(ctx, items, opts.turn, sharded?.stamp.cap);
    // Said before anything is sent: the number given is not the number this shard keeps.
    if (sharded?.capText !== undefined && !ctx.io.quiet) ctx.io.stderr.write(`${sharded.capText}\n`);
    const t = opts.turn;
    const input = { ...opts.input, template: undefined };
    const out = opts.out === undefined ? undefined : resolvePath(opts.out);
    // A results file whose links loop is refused before an item is paid for (a missing folder is
    // refused when the file is opened, also before: exit 11).
    if (opts.out !== undefined) await (await import('../files/outside-file.js')).statRefusingLoop(opts.out, '--out');
    const go = async (): Promise<number> => {
      if (out !== undefined && !opts.resume) await refuseExisting(opts.out ?? out);
      if (opts.reports !== undefined)
        await (await import('../turn/reports/report-options.js')).checkReportFiles(opts.reports);
      const store = await ctx.store();
      const plan =
        opts.resume && out !== undefined
          ? await (
              await import('../batch/resume-plan.js')
            ).planResume(ctx, store, {
              items,
              base: { turn: t, input },
              gates,
              out,
              retryErrors: opts.retryErrors,
              noSave: t.save === false,
            })
          : undefined;
      const sink =
        out === undefined
          ? sinks.stdoutSink(ctx.io)
          : await sinks.fileSink(out, {
              freshLine: plan?.cutTail === true,
              boundary: (await import('../files/kill-hook.js')).killHook(ctx.env),
            });
      return runBatch(ctx, {
        items: plan?.toRun ?? items,
        base: {
          turn: t,
          input,
          gates,
          batchId: plan?.batchId ?? `batch-${ctx.randomHex(6)}`,
          out,
          ...(opts.idempotency === undefined ? {} : { idempotency: opts.idempotency }),
        },
        jobs: opts.jobs,
        sink,
        minPassRate: opts.minPassRate,
        reports: opts.reports,
        source: opts.file,
        ...(plan === undefined ? {} : { left: plan.left, hashes: plan.hashes, earlier: plan.earlier }),
        // --max-cost, --max-tokens (or their settings): the batch's total, counting what a resumed
        // batch's earlier runs spent (docs/ci.md "Spend caps").
        // Under --shard, this shard's share of the matrix's cap (src/batch/shard-cap.ts).
        cap: sharded === undefined ? matrixCap : sharded.cap,
        ...(plan === undefined ? {} : { spent: plan.spent }),
        ...(sharded === undefined ? {} : { shard: sharded.stamp }),
      });
    };
    return out === undefined ? go() : (await import('../batch/out-lock.js')).holdingResults(out, go);
  },
};

function parseBatch(argv: ParsedArgv, settings: RunSettings): BatchOptions {
  // Not `file`: that is -f's name, and yargs would join the two.
  const raw = positionalValues(POSITIONALS, argv).items;
  const file = raw === STDIN_MARKER ? '-' : (raw ?? '');
  if (file.trim() === '') throw usageError('batch needs a file of items', 'nsed batch prompts.jsonl, or - for stdin');
  const f = flagValues([...BATCH_RUN, ...BATCH_RESUME] as const, argv);
  const out = f.out;
  const resume = f.resume === true;
  if (f.shard === undefined && f['shard-plan'] !== undefined)
    throw usageError('--shard-plan goes with --shard I/N', 'add --shard I/N, one per leg of the matrix');
  if (f.shard === undefined && f['max-cost-per-shard'] !== undefined)
    throw usageError('--max-cost-per-shard goes with --shard I/N', 'without shards, --max-cost caps the batch');
  const retryErrors = f['retry-errors'] === true;
  if (resume && out === undefined)
    throw usageError(
      '--resume needs the --out FILE of the batch to resume',
      'nsed batch items.jsonl --out results.jsonl --resume',
    );
  if (retryErrors && !resume) throw usageError('--retry-errors goes with --resume', 'add --resume --out FILE');
  return {
    file,
    format: f.format,
    jobs: f.jobs,
    out,
    minPassRate: parsePassRate(f['min-pass-rate']),
    shard: f.shard,
    shardPlan: f['shard-plan'],
    maxCostPerShard: f['max-cost-per-shard'],
    requestFlags: requestFlagsOf(argv, settings),
    reports: parseReportOptions(argv),
    resume,
    retryErrors,
    allowOutsideFiles: f['allow-outside-files'] === true,
    turn: parseTurnOptions(argv, settings),
    gates: parseGateFlags(argv),
    input: parseInputOptions(argv),
    ...idempotencyOf(argv),
    ...(parseEstimate(argv) ? { estimate: true } : {}),
  };
}

/**
 * The flags marked `shapesRequest` in batch's table, as given: what each item asks beside the
 * item. The settings among them (-p, --agents, --rounds) as their flags gave them, read once
 * where the settings were resolved.
 */
function requestFlagsOf(argv: ParsedArgv, settings: RunSettings): Record<string, unknown> {
  const shaping = (batch.flags ?? []).filter((d) => d.shapesRequest === true);
  const given: Record<string, unknown> = flagValues(ownFlags(shaping), argv);
  for (const def of shaping) {
    const setting = settingOfFlag(settings, def);
    if (setting !== undefined) given[def.name] = givenByFlag(setting);
  }
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}

/** `--shard I/N`: the shard's items, cap and stamp (src/batch/shard-run.ts), the plan read by the one reader. */
async function shardOf(
  ctx: Context,
  opts: BatchOptions,
  shard: Shard,
  all: readonly ResolvedItem[],
  gates: Gates | undefined,
  cap: TurnCap,
): Promise<ShardRun> {
  const [{ shardRun }, { parsePlan }] = await Promise.all([
    import('../batch/shard-run.js'),
    import('../batch/shard-plan.js'),
  ]);
  const plan =
    opts.shardPlan === undefined
      ? undefined
      : {
          plan: parsePlan(await readFlagFile(opts.shardPlan, '--shard-plan', ctx, MAX_STDIN_BYTES), opts.shardPlan),
          file: opts.shardPlan,
        };
  const flags = {
    request: opts.requestFlags,
    gates: gates ?? null,
    minPassRate: opts.minPassRate,
    maxCostUsd: cap.maxCostUsd,
    maxTokens: cap.maxTokens,
    maxCostPerShard: opts.maxCostPerShard,
  };
  return shardRun(shard, all, flags, cap, plan);
}

/** `batch --estimate`: each item's estimate and the total, text or one object; only GETs are sent. */
async function printBatchEstimate(
  ctx: Context,
  items: readonly ResolvedItem[],
  turn: TurnOptions,
  shardCap?: ShardCapReport | null,
): Promise<number> {
  const [{ estimateItems }, { readEstimateSources }, lines, { toJsonLine }, { machine }] = await Promise.all([
    import('../batch/estimate-items.js'),
    import('../turn/estimate-turn.js'),
    import('../output/estimate-lines.js'),
    import('../output/ndjson.js'),
    import('./shared/estimate-flag.js'),
  ]);
  const conn = await ctx.connect();
  try {
    // The agents' ids are the server's: a token it echoes in one is shown as *** (docs/reliability.md #89).
    const estimated = estimateItems(ctx, items, turn, await readEstimateSources(conn.client, ctx.signal));
    // Under --shard with a cap: the matrix's cap and this shard's share, beside the estimate.
    const estimate = ctx.secrets.redactValue(
      shardCap === undefined || shardCap === null ? estimated : { ...estimated, shard_cap: shardCap },
    );
    ctx.io.stdout.write(machine(ctx) ? toJsonLine(estimate) : lines.batchEstimateText(estimate));
    return 0;
  } finally {
    await conn.close();
  }
}

function idempotencyOf(argv: ParsedArgv): { idempotency?: IdempotencyOptions } {
  const idempotency = parseIdempotencyFlags(argv);
  return idempotency === undefined ? {} : { idempotency };
}

/** A results file that already holds lines is never appended to by a fresh batch: its lines would mix. */
async function refuseExisting(out: string): Promise<void> {
  const size = await stat(out).then(
    (s) => s.size,
    () => 0,
  );
  if (size > 0) throw usageError(`--out ${out} already holds results`, 'remove it, or give another file');
}

/** `nsed batch ITEMS` runs a batch; `nsed batch plan` splits one for a matrix, `nsed batch merge` joins the shards. */
export const batchGroup: CommandGroup = {
  command: 'batch',
  describe: batch.describe,
  bare: batch,
  subcommands: [batchPlan, batchMerge],
};
