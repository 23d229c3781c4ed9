import type { CommandDef } from '../command.js';

export type ReindexOptions = Record<string, never>;

/**
 * `nsed sessions reindex`: drops the search index and builds it again from the session files,
 * which are the truth. Never needed for correct answers (search, stats and ls bring the index up
 * to date themselves); for an index that was copied, restored or edited, or to see what it reads.
 */
export const reindex: CommandDef<ReindexOptions> = {
  command: 'reindex',
  describe: 'rebuild the search index from the session files',
  examples: [['nsed sessions reindex', 'read every session file again into the index']],
  parse: () => ({}),
  run: async (_opts, ctx) => {
    const [{ openIndex }, { oneLine }] = await Promise.all([
      import('../shared/session-index.js'),
      import('../../terminal/sanitize.js'),
    ]);
    const index = await openIndex(ctx);
    try {
      const { read } = await index.rebuild();
      for (const u of index.unreadable())
        ctx.io.stderr.write(`nsed: warning: skipped ${oneLine(u.file, 300)}: ${oneLine(u.reason, 200)}\n`);
      if (!ctx.io.quiet) ctx.io.stderr.write(`indexed ${read} session${read === 1 ? '' : 's'} (${index.kind})\n`);
    } finally {
      index.close();
    }
    return 0;
  },
};
