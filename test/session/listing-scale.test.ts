import { link, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

describe('list() at scale', () => {
  it('lists 10,000 sessions from the journal, without parsing files whose mtime and size are unchanged', async () => {
    const home = await tempHome();
    const dir = path.join(home, 'sessions');
    await mkdir(dir, { recursive: true });
    // 100 distinct files, each hard-linked under 100 session names: writing 10,000 files costs
    // seconds on a busy disk, linking them a fraction of that. The file name is the session id.
    const turns = Array.from({ length: 6 }, (_, k) => turn(`t${k}`, { content: 'lorem ipsum dolor '.repeat(20) }));
    const sources = Array.from({ length: 100 }, (_, k) => path.join(home, `source-${k}.json`));
    // Whole-millisecond mtimes, so utimes can restore them exactly after the scrambling below.
    const when = new Date('2026-06-01T00:00:00.000Z');
    for (const [k, file] of sources.entries()) {
      const updated = new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString();
      await writeFile(file, JSON.stringify(session('any', { updated, turns }), null, 2));
      await utimes(file, when, when);
    }
    const idOf = (n: number): string => `s${String(n).padStart(5, '0')}`;
    for (let batch = 0; batch < 10_000; batch += 1_000) {
      await Promise.all(
        Array.from({ length: 1_000 }, (_, i) =>
          link(sources[(batch + i) % 100] ?? '', path.join(dir, `${idOf(batch + i)}.json`)),
        ),
      );
    }
    const store = openFileStore(home);
    let t = performance.now();
    const cold = await store.list();
    const coldMs = performance.now() - t;

    // Scramble some files but keep their size and mtime: only a list() that trusts the journal
    // still shows them as the sessions they were.
    for (const file of sources.slice(0, 5)) {
      await writeFile(file, '#'.repeat((await readFile(file)).length));
      await utimes(file, when, when);
    }
    t = performance.now();
    const warm = await store.list();
    const warmMs = performance.now() - t;
    console.info(
      `10,000 sessions: list() ${coldMs.toFixed(0)} ms parsing every file, ${warmMs.toFixed(0)} ms from the journal`,
    );
    expect(warm).toEqual(cold);
    expect(warm.unreadable).toEqual([]);
    expect(warm.sessions).toHaveLength(10_000);
    expect(warm.sessions.slice(0, 2).map((s) => s.id)).toEqual(['s09999', 's09899']);
    // The scrambled files listed as they were prove the journal was trusted; how fast that is
    // on this machine is a figure (printed above, and in bench/), not a pass condition.
  });
});
