import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import type { Turn } from '../../src/session/model.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

const journalLines = async (home: string): Promise<string[]> =>
  (await readFile(path.join(home, 'index.ndjson'), 'utf8')).split('\n').filter((l) => l !== '');

/**
 * Gives a session file an mtime well in the past (or `at`), as a file written long before the
 * listing has: the listing then trusts the entry it records (the racy-entry rule, RACY_MS).
 */
const age = async (dir: string, id: string, at = new Date('2026-01-01T00:00:00Z')): Promise<void> =>
  utimes(path.join(dir, `${id}.json`), at, at);

describe('list()', () => {
  it('lists newest updated first with the summary fields', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('a', { updated: '2026-01-01T00:00:00.000Z' }));
    await store.create(
      session('b', {
        updated: '2026-01-03T00:00:00.000Z',
        forked_from: { session: 'a', turn: null },
        turns: [turn('t1')],
      }),
    );
    await store.create(session('c', { updated: '2026-01-02T00:00:00.000Z' }));
    const { sessions, unreadable } = await store.list();
    expect(unreadable).toEqual([]);
    expect(sessions.map((s) => s.id)).toEqual(['b', 'c', 'a']);
    expect(sessions[0]).toEqual({
      id: 'b',
      title: 'title of b',
      policy: 'nsed:deep',
      turns: 1,
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-03T00:00:00.000Z',
      state: 'ok',
      forked_from: { session: 'a', turn: null },
      // One user turn and no answer: nothing cost anything, and nothing is unknown.
      usage: { input_tokens: null, output_tokens: null, cost_usd: null, unknown_cost_turns: 0, turns: 0 },
    });
  });

  it.each([
    ['ok', {}],
    ['running', { pending_job: { job_id: 'j', turn: 't1', path: 'compat' as const, policy: 'p', started: 'x' } }],
    [
      'interrupted',
      {
        pending_job: { job_id: 'j', turn: 't1', path: 'compat' as const, policy: 'p', started: 'x' },
        turns: [turn('t1'), turn('t2', { role: 'assistant', job_id: 'j', status: 'interrupted' })],
      },
    ],
    ['interrupted', { turns: [turn('t1'), turn('t2', { role: 'assistant', status: 'interrupted' })] }],
  ])('reports state %s', async (state, over) => {
    const store = openFileStore(await tempHome());
    await store.create(session('s', over));
    expect((await store.list()).sessions[0]?.state).toBe(state);
  });

  it('serves unchanged files from the journal without parsing them', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    await store.create(session('cached'));
    await age(store.dir, 'cached');
    await store.list();
    // Doctor the journal only: a parse of the file would say "title of cached".
    const lines = await journalLines(home);
    await writeFile(
      path.join(home, 'index.ndjson'),
      `${lines.map((l) => l.replace('title of cached', 'from the journal')).join('\n')}\n`,
    );
    expect((await store.list()).sessions[0]?.title).toBe('from the journal');
  });

  it("keeps each session's cost total in its entry, an unknown answer counted apart (reliability #250); an entry from before totals were kept is read again from its file", async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    const answer = (id: string, usage: Turn['usage']): Turn =>
      turn(id, { role: 'assistant', ...(usage === undefined ? {} : { usage }) });
    await store.create(
      session('costed', {
        turns: [
          turn('q1'),
          answer('a1', { input_tokens: 100, output_tokens: 40, cost_usd: 0.012, cost_source: 'reported' }),
          turn('q2'),
          answer('a2', { input_tokens: null, output_tokens: null, cost_usd: null, cost_source: 'unknown' }),
          turn('q3'),
          // Recorded before usage was kept: unknown too, never 0.
          answer('a3', undefined),
        ],
      }),
    );
    await age(store.dir, 'costed');
    const total = { input_tokens: 100, output_tokens: 40, cost_usd: 0.012, unknown_cost_turns: 2, turns: 3 };
    expect((await store.list()).sessions[0]?.usage).toEqual(total);
    const [line = ''] = await journalLines(home);
    expect((JSON.parse(line) as { usage: unknown }).usage).toEqual(total);
    // Served from the journal: a doctored total shows, so the listing did not parse the file.
    const doctored = { ...total, cost_usd: 9 };
    await writeFile(path.join(home, 'index.ndjson'), `${JSON.stringify({ ...JSON.parse(line), usage: doctored })}\n`);
    expect((await store.list()).sessions[0]?.usage).toEqual(doctored);
    // An entry of the vocabulary before totals (4, no usage) is not trusted: the file is read again.
    const { usage: _dropped, ...old } = JSON.parse(line) as Record<string, unknown>;
    await writeFile(path.join(home, 'index.ndjson'), `${JSON.stringify({ ...old, states: 4 })}\n`);
    expect((await store.list()).sessions[0]?.usage).toEqual(total);
  });

  it("the store's own writes add no line: an entry taken as its file is written would prove nothing", async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    await store.create(session('new'));
    await store.update('new', (s) => {
      s.title = 'renamed';
    });
    expect(existsSync(path.join(home, 'index.ndjson'))).toBe(false);
    // A listing moments after the write reads the file, and records nothing it could not trust.
    expect((await store.list()).sessions[0]?.title).toBe('renamed');
    expect(existsSync(path.join(home, 'index.ndjson'))).toBe(false);
  });

  it('reads a file again when its entry was taken within a tick of its mtime, so a same-size rewrite in that tick shows (the racy-entry rule)', async () => {
    const home = await tempHome();
    const tick = new Date('2026-06-01T12:00:00.000Z');
    // The listing's clock: 10 ms after the file's mtime, well inside RACY_MS.
    const store = openFileStore(home, { now: () => new Date(tick.getTime() + 10) });
    await store.create(session('racy'));
    await age(store.dir, 'racy', tick);
    expect((await store.list()).sessions[0]?.title).toBe('title of racy');
    // Rewritten in place, same size, and the file system's clock has not moved on.
    const file = path.join(store.dir, 'racy.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('title of racy', 'TITLE OF RACY'));
    await age(store.dir, 'racy', tick);
    expect((await store.list()).sessions[0]?.title).toBe('TITLE OF RACY');

    // Listed two seconds after its mtime, the entry is settled: recorded and served from then on.
    const later = openFileStore(home, { now: () => new Date(tick.getTime() + 2_000) });
    await later.list();
    expect((await journalLines(home)).map((l) => (JSON.parse(l) as { title: string }).title)).toEqual([
      'TITLE OF RACY',
    ]);
  });

  it('picks up a file changed behind the journal’s back', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('edited'));
    await store.list();
    const file = path.join(store.dir, 'edited.json');
    // Same size, so only the mtime gives the edit away.
    await writeFile(file, (await readFile(file, 'utf8')).replace('title of edited', 'TITLE OF EDITED'));
    await utimes(file, new Date('2030-01-01'), new Date('2030-01-01'));
    expect((await store.list()).sessions[0]?.title).toBe('TITLE OF EDITED');
  });

  it('lists files the journal never heard of and forgets files deleted behind its back', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('known'));
    await store.create(session('doomed'));
    await writeFile(path.join(store.dir, 'stranger.json'), JSON.stringify(session('stranger')));
    const { rm } = await import('node:fs/promises');
    await rm(path.join(store.dir, 'doomed.json'));
    expect((await store.list()).sessions.map((s) => s.id).sort()).toEqual(['known', 'stranger']);
  });

  it('lists a corrupt file among good ones as unreadable, never throwing', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('good1'));
    await store.create(session('good2'));
    await writeFile(path.join(store.dir, 'broken.json'), '{"id": "broken", "tit');
    const { sessions, unreadable } = await store.list();
    expect(sessions.map((s) => s.id).sort()).toEqual(['good1', 'good2']);
    expect(unreadable).toHaveLength(1);
    expect(unreadable[0]?.file).toBe(path.join(store.dir, 'broken.json'));
  });

  it('ignores files that are not sessions', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('real'));
    await writeFile(path.join(store.dir, 'notes.txt'), 'hello');
    await writeFile(path.join(store.dir, 'bad id.json'), '{}');
    await mkdir(path.join(store.dir, 'dir.json'));
    expect(await store.list()).toEqual({ sessions: [expect.objectContaining({ id: 'real' })], unreadable: [] });
  });

  it('skips torn and garbled journal lines and starts the next record on a fresh line (reliability #58)', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    await store.create(session('one'));
    await age(store.dir, 'one');
    await store.list();
    const journal = path.join(home, 'index.ndjson');
    await writeFile(journal, `${await readFile(journal, 'utf8')}{"id":"one","title":"x"}\nnot json\n{"id":"two","tit`);
    await store.create(session('two'));
    await age(store.dir, 'two');
    expect((await store.list()).sessions.map((s) => s.id).sort()).toEqual(['one', 'two']);
    const lines = await journalLines(home);
    expect(lines.at(-2)).toBe('{"id":"two","tit');
    expect(JSON.parse(lines.at(-1) ?? '')).toMatchObject({ id: 'two', title: 'title of two' });
  });

  it('compacts the journal when most lines are superseded, keeping every session', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    for (let i = 0; i < 6; i++) await store.create(session(`s${i}`));
    // Six rounds of rewrites, each listed once the files are old: six lines per round.
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 6; i++) {
        await store.update(`s${i}`, (s) => {
          s.title = `s${i} round ${round}`;
        });
        await age(store.dir, `s${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, round)));
      }
      await store.list();
    }
    await store.remove('s5');
    expect((await journalLines(home)).length).toBe(36 + 1);
    const before = (await store.list()).sessions;
    expect((await journalLines(home)).length).toBe(5);
    const after = (await store.list()).sessions;
    expect(after).toEqual(before);
    expect(after.map((s) => s.title).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `s${i} round 5`));
    await store.update('s0', (s) => {
      s.title = 'after compaction';
    });
    expect((await store.list()).sessions.find((s) => s.id === 's0')?.title).toBe('after compaction');
  });

  it('removes temp files of dead processes and keeps those of live ones (reliability #56)', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('x'));
    const dead = '.x.json.2147483646.0123abcd.tmp';
    const live = `.x.json.${process.ppid}.0123abcd.tmp`;
    await writeFile(path.join(store.dir, dead), 'half');
    await writeFile(path.join(store.dir, live), 'half');
    await store.list();
    expect((await readdir(store.dir)).sort()).toEqual([live, 'x.json'].sort());
  });
});
