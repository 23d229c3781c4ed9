import type { CommandDef } from './command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from './shared/flag-def.js';
import { STDIN_MARKER } from '../input/prompt.js';

const FLAGS = [
  {
    name: 'stderr',
    type: 'boolean',
    default: false,
    describe: 'also write the progress lines text mode wrote to stderr (off a terminal), on stderr',
  },
] as const satisfies readonly FlagDef[];

export const RENDER_FLAGS: readonly FlagDef[] = FLAGS;

const POSITIONALS = [
  { name: 'file', describe: 'the saved stream (- or none: standard input)', complete: 'file' },
] as const satisfies readonly PositionalDef[];

/** A saved stream larger than this is not one nsed wrote: refused, so no line can grow without end. */
const MAX_RENDER_BYTES = 256 * 1024 * 1024;

export interface RenderOptions {
  /** A saved stream, or '-' for standard input. */
  file: string;
  stderr: boolean;
}

/**
 * `nsed render [FILE|-]`: a saved `-o ndjson` stream shown as `-o text` showed it, through the
 * one text renderer: the answer on stdout byte for byte, and with --stderr the progress lines.
 * Nothing is sent and nothing is stored; a line this nsed cannot read is exit 2, naming it.
 */
export const render: CommandDef<RenderOptions> = {
  command: 'render [file]',
  describe: 'show a saved -o ndjson stream as -o text printed it (stdout byte for byte)',
  configFile: 'ignore',
  positionals: POSITIONALS,
  flags: RENDER_FLAGS,
  examples: [
    ['nsed ask -o ndjson "Plan the migration" > run.ndjson', 'keep one artifact of the run'],
    ['nsed render run.ndjson > answer.md', 'what -o text printed on stdout'],
    ['nsed render --stderr - < run.ndjson 2> progress.log', 'and the progress lines on stderr'],
  ],
  parse: (argv) => {
    const { file } = positionalValues(POSITIONALS, argv);
    return { file: file === undefined || file === STDIN_MARKER ? '-' : file, stderr: flagValues(FLAGS, argv).stderr };
  },
  run: async (opts, ctx) => {
    const [{ renderStream }, { usageError }, { Readable }, reader] = await Promise.all([
      import('../output/render-stream.js'),
      import('../errors.js'),
      import('node:stream'),
      import('../files/read-input.js'),
    ]);
    if (opts.file === '-' && ctx.io.stdinIsTTY)
      throw usageError('nsed render reads a saved stream: name a file, or pipe one in', 'nsed render run.ndjson');
    // Read by the one reader (docs/usage.md "Files nsed reads"), as it arrives: a live `| nsed render -`
    // shows each event when it comes, and a silent pipe is still bounded by --timeout and Ctrl-C.
    const bounds = { ...reader.boundsOf(ctx), maxBytes: MAX_RENDER_BYTES };
    const chunks =
      opts.file === '-'
        ? reader.boundedChunks(ctx.io.stdin, { ...bounds, label: 'standard input' })
        : reader.inputChunks(opts.file, { ...bounds, label: 'nsed render' });
    if (ctx.io.verbose && !ctx.io.quiet)
      ctx.io.stderr.write(`reading ${opts.file === '-' ? 'standard input' : opts.file}\n`);
    const input = Readable.from(chunks, { objectMode: false });
    try {
      await renderStream(input, ctx.io, {
        stderr: opts.stderr,
        name: opts.file === '-' ? 'standard input' : opts.file,
      });
    } finally {
      // A line it cannot read stops the render before the end of the file: the reader lets its
      // file go here, not left to the garbage collector (an error since Node 26).
      input.destroy();
    }
    await (await import('../output/session-write.js')).assertStdoutWritten(ctx.io);
    return 0;
  },
};
