import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { storeError } from '../errors.js';
import { writeAtomic } from '../files/atomic-write.js';
import { forEachLine } from '../files/lines.js';
import { decodeRecord, removeStaleTemps } from './atomic-adapter.js';
import { isValidId } from './ids.js';
import { withLock } from './lock.js';
import { journalFile } from './paths.js';
import { readUsageTotal } from '../council/usage.js';
import { SESSION_STATES, summarizeSession, validateSession, type SessionSummary, type Unreadable } from './store.js';

/** One line of `<home>/index.ndjson`: a session's summary and the file state it was taken from. */
export interface JournalEntry extends SessionSummary {
  mtimeMs: number;
  size: number;
  /** The state vocabulary the entry was summarised with; older entries are re-read from the file. */
  states: typeof STATE_VOCABULARY;
  /** When the file state was taken, by this host's clock (ms since the epoch). */
  seenMs: number;
}
export interface JournalRemoval {
  id: string;
  removed: true;
}
export type JournalRecord = JournalEntry | JournalRemoval;

export interface JournalSnapshot {
  /** The last entry per id; removed ids are absent. */
  entries: Map<string, JournalEntry>;
  /** Non-empty lines read, good or bad. */
  lines: number;
}

// The index is a cache that `list()` checks against each file's mtime and size, so failing to
// update it costs a re-parse later, never a wrong listing: waits for its lock (compactions only)
// stay short.
const JOURNAL_LOCK_MS = 1_000;
const COMPACT_MIN_LINES = 32;
const STATES = new Set<string>(SESSION_STATES);
// Entries written before failed and cancelled existed may call such a session ok (2); before 3, a
// council chosen with --agents was listed under the policy it did not use; before 4, an entry
// did not carry the batch a session belongs to (`sessions ls --batch`); before 5, what its answers cost.
const STATE_VOCABULARY = 5;
/**
 * The racy-entry rule (git's, for its index): a file rewritten in place within the same tick of
 * the file system's clock, at the same size, looks unchanged, so an entry taken within a tick of
 * its file's mtime proves nothing and the file is read again. An entry is trusted only when it
 * was taken at least this long after that mtime: two seconds covers the coarsest common
 * timestamps (FAT's 2 s, HFS+'s 1 s) and a loopback clock's lag. A later rewrite then has a
 * later mtime, whatever its size.
 */
const RACY_MS = 2_000;

const str = (v: unknown): v is string => typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function toRecord(line: string): JournalRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (!str(r.id) || !isValidId(r.id)) return undefined;
  if (r.removed === true) return { id: r.id, removed: true };
  const fork = r.forked_from as Record<string, unknown> | undefined;
  const forkOk = fork === undefined || (typeof fork === 'object' && fork !== null && str(fork.session));
  const ok =
    str(r.title) &&
    (str(r.policy) || (r.policy === null && Array.isArray(r.agents))) &&
    num(r.turns) &&
    str(r.created) &&
    str(r.updated) &&
    str(r.state) &&
    STATES.has(r.state) &&
    r.states === STATE_VOCABULARY &&
    num(r.mtimeMs) &&
    num(r.size) &&
    num(r.seenMs) &&
    (r.batch === undefined || str(r.batch)) &&
    readUsageTotal(r.usage) !== null &&
    forkOk;
  return ok ? (r as unknown as JournalEntry) : undefined;
}

export function journalEntry(
  summary: SessionSummary,
  file: { mtimeMs: number; size: number },
  seenMs: number,
): JournalEntry {
  return { ...summary, mtimeMs: file.mtimeMs, size: file.size, states: STATE_VOCABULARY, seenMs };
}

/** True when the entry can stand for its file while the file's mtime and size are unchanged. */
const settled = (e: JournalEntry): boolean => e.seenMs - e.mtimeMs >= RACY_MS;

