// The listing index takes appends without a lock (docs/reliability.md #58): a compaction that
// runs meanwhile must carry them over, not lose them to its rename. Driven by call order, not
// timing: the index lock is held when compact() is asked for, so it measures the journal and
// waits; the append and the lock's release then happen in the same tick, before compact() can
// read anything. (With a free lock its first yield is its read of the journal, in flight on the
// thread pool, and the append could land on either side of it.)
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { IndexJournal, journalEntry } from '../../src/session/index-journal.js';
import { summarizeSession } from '../../src/session/store.js';
import { session, tempHome } from '../harness/temp-store.js';

const entry = (id: string, title: string) =>
  journalEntry(summarizeSession(session(id, { title })), { mtimeMs: 1, size: 2 }, 1 + 60_000);

describe('the listing index under a compaction', () => {
  it('keeps a line appended while it compacts, for a session the compaction did not know', async () => {
    const home = await tempHome();
    const journal = new IndexJournal(home);
    for (let i = 0; i < 40; i++) await journal.append([entry('a', `a${i}`)]);
    const lock = `${home}/index.lock`;
    fs.mkdirSync(lock);
    fs.writeFileSync(`${lock}/owner`, `${process.pid} ${os.hostname()} test-holder`);
    const compacting = journal.compact(new Set(['a']));
    // No await until the lock is gone: append() does its I/O synchronously.
    const appended = journal.append([entry('b', 'created meanwhile')]);
    fs.rmSync(lock, { recursive: true });
    await appended;
    await compacting;
    const { entries, lines } = await journal.load();
    expect(entries.get('a')?.title).toBe('a39');
    expect(entries.get('b')?.title).toBe('created meanwhile');
    // Compacted: the 40 lines of `a` became one.
    expect(lines).toBeLessThanOrEqual(3);
    expect((await readFile(journal.file, 'utf8')).endsWith('\n')).toBe(true);
  });

  it('appends without the index lock: a held lock does not delay or drop the line', async () => {
    const home = await tempHome();
    const journal = new IndexJournal(home);
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(`${home}/index.lock`);
    await writeFile(`${home}/index.lock/owner`, `${process.ppid} elsewhere token`);
    await journal.append([entry('c', 'while locked')]);
    expect((await journal.load()).entries.get('c')?.title).toBe('while locked');
  });
});
