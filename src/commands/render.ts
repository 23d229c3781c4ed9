import type { FileHandle } from 'node:fs/promises';
import { stringFlag, type CommandDef } from './command.js';
import type { FlagDef } from './shared/flag-def.js';
import { STDIN_MARKER } from '../input/prompt.js';

export const RENDER_FLAGS: readonly FlagDef[] = [
  {
    name: 'stderr',
    type: 'boolean',
    default: false,
    describe: 'also write the progress lines text mode wrote to stderr (off a terminal), on stderr',
  },
];

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
  positionals: [{ name: 'file', describe: 'the saved stream (- or none: standard input)', complete: 'file' }],
  flags: RENDER_FLAGS,
  examples: [
    ['nsed ask -o ndjson "Plan the migration" > run.ndjson', 'keep one artifact of the run'],
    ['nsed render run.ndjson > answer.md', 'what -o text printed on stdout'],
    ['nsed render --stderr - < run.ndjson 2> progress.log', 'and the progress lines on stderr'],
  ],
  parse: (argv) => {
    const file = stringFlag(argv, 'file');
    return { file: file === undefined || file === STDIN_MARKER ? '-' : file, stderr: argv['stderr'] === true };
  },
  run: async (opts, ctx) => {
    const { renderStream } = await import('../output/render-stream.js');
    const { usageError } = await import('../errors.js');
    let input: NodeJS.ReadableStream;
    let handle: FileHandle | undefined;
    if (opts.file === '-') {
      if (ctx.io.stdinIsTTY)
        throw usageError('nsed render reads a saved stream: name a file, or pipe one in', 'nsed render run.ndjson');
      input = ctx.io.stdin;
    } else {
      const { open } = await import('node:fs/promises');
      try {
        handle = await open(opts.file, 'r');
      } catch (err) {
        throw usageError(`cannot read ${opts.file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
      }
      input = handle.createReadStream({ encoding: 'utf8' });
    }
    try {
      await renderStream(input, ctx.io, {
        stderr: opts.stderr,
        name: opts.file === '-' ? 'standard input' : opts.file,
      });
    } finally {
      // A line it cannot read stops the render before the end of the file: the handle is closed
      // here, not left to the garbage collector (an error since Node 26).
      await handle?.close().catch(() => undefined);
    }
    await (await import('../output/session-write.js')).assertStdoutWritten(ctx.io);
    return 0;
  },
};
