import { notFound } from '../errors.js';
import { redactDeep } from '../secrets.js';
import type { Session } from './model.js';
import type { SessionStore } from './store.js';
import { summarizeSession } from './store.js';

/**
 * The store of a `--no-save` run (like `llm --no-log`): sessions this run creates or changes live
 * in memory only; anything else is read from the real store, which is opened only when such a
 * read happens, so `nsed ask --no-save` touches no file at all.
 */
export function memoryOverlay(
  paths: { home: string; dir: string },
  base: () => Promise<SessionStore>,
  now: () => Date,
): SessionStore {
  const mine = new Map<string, Session>();
  const inMemory = (prefix: string): string | undefined =>
    mine.has(prefix) ? prefix : [...mine.keys()].find((id) => id.startsWith(prefix));
  return {
    home: paths.home,
    dir: paths.dir,
    create: async (session) => {
      mine.set(session.id, structuredClone(session));
    },
    read: async (id, opts) => {
      const s = mine.get(id);
      if (s === undefined) return (await base()).read(id, opts);
      const shown = opts?.shownWith;
      return shown === undefined ? structuredClone(s) : redactDeep(structuredClone(s), (t) => shown.redact(t));
    },
    resolve: async (idOrPrefix) => inMemory(idOrPrefix) ?? (await base()).resolve(idOrPrefix),
    latest: async (opts) => (await base()).latest(opts),
    update: async (id, mutate) => {
      const s = structuredClone(mine.get(id) ?? (await (await base()).read(id)));
      mutate(s);
      s.updated = now().toISOString();
      mine.set(id, s);
      return structuredClone(s);
    },
    list: async () => {
      const { sessions, unreadable } = await (await base()).list();
      return {
        sessions: [...[...mine.values()].map(summarizeSession), ...sessions.filter((x) => !mine.has(x.id))],
        unreadable,
      };
    },
    remove: async (id) => {
      if (!mine.delete(id))
        throw notFound(`session ${id} was not made by this run`, '--no-save never changes the store');
      return {};
    },
  };
}
