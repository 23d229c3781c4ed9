import path from 'node:path';
import { NsedError, usageError } from '../errors.js';
import { assertValidId } from './ids.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The store root: the home setting (`--home`, else NSED_HOME: RunSettings.home), else
 * $XDG_DATA_HOME/nsed, else ~/.local/share/nsed.
 * A container without HOME gets a clear error rather than a store under `/` (docs/reliability.md #62).
 */
export function resolveHome(env: Env, flag?: string): string {
  if (flag !== undefined) {
    if (flag === '') throw usageError('--home needs a directory');
    return path.resolve(flag);
  }
  // The XDG spec says relative values are invalid and must be ignored.
  if (env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME)) return path.join(env.XDG_DATA_HOME, 'nsed');
  const userHome = env.HOME || (process.platform === 'win32' ? env.USERPROFILE : undefined);
  if (!userHome) {
    throw new NsedError('store', 'cannot find a place for the session store: HOME is not set', {
      hint: 'set NSED_HOME (or pass --home DIR) to a writable directory',
    });
  }
  return path.join(path.resolve(userHome), '.local', 'share', 'nsed');
}

export function sessionsDir(home: string): string {
  return path.join(home, 'sessions');
}

/** `<dir>/<id>.json`, refusing any id that could name a file outside `dir` (docs/reliability.md #77). */
export function sessionFile(dir: string, id: string): string {
  assertValidId(id);
  const base = path.resolve(dir);
  const file = path.join(base, `${id}.json`);
  // Belt and braces: the charset already forbids separators and dots.
  if (path.dirname(file) !== base) throw usageError(`invalid session id '${id}'`);
  return file;
}

/**
 * `<dir>/<id>.rounds`: the directory beside a session's file that holds its answers' rounds
 * (src/session/rounds-apart.ts). Its name has a dot, which no session id has, so no listing of
 * `<id>.json` files ever takes it for a session.
 */
export function roundsDir(dir: string, id: string): string {
  return sessionFile(dir, id).replace(/\.json$/, '.rounds');
}

export function journalFile(home: string): string {
  return path.join(home, 'index.ndjson');
}
