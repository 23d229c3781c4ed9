import { usageError } from '../../errors.js';
import type { CommandDef } from '../command.js';
import { flagValues, positionalValues, type PositionalDef } from '../shared/flag-def.js';
import { SESSION_TARGET_FLAGS, SESSION_TARGET_TABLE } from '../shared/session-target.js';
import type { ArchiveOptions } from '../shared/archive-mark.js';

export type { ArchiveOptions } from '../shared/archive-mark.js';

export const ARCHIVE_POSITIONALS = [
  {
    name: 'ids',
    array: true,
    describe: 'session ids (unique prefixes are enough; or -s ID, --last)',
    complete: 'session',
  },
] as const satisfies readonly PositionalDef[];

/** The ids `archive` and `unarchive` name: before and after `--`, from -s, and whether --last adds the latest. */
export function archiveTargets(argv: Readonly<Record<string, unknown>>, verb: string): ArchiveOptions {
  const f = flagValues(SESSION_TARGET_TABLE, argv);
  const p = positionalValues(ARCHIVE_POSITIONALS, argv);
  const ids = [...p.ids, ...p['--'], ...(f.session === undefined ? [] : [f.session])];
  const last = f.last === true;
  if (ids.length === 0 && !last)
    throw usageError(`name the sessions to ${verb}: ids, -s ID or --last`, "list sessions with 'nsed sessions ls'");
  return { ids, last };
}

/**
 * `nsed sessions archive ID...`: marks sessions archived in their own files (the `archived` key,
 * the time), so `ls` and `search` leave them out while nothing is deleted: `ls --archived` lists
 * them and `unarchive` brings them back. Every id is resolved first, so an unknown or ambiguous
 * one (exit 3 or 2) changes nothing. The search index reads the mark from the files, as all it holds.
 */
export const archive: CommandDef<ArchiveOptions> = {
  command: 'archive [ids..]',
  describe: 'hide sessions from ls and search without deleting them (ls --archived shows them)',
  positionals: ARCHIVE_POSITIONALS,
  flags: SESSION_TARGET_FLAGS,
  examples: [
    ['nsed sessions archive 20261130-3f9a2c1b', 'hide one session'],
    ['nsed sessions ls --state failed --ids | xargs -r nsed sessions archive', 'hide every failed session'],
  ],
  parse: (argv) => archiveTargets(argv, 'archive'),
  run: async (opts, ctx) => (await import('../shared/archive-mark.js')).markArchived(ctx, opts, true),
};
