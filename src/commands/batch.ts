import { readFile, stat } from 'node:fs/promises';
import { notFound, NsedError, usageError } from '../errors.js';
import type { BatchFormat } from '../batch/items.js';
import type { TurnOptions } from '../turn/turn-options.js';
import { stringFlag, type CommandDef, type ParsedArgv } from './command.js';
import type { FlagDef } from './shared/flag-def.js';
import { GATE_FLAGS, loadGates, parseGateFlags, type GateRequest } from './shared/gate-flags.js';
import { IDEMPOTENCY_FLAGS, parseIdempotencyFlags, type IdempotencyOptions } from './shared/idempotency-flags.js';
import {
  FILE_FLAGS,
  SCHEMA_FLAGS,
  TEMPLATE_FLAGS,
  parseInputOptions,
  type InputOptions,
} from './shared/input-flags.js';
import { STDIN_MARKER } from './shared/prompt.js';
import { CORE_TURN_FLAGS, parseTurnOptions, TURN_CONFLICTS } from './shared/turn-flags.js';

const GROUP = 'Batch:';
export const DEFAULT_JOBS = 4;
const MAX_JOBS = 256;

/** The flags of `nsed batch` beside the turn flags, as data (one place for the flags table). */
export const BATCH_FLAGS: readonly FlagDef[] = [
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
  turn: TurnOptions;
  gates: GateRequest;
  input: InputOptions;
  idempotency?: IdempotencyOptions;
}

/** `nsed batch FILE|-`: many deliberations from one file, a JSON line per item as it ends. */
export const batch: CommandDef<BatchOptions> = {
  command: 'batch <items>',
  describe: 'run a deliberation per item of a JSONL, CSV or prompt-per-line file',
  positionals: [{ name: 'items', describe: 'the items: a .jsonl, .csv or text file; - reads stdin', complete: 'file' }],
  // The batch's own reports are per item, not one turn's: the turn flags without --summary and the like.
  flags: [
    ...CORE_TURN_FLAGS,
    ...FILE_FLAGS,
    ...SCHEMA_FLAGS,
    ...TEMPLATE_FLAGS.slice(0, 1),
    ...GATE_FLAGS,
    ...BATCH_FLAGS,
  ],
  conflicts: TURN_CONFLICTS,
  examples: [
    ['nsed batch prompts.txt > results.jsonl', 'one deliberation per line, 4 at once'],
    ['nsed batch rows.csv --template review.md -j 8 --out results.jsonl', 'a template filled from each row'],
  ],
  epilog:
    'Each result line: id, index, session, job_id, status (ok, gate_failed, inconclusive, failed, cancelled, error), answer, verdict, gate, error.' +
    ' Exit 0 when every item is ok; else the code of the worst status (error, failed, cancelled, inconclusive, gate_failed).',
  parse: (argv) => parseBatch(argv),
  run: async (opts, ctx) => {
    const [
      { parseItems, formatOf },
      { resolveItems },
      { parseTemplate },
      { runBatch },
      sinks,
      { inShard, parseShard },
    ] = await Promise.all([
      import('../batch/items.js'),
      import('../batch/resolve.js'),
      import('../turn/template.js'),
      import('../batch/run-batch.js'),
      import('../batch/result-sink.js'),
      import('../batch/shard.js'),
    ]);
    const shard = opts.shard === undefined ? undefined : parseShard(opts.shard);
    const source = opts.file === '-' ? '(stdin)' : opts.file;
    const text = opts.file === '-' ? await readStdin(ctx.io.stdin) : await readItemsFile(opts.file);
    const template =
      opts.input.template === undefined
        ? undefined
        : parseTemplate(await readItemsFile(opts.input.template, '--template'), opts.input.template);
    // Every item is parsed, checked and filled before the first request: a bad line sends nothing.
    const all = resolveItems(parseItems(text, formatOf(opts.file, opts.format), source), template);
    const items = shard === undefined ? all : all.filter((i) => inShard(i.id, shard));
    const gates = await loadGates(opts.gates);
    if (opts.out !== undefined) await refuseExisting(opts.out);
    const sink = opts.out === undefined ? sinks.stdoutSink(ctx.io) : await sinks.fileSink(opts.out);
    await ctx.store();
    const t = opts.turn;
    return runBatch(ctx, {
      items,
      base: {
        turn: t,
        input: { ...opts.input, template: undefined },
        gates,
        batchId: `batch-${ctx.randomHex(6)}`,
        ...(opts.idempotency === undefined ? {} : { idempotency: opts.idempotency }),
      },
      jobs: opts.jobs,
      sink,
      minPassRate: opts.minPassRate,
      shared: {
        policy: t.policy,
        model: t.model,
        system: t.system,
        agents: t.agents,
        rounds: t.rounds,
        files: opts.input.files,
        schema: opts.input.schema,
        gates,
      },
    });
  },
};

function parseBatch(argv: ParsedArgv): BatchOptions {
  // Not `file`: that is -f's name, and yargs would join the two.
  const raw = argv['items'];
  const file = raw === STDIN_MARKER ? '-' : typeof raw === 'string' ? raw : '';
  if (file.trim() === '') throw usageError('batch needs a file of items', 'nsed batch prompts.jsonl, or - for stdin');
  const jobs = argv['jobs'] ?? DEFAULT_JOBS;
  if (typeof jobs !== 'number' || !Number.isInteger(jobs) || jobs < 1 || jobs > MAX_JOBS)
    throw usageError(`-j/--jobs must be a whole number from 1 to ${MAX_JOBS}`);
  const format = stringFlag(argv, 'format') as BatchFormat | undefined;
  return {
    file,
    format,
    jobs,
    out: stringFlag(argv, 'out'),
    minPassRate: passRate(stringFlag(argv, 'min-pass-rate')),
    shard: stringFlag(argv, 'shard'),
    turn: parseTurnOptions(argv),
    gates: parseGateFlags(argv),
    input: parseInputOptions(argv),
    ...idempotencyOf(argv),
  };
}

function idempotencyOf(argv: ParsedArgv): { idempotency?: IdempotencyOptions } {
  const idempotency = parseIdempotencyFlags(argv);
  return idempotency === undefined ? {} : { idempotency };
}

function passRate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const pct = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text);
  const n = pct !== null ? Number(pct[1]) / 100 : Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw usageError(
      `--min-pass-rate must be from 0 to 1 (or 0% to 100%), not '${text.slice(0, 20)}'`,
      'e.g. --min-pass-rate 0.9',
    );
  return n;
}

async function readItemsFile(path: string, flag = 'batch'): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(`${flag} ${path}: no such file`);
    throw new NsedError('usage', `${flag} ${path}: cannot read it (${code ?? 'unreadable'})`);
  }
}

/** At most 64 MiB of items from stdin: a batch file is data, not a stream without end. */
async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > 64 * 1024 * 1024) throw usageError('the items on stdin pass 64 MiB', 'give them as a file');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A results file that already holds lines is never appended to by a fresh batch: its lines would mix. */
async function refuseExisting(out: string): Promise<void> {
  const size = await stat(out).then(
    (s) => s.size,
    () => 0,
  );
  if (size > 0) throw usageError(`--out ${out} already holds results`, 'remove it, or give another file');
}
