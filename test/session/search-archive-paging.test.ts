// Archiving hides a session from ls and search without deleting it; ls pages from the search
// index and stays correct when session files change behind it (docs/reliability.md #58).
import { existsSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import { SearchIndex } from '../../src/session/index.js';
import type { SessionStore } from '../../src/session/store.js';
import { loadSqlite } from '../../src/session/search-index/search-sqlite.js';
import { runCliInProcess } from '../harness/cli.js';
import { searchSessions } from '../harness/search-store.js';
import { tempHome } from '../harness/temp-store.js';

const BACKENDS = loadSqlite() === undefined ? (['file'] as const) : (['file', 'sqlite'] as const);

async function fixedStore(): Promise<{ home: string; store: SessionStore }> {
  const home = await tempHome();
  const store = openFileStore(home);
  for (const s of searchSessions()) await store.create(s);
  return { home, store };
}

describe.each(BACKENDS)('on the %s backend', (backend) => {
  const cli = (home: string, args: string[]): ReturnType<typeof runCliInProcess> =>
    runCliInProcess(args, { env: { NO_COLOR: '1', NSED_HOME: home, NSED_SEARCH_INDEX: backend } });

  it('archive hides a session from ls and search, keeps its file, and unarchive brings it back', async () => {
    const { home, store } = await fixedStore();
    const file = path.join(store.dir, 's1.json');
    const archived = await cli(home, ['sessions', 'archive', 's1']);
    expect(archived).toMatchObject({ code: 0, stderr: 'archived s1\n' });
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ id: 's1', archived: expect.any(String) });
    expect((await cli(home, ['sessions', 'ls', '--ids'])).stdout).toBe('s5\ns4\ns3\ns2\n');
    expect((await cli(home, ['sessions', 'search', 'retry', '--json'])).stdout).not.toContain('"s1"');
    expect((await cli(home, ['sessions', 'ls', '--archived', '--ids'])).stdout).toBe('s1\ns6\n');
    // Stats describe the whole history, the archived included.
    expect(JSON.parse((await cli(home, ['sessions', 'stats', '--json'])).stdout)).toMatchObject([{ sessions: 6 }]);

    expect(await cli(home, ['sessions', 'unarchive', 's1'])).toMatchObject({ code: 0, stderr: 'unarchived s1\n' });
    expect((await cli(home, ['sessions', 'search', 'retry', '-n', '1', '--ids', '--json'])).code).toBe(2);
    expect(JSON.parse((await cli(home, ['sessions', 'search', 'retry', '-n', '1', '--json'])).stdout)).toMatchObject([
      { id: 's1' },
    ]);
    expect((await cli(home, ['sessions', 'ls', '--archived', '--ids'])).stdout).toBe('s6\n');
  });

  it('archives nothing when one of the ids names no session (exit 3)', async () => {
    const { home, store } = await fixedStore();
    const r = await cli(home, ['sessions', 'archive', 's2', 'nosuch']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no session matches 'nosuch'");
    expect((await store.read('s2')).archived).toBeUndefined();
    const none = await cli(home, ['sessions', 'archive']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('name the sessions to archive');
  });

  it('creates nothing in a store that has no sessions yet', async () => {
    const home = await tempHome();
    for (const args of [
      ['sessions', 'ls'],
      ['sessions', 'search', 'retry'],
      ['sessions', 'stats'],
    ])
      expect(await cli(home, args)).toMatchObject({ code: 0 });
    expect(existsSync(path.join(home, 'search'))).toBe(false);
    expect(existsSync(path.join(home, 'sessions'))).toBe(false);
  });

  describe('ls against files changed behind the index', () => {
    /**
     * An index whose clock runs a minute ahead: every file state it takes is settled (taken well
     * after the file's mtime), so it trusts what it holds, as it does for files written long
     * before; and a store that counts the session files it reads.
     */
    function settledIndex(store: SessionStore): { index: () => SearchIndex; reads: () => number } {
      let reads = 0;
      const counting = new Proxy(store, {
        get(target, key, receiver) {
          if (key === 'read')
            return (id: string) => {
              reads++;
              return target.read(id);
            };
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      return {
        index: () => SearchIndex.open(counting, { backend, now: () => Date.now() + 60_000 }),
        reads: () => reads,
      };
    }

    const page = async (open: () => SearchIndex, limit?: number): Promise<string[]> => {
      const index = open();
      try {
        return (await index.page({}, limit)).map((e) => `${e.id} ${e.title}`);
      } finally {
        index.close();
      }
    };

    it('reads no session file when nothing changed', async () => {
      const { store } = await fixedStore();
      const { index, reads } = settledIndex(store);
      expect(await page(index, 2)).toEqual(['s5 retry again', 's4 no answer yet']);
      expect(reads()).toBe(6);
      expect(await page(index, 2)).toEqual(['s5 retry again', 's4 no answer yet']);
      expect(reads()).toBe(6);
    });

    it('sees a file rewritten in place, which leaves the directory as it was', async () => {
      const { store } = await fixedStore();
      const { index, reads } = settledIndex(store);
      await page(index);
      const file = path.join(store.dir, 's5.json');
      const s = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      // Same file, same inode: no rename into the directory, so only the page's own check sees it.
      writeFileSync(file, JSON.stringify({ ...s, title: 'edited by hand' }));
      expect(await page(index, 1)).toEqual(['s5 edited by hand']);
      expect(reads()).toBe(7);
    });

    it('sees a file added or removed behind it, and a session moved by its new activity', async () => {
      const { store } = await fixedStore();
      const { index } = settledIndex(store);
      await page(index);
      copyFileSync(path.join(store.dir, 's1.json'), path.join(store.dir, 's9.json'));
      rmSync(path.join(store.dir, 's5.json'));
      await store.update('s2', (s) => {
        s.title = 'touched';
      });
      expect(await page(index)).toEqual([
        's2 touched',
        's4 no answer yet',
        's3 catalog',
        // The same `updated`: the greater id first.
        's9 retry policy',
        's1 retry policy',
      ]);
    });
  });
});
