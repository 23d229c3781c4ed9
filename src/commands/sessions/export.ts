import { EXPORT_FORMAT_LABELS, EXPORT_FORMATS, type ExportFormat } from '../../output/export/format-names.js';
import { usageError } from '../../errors.js';
import type { CommandDef } from '../command.js';
import { flagValues, type FlagDef } from '../shared/flag-def.js';
import {
  parseSessionTarget,
  readTarget,
  SESSION_ID_POSITIONAL,
  SESSION_TARGET_FLAGS,
  type SessionTarget,
} from '../shared/session-target.js';

const FLAGS = [
  { name: 'format', alias: 'f', type: 'string', choices: EXPORT_FORMATS, default: 'json', describe: 'export format' },
  {
    name: 'out',
    // A second long spelling, not a letter: `-o` is the global output mode of every command.
    alias: 'file',
    type: 'string',
    describe:
      'write to FILE instead of stdout: a regular file is replaced atomically (mode 0600); a device, FIFO or socket is written directly; a link is followed',
    valueName: 'FILE',
    complete: 'file',
    sample: 'out.json',
  },
] as const satisfies readonly FlagDef[];

export interface ExportOptions {
  target: SessionTarget;
  format: ExportFormat;
  /** The file to write (files/outside-file.ts says how); undefined (or `-`): standard output. */
  out: string | undefined;
}

/**
 * `nsed sessions export ID --format F [--out FILE]`. The destination flag is `--out`, not `-o`:
 * `-o` is the global output mode of every command.
 */
export const exportCommand: CommandDef<ExportOptions> = {
  command: 'export [id]',
  describe: `write a session as ${EXPORT_FORMATS.map((f) => EXPORT_FORMAT_LABELS[f]).join(', ')}`,
  positionals: [SESSION_ID_POSITIONAL],
  flags: [...SESSION_TARGET_FLAGS, ...FLAGS],
  examples: [
    ['nsed sessions export 20261130 --format markdown --out cache.md', 'a readable transcript'],
    [
      'nsed sessions export 20261130 --format messages > messages.json',
      'replay it through any OpenAI-compatible client',
    ],
    ['nsed sessions export --last --format summary >> "$GITHUB_STEP_SUMMARY"', 'the last answer on a CI page'],
    ['nsed sessions export --last --format html --out report.html', 'one page to open in any browser'],
    ['nsed sessions export --last --format jsonl >> turns.jsonl', 'one line per turn, for bulk readers'],
  ],
  parse: (argv) => {
    const f = flagValues(FLAGS, argv);
    const out = f.out;
    if (out === '') throw usageError('--out needs a file name');
    return {
      target: parseSessionTarget(argv, { positional: true }),
      format: f.format,
      out: out === '-' ? undefined : out,
    };
  },
  run: async (opts, ctx) => {
    const { renderExport } = await import('../../output/export/formats.js');
    const { format } = opts;
    // Every export but the messages is the whole session: its rounds and ballots too.
    const session = await readTarget(ctx, opts.target, { shown: true, rounds: format !== 'messages' });
    const text = renderExport(format, session);
    const file = opts.out;
    if (file !== undefined) {
      await (await import('../../files/outside-file.js')).writeOutsideFile(file, text);
      return 0;
    }
    // JSON formats escape every control character; markdown on a terminal is sanitised (docs/reliability.md #78).
    const shown =
      (format === 'markdown' || format === 'summary' || format === 'html') && ctx.io.stdoutIsTTY
        ? (await import('../../terminal/sanitize.js')).sanitizeForTerminal(text)
        : text;
    await (await import('../../output/session-write.js')).writeStdout(ctx.io, shown);
    return 0;
  },
};