// Field by field: a rest pattern (`{ mtimeMs, size, states, ...summary }`) takes V8's slow path
// and was 6 % of listing 10,000 sessions.
export function summaryOf(entry: JournalEntry): SessionSummary {
  const summary: SessionSummary = {
    id: entry.id,
    title: entry.title,
    policy: entry.policy,
    turns: entry.turns,
    created: entry.created,
    updated: entry.updated,
    state: entry.state,
    usage: entry.usage,
  };
  if (entry.forked_from !== undefined) summary.forked_from = entry.forked_from;
  if (Array.isArray(entry.agents)) summary.agents = entry.agents;
  if (entry.batch !== undefined) summary.batch = entry.batch;
  return summary;
}

/**
 * The append-only listing index (docs/reliability.md #58): one JSON line per session file a
 * listing read and can trust from then on, and one per removal; the last line per id wins, torn
 * or garbled lines are skipped, and it is compacted when most of its lines are superseded. The
 * store's own writes add no line: an entry taken as the file is written is always racy (see
 * RACY_MS), so the next listing reads that file once and records it.
 */
export class IndexJournal {
  readonly file: string;

  constructor(readonly home: string) {
    this.file = journalFile(home);
  }

  load(): JournalSnapshot {
    const entries = new Map<string, JournalEntry>();
    let lines = 0;
    let fd: number;
    try {
      // Synchronous: `sessions ls` waits for it anyway, and the promise API brings node:fs/promises
      // into a listing that otherwise never needs it.
      fd = fs.openSync(this.file, 'r');
    } catch {
      return { entries, lines: 0 };
    }
    try {
      forEachLine(fd, (line) => {
        if (line.trim() === '') return;
        lines++;
        const record = toRecord(line);
        if (record === undefined) return;
        if ('removed' in record) entries.delete(record.id);
        else entries.set(record.id, record);
      });
    } catch {
      // A read failing midway is a lost cache, as a missing journal is: every file is read again.
      return { entries: new Map(), lines: 0 };
    } finally {
      fs.closeSync(fd);
    }
    return { entries, lines };
  }

