import { resolve as resolvePath } from 'node:path';
import { usageError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import type { Context } from '../run/context.js';
import type { EarlierLine } from '../batch/earlier-results.js';
import type { ShardFile } from '../batch/merge.js';
import type { ResolvedItem } from '../batch/resolve.js';
import type { ReportOptions } from '../turn/reports/report-options.js';
import type { CommandDef } from './command.js';
import { batchReportFlag, parsePassRate } from './shared/batch-flags.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { MAX_STDIN_BYTES, readFlagFile } from '../input/prompt.js';
import { parseReportOptions } from './shared/report-flags.js';

const GROUP = 'Merge:';

const MERGE_FLAGS = [
  {
    name: 'out',
    type: 'string',
    group: GROUP,
    valueName: 'FILE',
    complete: 'file',
    describe: 'write the merged result lines to FILE (in item order) instead of stdout',
  },
  {
    name: 'items',
    type: 'string',
    group: GROUP,
    valueName: 'FILE',
    complete: 'file',
    describe: "the batch's items file: name each item that has no line (else only the shards are counted)",
  },
  {
    name: 'format',
    type: 'string',
    choices: ['jsonl', 'csv', 'lines'],
    group: GROUP,
    describe: "the --items file's format (default: from its extension)",
  },
  {
    name: 'shard-plan',
    type: 'string',
    group: GROUP,
    valueName: 'FILE',
    complete: 'file',
    describe: 'the plan the shards ran by (batch plan --out FILE): which shard each item belongs to',
  },
  {
    name: 'min-pass-rate',
    type: 'string',
    group: GROUP,
    describe: 'exit 0 when this share of all items is ok (0-1 or 80%)',
  },
] as const satisfies readonly FlagDef[];

export interface MergeOptions {
  files: string[];
  out: string | undefined;
  items: string | undefined;
  format: 'jsonl' | 'csv' | 'lines' | undefined;
  shardPlan: string | undefined;
  minPassRate: number | undefined;
  reports: ReportOptions | undefined;
}

const MERGE_POSITIONALS = [
  { name: 'results', array: true, describe: 'the --out files of batch --shard 1/N ... N/N', complete: 'file' },
] as const satisfies readonly PositionalDef[];

/**
 * `nsed batch merge RESULTS...`: the shards of one matrix joined into one verdict. Every file must
 * be a shard of the same batch (the same items and flags: exit 2 naming the odd files); a shard
 * with no results, or one cut short, is named and is exit 16 once the merged files are written
 * with what there is; otherwise the exit code is the batch's, by its worst-status rule.
 */
export const batchMerge: CommandDef<MergeOptions> = {
  command: 'merge [results..]',
  describe: "join the shards' results files of one batch: one results file, summary, JUnit file and exit code",
  positionals: MERGE_POSITIONALS,
  flags: [
    ...MERGE_FLAGS,
    batchReportFlag(
      'summary',
      'write GitHub step-summary markdown to FILE: a table row per item of the whole matrix',
      GROUP,
    ),
    batchReportFlag('junit', 'write one JUnit XML report to FILE: one test case per item of the whole matrix', GROUP),
    batchReportFlag('junit-name', "the JUnit test suite's name (default: the --items file's name, else batch)", GROUP),
    batchReportFlag(
      'github-output',
      'append step outputs (batch-id, status, exit-code, items, items-ok, …) to FILE (default under GitHub Actions: $GITHUB_OUTPUT)',
      GROUP,
    ),
    batchReportFlag(
      'check-run',
      "write one GitHub check run NAME on the head commit: the whole matrix's exit code as its conclusion, its summary; a re-run updates it",
      GROUP,
    ),
  ],
  examples: [
    [
      'nsed batch merge shard-*.jsonl --items evals.jsonl --out results.jsonl --junit nsed.xml',
      "the matrix's shards as one batch",
    ],
  ],
  epilog:
    'Exit 2 when the files come from different items, flags or shard counts (nothing is merged); 16 when a shard or an item has no line (the merged files are written with what there is); else 0 when every item is ok, or the code of the worst status, as batch exits.',
  parse: (argv) => {
    const p = positionalValues(MERGE_POSITIONALS, argv);
    const files = [...p.results, ...p['--']];
    if (files.length === 0)
      throw usageError(
        'batch merge needs the results files of the shards',
        'nsed batch merge shard-1.jsonl shard-2.jsonl',
      );
    const f = flagValues(MERGE_FLAGS, argv);
    if (f.format !== undefined && f.items === undefined)
      throw usageError("--format is the --items file's format", 'add --items FILE, or leave --format out');
    return {
      files,
      out: f.out,
      items: f.items,
      format: f.format,
      shardPlan: f['shard-plan'],
      minPassRate: parsePassRate(f['min-pass-rate']),
      reports: parseReportOptions(argv),
    };
  },
  run: async (opts, ctx) => runMerge(opts, ctx),
};

async function runMerge(opts: MergeOptions, ctx: Context): Promise<number> {
  const [merge, { boundsOf }, { batchExit, STATUS_ORDER }, { writeBatchReports }, shardMod, { NsedError, ExitCode }] =
    await Promise.all([
      import('../batch/merge.js'),
      import('../files/read-input.js'),
      import('../batch/status.js'),
      import('../batch/reports.js'),
      import('../batch/shard.js'),
      import('../errors.js'),
    ]);
  const out = opts.out === undefined ? undefined : resolvePath(opts.out);
  // The merged file never replaces one of the shards' files: those are what it is made from.
  if (out !== undefined && opts.files.some((f) => resolvePath(f) === out))
    throw usageError(
      `--out ${opts.out ?? ''} is one of the results files merged`,
      'give the merged results another name',
    );
  const files: ShardFile[] = [];
  for (const file of opts.files) files.push(await merge.readShardFile(file, boundsOf(ctx)));
  const first = merge.checkOneBatch(files);
  // An item in two files (a leg run twice): the later file's line stands, as a later line does in one file.
  const byId = new Map<string, { line: EarlierLine; raw: string }>();
  for (const f of files) for (const line of f.lines) byId.set(line.id, { line, raw: f.raw.get(line.id) ?? '' });
  const merged = [...byId.values()].sort((a, b) => a.line.index - b.line.index);
  const lines = merged.map((m) => m.line);
  const all = await wholeBatch(ctx, opts, first, shardMod.shardIndexOf);
  if (all !== undefined) {
    const known = new Set(all.ids);
    const stray = lines.find((l) => !known.has(l.id));
    if (stray !== undefined)
      throw usageError(
        `the results hold item '${oneLine(stray.id, 60)}', which ${oneLine(opts.items ?? opts.shardPlan ?? '', 200)} does not hold`,
        'give the items file (or plan) the shards ran',
      );
  }
  const gaps = merge.findGaps(
    lines,
    files.flatMap((f) => f.stamps),
    first.count,
    all,
  );
  const incomplete = merge.hasGaps(gaps);
  const text = ctx.secrets.redact(merged.map((m) => `${m.raw}\n`).join(''));
  if (out === undefined) ctx.io.stdout.write(text);
  else await (await import('../turn/reports/write-reports.js')).writeReportFile(out, text);
  const exitCode = incomplete ? ExitCode.incomplete : batchExit(lines, opts.minPassRate);
  const missing: ResolvedItem[] = (all?.ids ?? [])
    .filter((id) => !byId.has(id))
    .map((id) => ({ id, index: all?.index.get(id) ?? 0, prompt: '', files: [] }));
  const now = ctx.clock.now().getTime();
  await writeBatchReports(ctx, opts.reports, {
    batch: `matrix-${first.items_sha256.slice(0, 12)}`,
    source: opts.items ?? 'batch',
    exitCode,
    out,
    saved: lines.some((l) => typeof (l as unknown as { session?: unknown }).session === 'string'),
    startedMs: now,
    wallMs: 0,
    items: missing,
    lines: [],
    earlier: lines,
    progress: { durations: new Map(), interruptedIds: new Set() },
    merged: { shards: shardsWithLines(lines), count: first.count },
  });
  if (!ctx.io.quiet)
    ctx.io.stderr.write(`${mergedText(files.length, first.count, lines, missing.length, STATUS_ORDER)}\n`);
  if (incomplete)
    throw new NsedError('incomplete', merge.gapsText(gaps, first.count), {
      hint:
        all === undefined
          ? 'run the missing shards again (--resume), then merge again; --items FILE names the missing items'
          : 'run the missing shards again (--resume), then merge again',
    });
  return exitCode;
}

/**
 * Every item id of the batch and its shard, from --items (its shard by the plan, else by the
 * hash --shard uses when the shards split by it) or from --shard-plan alone; undefined without either.
 */
async function wholeBatch(
  ctx: Context,
  opts: MergeOptions,
  stamp: { items_sha256: string; count: number; split: 'hash' | 'plan' },
  shardIndexOf: (id: string, count: number) => number,
): Promise<{ ids: string[]; index: Map<string, number>; shardOf: ((id: string) => number) | undefined } | undefined> {
  let assign: Record<string, number> | undefined;
  if (opts.shardPlan !== undefined) {
    const { parsePlan } = await import('../batch/shard-plan.js');
    const plan = parsePlan(await readFlagFile(opts.shardPlan, '--shard-plan', ctx, MAX_STDIN_BYTES), opts.shardPlan);
    if (plan.items_sha256 !== stamp.items_sha256 || plan.shards !== stamp.count)
      throw usageError(
        `--shard-plan ${opts.shardPlan} is not the plan these shards ran (other items or shard count)`,
        'give the plan the matrix was made from',
      );
    assign = plan.assign;
  }
  // Shards split by a plan the merge was not given: which shard an item was in is not known.
  const shardOf =
    assign !== undefined
      ? (id: string): number => assign[id] ?? 0
      : stamp.split === 'hash'
        ? (id: string): number => shardIndexOf(id, stamp.count)
        : undefined;
  if (opts.items === undefined) {
    if (assign === undefined) return undefined;
    const ids = Object.keys(assign);
    return { ids, index: new Map(ids.map((id, i) => [id, i])), shardOf };
  }
  const { parseItems, formatOf } = await import('../batch/items.js');
  const text = await readFlagFile(opts.items, '--items', ctx, MAX_STDIN_BYTES);
  const items = parseItems(text, formatOf(opts.items, opts.format), opts.items);
  return { ids: items.map((i) => i.id), index: new Map(items.map((i) => [i.id, i.index])), shardOf };
}

/** How many shards have a line among `lines`. */
const shardsWithLines = (lines: readonly EarlierLine[]): number =>
  new Set(lines.map((l) => (l as unknown as { shard?: { index?: number } }).shard?.index)).size;

/** `merged 4 of 4 shards (4 files): 10 items: 9 ok, 1 gate_failed`, worst first as batch's summary line, and what is missing. */
function mergedText(
  files: number,
  count: number,
  lines: readonly EarlierLine[],
  missing: number,
  order: readonly string[],
): string {
  const shards = shardsWithLines(lines);
  const parts = order
    .map((s) => [s, lines.filter((l) => l.status === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  return `merged ${shards} of ${count} shards (${files} file${files === 1 ? '' : 's'}): ${lines.length} items${parts === '' ? '' : `: ${parts}`}${missing > 0 ? ` (${missing} without a line)` : ''}`;
}
