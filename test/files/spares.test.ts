// A batch's store keeps the inodes it would free (docs/reliability.md #272): each replaced session
// file stays, under a temp name of this process, as the next write's temp file, and each released
// lock directory as the next lock. What readers see must not change: the target is replaced whole
// by a rename, and a kept inode is never one a file is still named by.
import { statSync, utimesSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileSpares, writeAtomic } from '../../src/files/atomic-write.js';
import { Spares } from '../../src/files/spares.js';
import { lockSpares, withLock } from '../../src/session/lock.js';
import { tempHome } from '../harness/temp-store.js';

const TEMP = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;
const inode = (p: string): number => statSync(p).ino;

/** A store directory whose `a.json` was replaced once through `spares`, which keep its old version. */
async function oneReplaced(): Promise<{ dir: string; a: string; spares: ReturnType<typeof fileSpares> }> {
  const dir = await tempHome();
  const a = path.join(dir, 'a.json');
  await writeFile(a, 'a');
  const spares = fileSpares();
  await writeAtomic(a, 'a2', { spares });
  return { dir, a, spares };
}

describe('kept temp files', () => {
  it('a replaced file stays as a temp file of this process, and the next write fills it and renames it in', async () => {
    const dir = await tempHome();
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    await writeFile(a, 'the first version of a, longer than what replaces it');
    await writeFile(b, 'b');
    const firstA = inode(a);
    const spares = fileSpares();

    await writeAtomic(a, 'a2', { spares });
    expect(await readFile(a, 'utf8')).toBe('a2');
    const [kept, ...more] = (await readdir(dir)).filter((n) => n !== 'a.json' && n !== 'b.json');
    expect(more).toEqual([]);
    expect(TEMP.exec(kept ?? '')?.[1]).toBe(String(process.pid));
    // The old version, by its second name: no file is still named by it.
    expect(inode(path.join(dir, kept ?? ''))).toBe(firstA);
    expect(statSync(a).nlink).toBe(1);
    expect(statSync(path.join(dir, kept ?? '')).nlink).toBe(1);

    // Another file's write reuses it: truncated, filled, renamed in; b's old inode is kept in turn.
    const firstB = inode(b);
    await writeAtomic(b, 'b2', { spares });
    expect(inode(b)).toBe(firstA);
    expect(await readFile(b, 'utf8')).toBe('b2');
    const left = (await readdir(dir)).filter((n) => n !== 'a.json' && n !== 'b.json');
    expect(left.map((n) => inode(path.join(dir, n)))).toEqual([firstB]);
    expect(await readFile(a, 'utf8')).toBe('a2');
  });

  it('a new file by exclusive hard link is a kept temp file, named and no longer kept', async () => {
    const { dir, spares } = await oneReplaced();
    const keptInode = inode(path.join(dir, (await readdir(dir)).find((n) => TEMP.test(n)) ?? ''));
    const c = path.join(dir, 'c.json');
    await writeAtomic(c, 'c', { spares, exclusive: 'link' });
    expect(inode(c)).toBe(keptInode);
    expect((await readdir(dir)).sort()).toEqual(['a.json', 'c.json']);
  });

  it('a refused commit leaves the old file, and neither the kept file it used nor any other', async () => {
    const { dir, a, spares } = await oneReplaced();
    const refused = await writeAtomic(a, 'lost', {
      spares,
      beforeCommit: () => {
        throw new Error('lock lost');
      },
    }).catch((e: unknown) => e);
    expect((refused as Error).message).toBe('lock lost');
    expect(await readFile(a, 'utf8')).toBe('a2');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('keeps at most its bound per directory; the caller removes the rest', () => {
    const spares = new Spares(() => undefined, 2);
    expect([spares.keep('/d', '/d/1'), spares.keep('/d', '/d/2'), spares.keep('/d', '/d/3')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(spares.keep('/e', '/e/1')).toBe(true);
    expect([spares.take('/d'), spares.take('/d'), spares.take('/d')]).toEqual(['/d/2', '/d/1', undefined]);
  });
});

describe('kept lock directories', () => {
  it('the next lock is the released one renamed in, with its new owner and a fresh mtime', async () => {
    const dir = await tempHome();
    const spares = lockSpares();
    const req = (name: string) => ({ target: path.join(dir, name), label: name, timeoutMs: 5_000, spares });
    let first = { ino: 0, owner: '' };
    await withLock(req('a.json'), async () => {
      const lock = path.join(dir, 'a.json.lock');
      first = { ino: inode(lock), owner: await readFile(path.join(lock, 'owner'), 'utf8') };
    });
    const [kept, ...more] = await readdir(dir);
    expect(more).toEqual([]);
    // Kept under the name the sweep of dead processes' leftovers knows (reliability #56).
    expect(kept).toMatch(new RegExp(`^a\\.json\\.lock\\.gone-${process.pid}-[0-9a-f]{8}$`));
    // Made to look an hour old: taken again as it was, a waiter would find it stale.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(dir, kept ?? ''), hourAgo, hourAgo);

    const before = Date.now();
    await withLock(req('b.json'), async () => {
      const lock = path.join(dir, 'b.json.lock');
      expect(inode(lock)).toBe(first.ino);
      expect(statSync(lock).mtimeMs).toBeGreaterThanOrEqual(before - 1);
      const owner = await readFile(path.join(lock, 'owner'), 'utf8');
      expect(owner.split(' ').slice(0, 1)).toEqual([String(process.pid)]);
      expect(owner).not.toBe(first.owner);
      // Another taker (no spares of its own) finds it held, not stale, and gives up.
      const other = await withLock({ ...req('b.json'), spares: undefined, timeoutMs: 50 }, async () => 'taken').catch(
        (e: unknown) => e,
      );
      expect((other as Error).message).toContain('locked by another nsed process');
    });
    expect((await readdir(dir)).filter((n) => n.startsWith('b.json.lock.gone-'))).toHaveLength(1);
  });
});
