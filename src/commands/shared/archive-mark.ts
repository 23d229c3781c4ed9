import type { Context } from '../../run/context.js';
import { ARCHIVED_FIELD } from '../../session/index.js';

export interface ArchiveOptions {
  /** Session ids or unique prefixes; all must resolve, or nothing is changed. */
  ids: string[];
  /** --last: the most recently updated session as well. */
  last: boolean;
}

/**
 * Sets or clears the archive mark of every named session, once all of them resolved: an unknown
 * or ambiguous id (exit 3 or 2) changes nothing. A session already so is left unwritten.
 */
export async function markArchived(ctx: Context, opts: ArchiveOptions, archived: boolean): Promise<number> {
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
  const verb = archived ? 'archived' : 'unarchived';
  for (const id of ids) {
    const already = (typeof (await store.read(id))[ARCHIVED_FIELD] === 'string') === archived;
    if (!already)
      await store.update(id, (s) => {
        if (archived) s[ARCHIVED_FIELD] = ctx.clock.now().toISOString();
        else delete s[ARCHIVED_FIELD];
      });
    if (!ctx.io.quiet) ctx.io.stderr.write(`${already ? `already ${verb}` : verb} ${id}\n`);
  }
  return 0;
}
