import { EXPORT_FORMATS } from '../../output/export/format-names.js';
import type { CommandDef } from '../command.js';

/**
 * `nsed sessions export ID --format F [--out FILE]`. The destination flag is `--out`, not `-o`:
 * `-o` is the global output mode of every command.
 */
export const exportCommand: CommandDef = {
  command: 'export <id>',
  describe: 'write a session as json, markdown, messages (OpenAI), ndjson (the live event schema) or thread (reference TUI)',
  builder: (y) =>
    y
      .positional('id', { type: 'string', describe: 'session id (a unique prefix is enough)' })
      .option('format', { alias: 'f', choices: EXPORT_FORMATS, default: 'json' as const, describe: 'export format' })
      .option('out', { alias: 'file', type: 'string', describe: 'write to FILE (atomically, mode 0600) instead of stdout' })
      .example('nsed sessions export 20261130 --format markdown --out cache.md', 'a readable transcript')
      .example('nsed sessions export 20261130 --format messages > messages.json', 'replay it through any OpenAI-compatible client'),
  run: async (env, argv) => {
    const [{ openStore }, { renderExport }] = await Promise.all([import('../shared/open-store.js'), import('../../output/export/formats.js')]);
    const format = EXPORT_FORMATS.find((f) => f === argv['format']) ?? 'json';
    const { ctx } = env;
    const store = await openStore(env);
    const text = renderExport(format, await store.read(await store.resolve(String(argv['id']))));
    const file = typeof argv['out'] === 'string' && argv['out'] !== '-' ? argv['out'] : undefined;
    if (file !== undefined) {
      if (file === '') throw (await import('../../errors.js')).usageError('--out needs a file name');
      await (await import('../../output/export/write-atomic.js')).writeFileAtomic(file, text);
      return 0;
    }
    // JSON formats escape every control character; markdown on a terminal is sanitised (docs/reliability.md #78).
    const shown = format === 'markdown' && ctx.io.stdoutIsTTY ? (await import('../../terminal/sanitize.js')).sanitizeForTerminal(text) : text;
    await (await import('../../output/session-write.js')).writeStdout(ctx.io, shown);
    return 0;
  },
};