  /**
   * Appends in one write; never throws. It takes no lock: one O_APPEND write lands whole, after
   * every other, whoever else appends, and a compaction carries over what was appended while it
   * ran (below). Synchronous calls, like the session file's (atomic-adapter.ts): it runs inside
   * every locked write, between the response headers and the first event shown.
   */
  async append(records: readonly JournalRecord[]): Promise<void> {
    if (records.length === 0) return;
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
    try {
      const fd = fs.openSync(this.file, 'a+', 0o600);
      try {
        const { size } = fs.fstatSync(fd);
        if (size === 0) fs.fchmodSync(fd, 0o600);
        // A crash can leave a torn last line; start on a fresh one so only that line is lost.
        const last = Buffer.alloc(1);
        if (size > 0) fs.readSync(fd, last, 0, 1, size - 1);
        fs.writeSync(fd, size > 0 && last[0] !== 0x0a ? `\n${text}` : text);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      // The index is a cache: a line it misses costs a re-parse of that file in the next listing.
    }
  }

  /**
   * Rewrites the journal with one line per id in `keep`; never throws. Compactions exclude each
   * other through the index lock; appends take none, so whatever was appended since the read is
   * copied to the end of the new content just before the atomic write (files/atomic-write.ts). An
   * append that lands between that copy and the rename is lost, which costs a re-parse of its
   * file, never a wrong listing: the listing checks every entry against its file's mtime and size
   * (docs/reliability.md #58).
   */
  async compact(keep: ReadonlySet<string>): Promise<void> {
    // Measured when the compaction is asked for, before the lock is awaited (how soon that
    // yields differs between Node versions): whatever is appended from here on is carried over,
    // a session created meanwhile included. Another compaction that replaced the file meanwhile
    // makes the offset meaningless; then it is measured again under the lock.
    const asked = fs.statSync(this.file, { throwIfNoEntry: false });
    await this.locked(async () => {
      const now = fs.statSync(this.file, { throwIfNoEntry: false });
      const same = asked !== undefined && now !== undefined && asked.ino === now.ino && asked.dev === now.dev;
      const readFrom = same ? asked.size : (now?.size ?? 0);
      const { entries } = this.load();
      const lines = [...entries.values()].filter((e) => keep.has(e.id)).map((e) => `${JSON.stringify(e)}\n`);
      // The rewritten lines end with a newline, and appends are whole lines.
      const since = (await readFile(this.file)).subarray(readFrom);
      await writeAtomic(this.file, Buffer.concat([Buffer.from(lines.join('')), since]));
      await removeStaleTemps(this.home, fs.readdirSync(this.home));
    });
  }

  private async locked(fn: () => Promise<void>): Promise<void> {
    const req = {
      target: this.file,
      lockPath: path.join(this.home, 'index.lock'),
      label: 'the session index',
      timeoutMs: JOURNAL_LOCK_MS,
    };
    await withLock(req, fn).catch(() => undefined);
  }
}

export interface Listing {
  sessions: SessionSummary[];
  unreadable: Unreadable[];
}

/**
 * Lists `dir` using the journal for files whose mtime and size still match a settled entry,
 * parsing the others in full; then feeds what it parsed and can trust back into the journal
 * and compacts it when due. `now` is the clock entries are stamped with.
 */
export async function listSessions(
  dir: string,
  journal: IndexJournal,
  now: () => number = Date.now,
  record = true,
): Promise<{ listing: Listing; names: string[] }> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { listing: { sessions: [], unreadable: [] }, names: [] };
    throw storeError(`cannot read the session directory ${dir}: ${code ?? String(err)}`, { cause: err });
  }
  const prefix = path.join(dir, path.sep);
  const snapshot = journal.load();
  const listing: Listing = { sessions: [], unreadable: [] };
  const fresh: JournalEntry[] = [];
  // The ids of the session files, in an array: a Set of 10,000 is built only when compacting.
  const present: string[] = [];
  for (const name of names) {
    const id = name.endsWith('.json') ? name.slice(0, -5) : '';
    if (!isValidId(id)) continue;
    // Plain concatenation and synchronous stats: with 10,000 files, path.join and promise-based
    // stats cost more than everything else list() does.
    const file = prefix + name;
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st?.isSymbolicLink() === true) {
      listing.unreadable.push({ file, reason: 'it is a symbolic link, which nsed does not follow' });
      continue;
    }
    if (!st?.isFile()) continue;
    present.push(id);
    const known = snapshot.entries.get(id);
    if (known && known.mtimeMs === st.mtimeMs && known.size === st.size && settled(known)) {
      listing.sessions.push(summaryOf(known));
      continue;
    }
    try {
      const entry = readEntry(file, id, now());
      listing.sessions.push(summaryOf(entry));
      // A file written moments ago is read again next time; its entry would prove nothing.
      if (settled(entry)) fresh.push(entry);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      listing.unreadable.push({ file, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  // A read-only caller (`nsed watch`) leaves the index as it found it: the next listing reads again.
  if (record) {
    await journal.append(fresh);
    if (snapshot.lines >= COMPACT_MIN_LINES && snapshot.lines > 2 * present.length)
      await journal.compact(new Set(present));
  }
  listing.sessions.sort((a, b) =>
    a.updated === b.updated ? b.id.localeCompare(a.id) : a.updated < b.updated ? 1 : -1,
  );
  return { listing, names };
}

/** Reads one file through a single descriptor, so its content and its stat belong together. */
function readEntry(file: string, id: string, seenMs: number): JournalEntry {
  const fd = fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    const session = decodeRecord(fs.readFileSync(fd), validateSession);
    return journalEntry(summarizeSession({ ...session, id }), st, seenMs);
  } finally {
    fs.closeSync(fd);
  }
}
