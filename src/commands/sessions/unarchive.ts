import type { CommandDef } from '../command.js';
import { SESSION_TARGET_FLAGS } from '../shared/session-target.js';
import { ARCHIVE_POSITIONALS, archiveTargets, type ArchiveOptions } from './archive.js';

/** `nsed sessions unarchive ID...`: shows archived sessions in `ls` and `search` again. */
export const unarchive: CommandDef<ArchiveOptions> = {
  command: 'unarchive [ids..]',
  describe: 'bring archived sessions back into ls and search',
  positionals: ARCHIVE_POSITIONALS,
  flags: SESSION_TARGET_FLAGS,
  examples: [
    ['nsed sessions ls --archived --ids | xargs -r nsed sessions unarchive', 'bring every archived session back'],
  ],
  parse: (argv) => archiveTargets(argv, 'unarchive'),
  run: async (opts, ctx) => (await import('../shared/archive-mark.js')).markArchived(ctx, opts, false),
};
