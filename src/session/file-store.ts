import { chmodSync, constants as fsConstants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { lstat, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { NsedError, notFound, storeError, usageError } from '../errors.js';
import {
  fsyncDir,
  NoHardLinks,
  poolSyncDisk,
  realDisk,
  writeAtomic,
  type DiskHandle,
  type DiskOps,
} from '../files/atomic-write.js';
import { SyncGroup } from '../files/sync-group.js';
import { AtomicJsonAdapter, decodeRecord, NO_FOLLOW, redactedJson, removeStaleTemps } from './atomic-adapter.js';
import { isValidId } from './ids.js';
import { IndexJournal, listSessions } from './index-journal.js';
import { withLock, type HeldLock } from './lock.js';
import { SESSION_VERSION, type Session } from './model.js';
import { roundsDir, sessionFile, sessionsDir } from './paths.js';
import {
  joinRounds,
  leaveMarker,
  markerOf,
  roundsFileName,
  roundsToPutApart,
  validateRounds,
  type RoundsRecord,
} from './rounds-apart.js';
import {
  validateSession,
  type SessionStore,
  type SessionSummary,
  type Unreadable,
  type ReadOnlyOption,
  type ReadOptions,
  type UpdateOptions,
} from './store.js';

export interface FileStoreOptions {
  now?: () => Date;
  /** Longest wait for a session locked by another process (default 10 s), then exit 8. */
  lockTimeoutMs?: number;
  /** Told once when a wait for a lock gets long, with the holder's pid when known. */
  onLockWait?: (pid: number | undefined) => void;
  /** The file-system calls used for session files; tests pass a failing disk. */
  disk?: DiskOps;
  /** Applied to every string a session file gets (the run's secrets, docs/reliability.md #89). */
  redact?: (text: string) => string;
  /** In place of `redact`: the same redaction, skipping the walk of a record whose text shows nothing to redact. */
  redactRecord?: <R>(record: R, json: string) => R;
  /**
   * Many turns at once in this process (`nsed batch`, docs/reliability.md #260): the writes that
   * end together share one directory fsync, and fsyncs run on the thread pool (the real disk's
   * `poolSyncDisk` unless `disk` is given) so the event loop serves the other turns meanwhile.
   * Every write still resolves only once it is durable, and holds its session's lock until then.
   */
  groupCommit?: boolean;
}

/** The lock was taken over (the process slept past the stale time) before our rename. */
class LockLost extends Error {}
const WRITE_ATTEMPTS = 3;

const errCode = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? String(err);

/** A rounds file or its directory that cannot be written: exit 8, the transcript not changed. */
function roundsWriteError(file: string, err: unknown): NsedError {
  if (err instanceof NsedError) return err;
  const code = errCode(err);
  return storeError(`cannot write the rounds file ${file}: ${code}; the session file was not changed`, {
    cause: err,
    hint:
      code === 'ENOSPC' || code === 'EDQUOT'
        ? 'free some disk space, or set NSED_HOME to a directory on another disk'
        : 'make the store writable, or set NSED_HOME (or --home) to a writable directory',
  });
}

export function openFileStore(home: string, opts: FileStoreOptions = {}): SessionStore {
  return new FileStore(path.resolve(home), opts);
}

/** One lowdb-managed JSON file per session, every write under a per-session lock. */
class FileStore implements SessionStore {
  readonly dir: string;
  private readonly journal: IndexJournal;
  private readonly now: () => Date;
  private readonly disk: DiskOps;
  private ready: Promise<void> | undefined;
  private swept: Promise<void> | undefined;
  /** The directory fsync the writes that end together share (groupCommit only). */
  private readonly dirSync: SyncGroup | undefined;

  constructor(
    readonly home: string,
    private readonly opts: FileStoreOptions,
  ) {
    this.dir = sessionsDir(home);
    this.journal = new IndexJournal(home);
    this.now = opts.now ?? (() => new Date());
    this.disk = opts.disk ?? (opts.groupCommit === true ? poolSyncDisk : realDisk);
    const dir = this.dir;
    this.dirSync = opts.groupCommit === true ? new SyncGroup(() => fsyncDir(dir, this.disk)) : undefined;
  }

  async create(session: Session): Promise<void> {
    const file = sessionFile(this.dir, session.id);
    await this.ensureDirs();
    // A batch's store sweeps once: its thousand creates would list the growing directory a
    // thousand times, and what dead processes leave meanwhile is swept by the next run.
    if (this.dirSync === undefined) await removeStaleTemps(this.dir, readdirSync(this.dir));
    else await (this.swept ??= removeStaleTemps(this.dir, readdirSync(this.dir)));
    // The caller's turns stay as they were given; the file's lose their rounds to the files beside it.
    const record = { ...session, version: SESSION_VERSION, turns: session.turns.map((t) => ({ ...t })) };
    await this.putRoundsApart(session.id, record);
    try {
      // A new session's file is placed by an exclusive hard link: it appears whole or not at all,
      // and of two creates of one id one fails. No other process locks a session that does not
      // exist yet (an update or a removal finds it missing first, docs/reliability.md #54), so a
      // lock would guard nothing here: it is taken only where the file system has no hard links,
      // to keep the check and the rename together.
      await new Low<Session | null>(this.adapter(file, session.id, 'link'), record).write();
      return;
    } catch (err) {
      if (!(err instanceof NoHardLinks)) throw err;
    }
    await this.locked(session.id, file, async (beforeCommit) => {
      const adapter = this.adapter(file, session.id, 'create', beforeCommit);
      await new Low<Session | null>(adapter, record).write();
    });
  }

  async read(id: string, opts: ReadOptions = {}): Promise<Session> {
    const file = sessionFile(this.dir, id);
    const db = new Low<Session | null>(this.adapter(file, id, 'replace', undefined, opts.shownWith), null);
    await db.read();
    if (!db.data) throw this.missing(id);
    if (opts.rounds === true) await this.joinRoundsApart(db.data, opts.shownWith);
    return db.data;
  }

  async resolve(idOrPrefix: string): Promise<string> {
    const file = sessionFile(this.dir, idOrPrefix);
    if (existsSync(file)) return idOrPrefix;
    const names = await readdir(this.dir).catch(() => []);
    const matches = names
      .filter((n) => n.startsWith(idOrPrefix) && n.endsWith('.json'))
      .map((n) => n.slice(0, -5))
      .filter(isValidId)
      .sort();
    const [only] = matches;
    if (only === undefined)
      throw notFound(`no session matches '${idOrPrefix}'`, 'run `nsed sessions ls` to see the sessions');
    if (matches.length === 1) return only;
    const shown = matches.slice(0, 5).join(', ') + (matches.length > 5 ? ', …' : '');
    throw usageError(`'${idOrPrefix}' matches ${matches.length} sessions: ${shown}`, 'type more of the id');
  }

  async latest(opts: ReadOnlyOption = {}): Promise<string> {
    const { sessions } =
      opts.readOnly === true
        ? (await listSessions(this.dir, this.journal, () => this.now().getTime(), false)).listing
        : await this.list();
    const [newest] = sessions;
    if (!newest) throw notFound('there are no sessions yet', 'start one with `nsed ask`');
    return newest.id;
  }

  async update(id: string, mutate: (s: Session) => void, opts: UpdateOptions = {}): Promise<Session> {
    const file = sessionFile(this.dir, id);
    await this.ensureDirs();
    return this.locked(id, file, async (beforeCommit) => {
      // Read inside the lock, which also says whether the session exists: another process may
      // have written or removed it since (docs/reliability.md #54).
      const adapter = this.adapter(file, id, 'replace', beforeCommit);
      const db = new Low<Session | null>(adapter, null);
      await db.read();
      const session = db.data;
      if (!session) throw this.missing(id);
      adapter.durableRename = opts.durableRename?.(session) ?? true;
      mutate(session);
      session.id = id;
      const now = this.now().toISOString();
      if (!(typeof session.updated === 'string' && session.updated > now)) session.updated = now;
      // A newer nsed's version number stays, so it still knows what it wrote (docs/reliability.md #68).
      if (!(typeof session.version === 'number' && session.version >= SESSION_VERSION))
        session.version = SESSION_VERSION;
      // An older nsed's file, and the answer `mutate` recorded, leave their rounds beside the
      // transcript first: the transcript that names them is renamed into place only once they
      // are durable (docs/reliability.md #300).
      await this.putRoundsApart(id, session);
      await db.write();
      if (opts.committed !== undefined) {
        opts.committed();
        // Two turns of the event loop: the caller's next bytes (the first event, already in the
        // socket) are read in the poll phase between them, and shown before the lock's release
        // (three metadata calls: rename, unlink, rmdir).
        await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
      }
      return session;
    });
  }

  async list(): Promise<{ sessions: SessionSummary[]; unreadable: Unreadable[] }> {
    const { listing, names } = await listSessions(this.dir, this.journal, () => this.now().getTime());
    await removeStaleTemps(this.dir, names);
    return listing;
  }

  async remove(id: string, opts: { keepUnreadable?: boolean } = {}): Promise<{ keptAs?: string }> {
    const file = sessionFile(this.dir, id);
    if (!existsSync(file)) throw this.missing(id);
    return this.locked(id, file, async (beforeCommit) => {
      const aside =
        opts.keepUnreadable === true && (await this.unreadable(file, id))
          ? `${file}.corrupt-${this.now().getTime()}`
          : undefined;
      beforeCommit();
      try {
        if (aside === undefined) await this.disk.unlink(file);
        else await this.disk.rename(file, aside);
      } catch (err) {
        if (errCode(err) === 'ENOENT') throw this.missing(id);
        throw storeError(`cannot remove session file ${file}: ${errCode(err)}`, { cause: err });
      }
      await this.journal.append([{ id, removed: true }]);
      if (aside !== undefined) return { keptAs: aside };
      // The rounds go with their transcript; a removal cut short leaves them for the next `rm` of
      // nothing (the transcript is gone, so no reader joins them to anything).
      await rm(roundsDir(this.dir, id), { recursive: true, force: true }).catch(() => undefined);
      return {};
    });
  }

  /**
   * Writes each answer's rounds and ballots that the transcript still holds to a file of their
   * own in `<id>.rounds/`, and leaves a marker in the turn (src/session/rounds-apart.ts). Each
   * file is fsynced before its rename and the directory once after them all (and, when the
   * directory is new, the sessions directory that names it), so the transcript written next never
   * names a file that a crash could lose; a crash before that transcript's rename leaves files
   * nothing names, and the transcript as it was (docs/reliability.md #300).
   */
  private async putRoundsApart(id: string, session: Session): Promise<void> {
    let dir: string | undefined;
    let madeDir = false;
    for (const turn of session.turns) {
      // A note of a read with rounds (a fork's copy of its parent's turns) is never written.
      delete turn.rounds_unreadable;
      const apart = roundsToPutApart(id, turn);
      if (apart === undefined) continue;
      if (dir === undefined) {
        dir = roundsDir(this.dir, id);
        madeDir = await this.ensureRoundsDir(dir);
      }
      const text = redactedJson(apart.record, this.opts);
      const file = roundsFileName(turn.id);
      try {
        await writeAtomic(path.join(dir, file), text, { disk: this.disk, durable: false });
      } catch (err) {
        throw roundsWriteError(path.join(dir, file), err);
      }
      leaveMarker(turn, { file, rounds: apart.record.rounds.length, ballots: apart.ballots });
    }
    if (dir === undefined) return;
    try {
      // Both at once; the sessions directory's is the one a batch's items that end together
      // share (groupCommit), as they share the fsync after their transcripts' renames.
      await Promise.all([fsyncDir(dir, this.disk), madeDir ? this.syncDir(this.dir) : undefined]);
    } catch (err) {
      throw roundsWriteError(dir, err);
    }
  }

  /** `<id>.rounds/`, 0700, made if missing (true then), its dead writers' temp files swept. */
  private async ensureRoundsDir(dir: string): Promise<boolean> {
    try {
      mkdirSync(dir, { mode: 0o700 });
      keepPrivate(dir, statSync(dir));
      return true;
    } catch (err) {
      if (errCode(err) !== 'EEXIST') throw roundsWriteError(dir, err);
    }
    if ((await lstat(dir)).isSymbolicLink()) throw roundsWriteError(dir, Object.assign(new Error(), { code: 'ELOOP' }));
    await removeStaleTemps(dir, readdirSync(dir));
    return false;
  }

  /**
   * Joins each answer's rounds kept apart back into its turn; a file it cannot read leaves the turn
   * without them, saying why in `rounds_unreadable`, and the file as it is (docs/reliability.md #302).
   */
  private async joinRoundsApart(session: Session, shownWith: ReadOptions['shownWith']): Promise<void> {
    const dir = roundsDir(this.dir, session.id);
    for (const turn of session.turns) {
      const marker = markerOf(turn);
      if (marker === undefined) continue;
      const file = path.join(dir, marker.file);
      const record = await this.readRounds(file, session.id, turn.id, shownWith);
      if (typeof record === 'string') turn.rounds_unreadable = `${file}: ${record}`;
      else joinRounds(turn, record);
    }
  }

  private async readRounds(
    file: string,
    id: string,
    turnId: string,
    shownWith: ReadOptions['shownWith'],
  ): Promise<RoundsRecord | string> {
    let handle: DiskHandle | undefined;
    try {
      // Never through a link, as the transcript (atomic-adapter.ts).
      handle = await this.disk.open(file, fsConstants.O_RDONLY | NO_FOLLOW);
      const bytes = await handle.readFile();
      return decodeRecord(bytes, (v, text) => {
        const record = validateRounds(v, id, turnId);
        return shownWith === undefined ? record : shownWith.redactRecord(record, text, [id]);
      });
    } catch (err) {
      // What is wrong with it, for the warning of the command that shows the turn.
      return err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
    } finally {
      await handle?.close().catch(() => undefined);
    }
  }

  /** True when the file holds bytes that are no session (a link is removed, never read through). */
  private async unreadable(file: string, id: string): Promise<boolean> {
    if ((await lstat(file)).isSymbolicLink()) return false;
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch {
      return false;
    }
    try {
      decodeRecord(bytes, (v) => ({ ...validateSession(v), id }));
      return false;
    } catch {
      return true;
    }
  }

  /** Runs one read-modify-write under the session lock, again from the top if the lock was lost. */
  private async locked<T>(id: string, file: string, fn: (beforeCommit: () => void) => Promise<T>): Promise<T> {
    const req = {
      target: file,
      label: `session ${id}`,
      timeoutMs: this.opts.lockTimeoutMs ?? 10_000,
      onWait: this.opts.onLockWait,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        return await withLock(req, (held: HeldLock) =>
          fn(() => {
            if (!held.stillHeld()) throw new LockLost(held.compromised?.message ?? 'the lock was lost');
          }),
        );
      } catch (err) {
        if (!(err instanceof LockLost)) throw err;
        if (attempt >= WRITE_ATTEMPTS) {
          throw storeError(`lost the lock on session ${id} while writing it; the file was not changed`, {
            hint: 'another nsed process took the lock over; try again',
          });
        }
      }
    }
  }

  private adapter(
    file: string,
    id: string,
    mode: 'create' | 'link' | 'replace',
    beforeCommit?: () => void,
    shownWith?: ReadOptions['shownWith'],
  ): AtomicJsonAdapter<Session> {
    // The file name is the session's identity, whatever a copied file says inside.
    const validate = (v: unknown, text: string): Session => {
      const session = { ...validateSession(v), id };
      return shownWith === undefined ? session : shownWith.redactRecord(session, text, [id]);
    };
    return new AtomicJsonAdapter<Session>(file, {
      validate,
      mode,
      disk: this.disk,
      ...(beforeCommit ? { beforeCommit } : {}),
      ...(this.opts.redact ? { redact: this.opts.redact } : {}),
      ...(this.opts.redactRecord ? { redactRecord: this.opts.redactRecord } : {}),
      ...(this.dirSync === undefined ? {} : { syncDir: this.syncDir }),
    });
  }

  /** Session files live in one directory: its group fsync (see groupCommit). */
  private readonly syncDir = async (dir: string): Promise<void> => {
    if (this.dirSync !== undefined && dir === this.dir) return this.dirSync.sync();
    return fsyncDir(dir, this.disk);
  };

  private missing(id: string): NsedError {
    return notFound(`no session '${id}'`, 'run `nsed sessions ls` to see the sessions');
  }

  /** Directory 0700 whatever the umask (docs/reliability.md #76); `home` only when nsed created it. */
  private ensureDirs(): Promise<void> {
    // Synchronous, like the writes that follow: a handful of calls, once per process.
    this.ready ??= (async () => {
      const made = mkdirSync(this.home, { recursive: true, mode: 0o700 });
      if (made !== undefined) chmodSync(this.home, 0o700);
      try {
        mkdirSync(this.dir, { mode: 0o700 });
      } catch (err) {
        if (errCode(err) !== 'EEXIST') throw err;
      }
      const st = statSync(this.dir);
      if (!st.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
      keepPrivate(this.dir, st);
    })().catch((err: unknown) => {
      this.ready = undefined;
      throw storeError(`cannot create the session directory ${this.dir}: ${errCode(err)}`, {
        cause: err,
        hint: 'set NSED_HOME (or --home) to a writable directory',
      });
    });
    return this.ready;
  }
}

/**
 * Makes the directory `dir` (whose stat is `st`) 0700 whatever the umask took
 * (docs/reliability.md #76). Only when needed: a chmod is a journaled metadata write even when it
 * changes nothing, a stat is not.
 */
function keepPrivate(dir: string, st: { mode: number }): void {
  if ((st.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}
