import { usageError } from '../../errors.js';
import type { CommandDef } from '../command.js';
import { flagValues, positionalValues, type FlagDef, type PositionalDef } from '../shared/flag-def.js';
import { SESSION_TARGET_TABLE } from '../shared/session-target.js';

const POSITIONALS = [
  {
    name: 'ids',
    array: true,
    describe: 'session ids (unique prefixes are enough; or -s ID, --last)',
    complete: 'session',
  },
] as const satisfies readonly PositionalDef[];

const FLAGS = [
  ...SESSION_TARGET_TABLE,
  {
    name: 'force',
    type: 'boolean',
    default: false,
    describe:
      'also delete sessions whose deliberation is still running, and unreadable files (otherwise kept as .corrupt-TIME)',
  },
] as const satisfies readonly FlagDef[];

export interface RmOptions {
  /** Session ids or unique prefixes; all must resolve, or nothing is removed. */
  ids: string[];
  /** --last: the most recently updated session as well. */
  last: boolean;
  /** Also remove sessions whose deliberation is still running. */
  force: boolean;
}

/**
 * `nsed sessions rm ID...`: every id is resolved before anything is deleted, so an unknown or
 * ambiguous id (exit 3 or 2) removes nothing at all; a session whose deliberation is still
 * running is kept unless --force (its `ask` would otherwise fail to record the answer), and a
 * file that cannot be parsed is moved aside rather than deleted unless --force (docs/reliability.md #57).
 */
export const rm: CommandDef<RmOptions> = {
  command: 'rm [ids..]',
  describe: 'delete sessions from the store (all named ids must exist, or none is deleted)',
  aliases: ['remove'],
  positionals: POSITIONALS,
  flags: FLAGS,
  examples: [
    ['nsed sessions rm 20261130-3f9a2c1b', 'delete one session'],
    ['nsed sessions ls --state interrupted --ids | xargs -r nsed sessions rm', 'delete every interrupted session'],
  ],
  parse: (argv) => {
    // Ids before and after `--` and from -s; --last adds the latest session.
    const p = positionalValues(POSITIONALS, argv);
    const f = flagValues(FLAGS, argv);
    const ids = [...p.ids, ...p['--'], ...(f.session === undefined ? [] : [f.session])];
    const last = f.last === true;
    if (ids.length === 0 && !last)
      throw usageError('name the sessions to delete: ids, -s ID or --last', "list sessions with 'nsed sessions ls'");
    return { ids, last, force: f.force };
  },
  run: async (opts, ctx) => {
    const { NsedError } = await import('../../errors.js');
    const store = await ctx.store();
    const ids: string[] = [];
    for (const name of opts.ids) {
      const id = await store.resolve(name);
      if (!ids.includes(id)) ids.push(id);
    }
    if (opts.last) {
      const id = await store.latest();
      if (!ids.includes(id)) ids.push(id);
    }
    if (!opts.force) {
      // The listing index is enough to know the state; an unparsable file has none and may go.
      const { sessions } = await store.list();
      const running = sessions.filter((s) => s.state === 'running' && ids.includes(s.id)).map((s) => s.id);
      if (running.length > 0) {
        throw new NsedError(
          'conflict',
          `session ${running.join(', ')} has a deliberation running; nothing was removed`,
          {
            hint: 'cancel it first (nsed cancel -s ID), or pass --force to remove it anyway',
          },
        );
      }
    }
    for (const id of ids) {
      const { keptAs } = await store.remove(id, { keepUnreadable: !opts.force });
      if (keptAs !== undefined)
        ctx.io.stderr.write(
          `removed ${id}; its file could not be read, so it was kept as ${keptAs} (--force deletes it)\n`,
        );
      else if (!ctx.io.quiet) ctx.io.stderr.write(`removed ${id}\n`);
    }
    return 0;
  },
};
