import { readFile, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { openFileStore } from '../../src/session/file-store.js';
import { SESSION_VERSION } from '../../src/session/model.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

async function failure(p: Promise<unknown>): Promise<NsedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof NsedError)) throw new Error(`expected an NsedError, got ${String(err)}`);
  return err;
}

const clockAt = (iso: string) => () => new Date(iso);

describe('file store basics', () => {
  it('creates a session as one line of JSON with a trailing newline and reads it back', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('abc', { turns: [turn('t1')] }));
    const text = await readFile(path.join(store.dir, 'abc.json'), 'utf8');
    expect(text).toMatch(new RegExp(`^\\{"version":${SESSION_VERSION},`));
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.indexOf('\n')).toBe(text.length - 1);
    expect((await store.read('abc')).turns).toEqual([turn('t1')]);
  });

  it('reads text that is not ASCII back as written, in a file of UTF-8 bytes', async () => {
    const store = openFileStore(await tempHome());
    const text = 'naïve — 日本語 🙂';
    await store.create(session('utf', { title: text, turns: [{ ...turn('t1'), content: text }] }));
    const bytes = await readFile(path.join(store.dir, 'utf.json'));
    expect(bytes.includes(Buffer.from(text, 'utf8'))).toBe(true);
    const back = await store.read('utf');
    expect([back.title, back.turns[0]?.content]).toEqual([text, text]);
  });

  it('sets the version on create', async () => {
    const store = openFileStore(await tempHome());
    await store.create({ ...session('v'), version: 0 });
    expect((await store.read('v')).version).toBe(SESSION_VERSION);
  });

  it('refuses to overwrite an existing id with exit 7', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('dup', { title: 'original' }));
    const err = await failure(store.create(session('dup', { title: 'impostor' })));
    expect(err.exitCode).toBe(7);
    expect((await store.read('dup')).title).toBe('original');
    expect((await readdir(store.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('reports a missing session with exit 3 and a hint to list sessions', async () => {
    const store = openFileStore(await tempHome());
    for (const call of [
      () => store.read('nope'),
      () => store.update('nope', () => undefined),
      () => store.remove('nope'),
    ]) {
      const err = await failure(call());
      expect(err.exitCode).toBe(3);
      expect(err.hint).toContain('nsed sessions ls');
    }
  });

  it('updates under the lock, bumps updated and returns the written record', async () => {
    const store = openFileStore(await tempHome(), { now: clockAt('2026-05-05T05:05:05.000Z') });
    await store.create(session('u'));
    const written = await store.update('u', (s) => {
      s.turns.push(turn('t1'));
    });
    expect(written.updated).toBe('2026-05-05T05:05:05.000Z');
    expect(await store.read('u')).toEqual(written);
    expect((await readdir(store.dir)).sort()).toEqual(['u.json']);
  });

  it('never moves updated backwards when the clock does', async () => {
    const store = openFileStore(await tempHome(), { now: clockAt('2020-01-01T00:00:00.000Z') });
    await store.create(session('c', { updated: '2026-01-01T00:00:00.000Z' }));
    expect((await store.update('c', () => undefined)).updated).toBe('2026-01-01T00:00:00.000Z');
  });

  it('writes nothing when the mutation throws', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('m'));
    const before = await readFile(path.join(store.dir, 'm.json'), 'utf8');
    await expect(
      store.update('m', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await readFile(path.join(store.dir, 'm.json'), 'utf8')).toBe(before);
  });

  it('keeps unknown fields of the session and its turns on rewrite (reliability #68)', async () => {
    const store = openFileStore(await tempHome());
    const file = path.join(store.dir, 'f.json');
    await store.create(session('f'));
    const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    raw.future_field = { nested: [1, 2] };
    raw.version = SESSION_VERSION + 5;
    raw.turns = [{ ...turn('t1'), annotation: 'kept' }];
    await writeFile(file, JSON.stringify(raw));
    await store.update('f', (s) => {
      s.title = 'renamed';
    });
    const after = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(after).toMatchObject({ future_field: { nested: [1, 2] }, version: SESSION_VERSION + 5, title: 'renamed' });
    expect(after.turns).toEqual([{ ...turn('t1'), annotation: 'kept' }]);
  });

  it('uses the file name as the id whatever a copied file says inside', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('orig'));
    await writeFile(path.join(store.dir, 'copy.json'), await readFile(path.join(store.dir, 'orig.json')));
    expect((await store.read('copy')).id).toBe('copy');
    expect((await store.update('copy', () => undefined)).id).toBe('copy');
    expect((await store.read('orig')).id).toBe('orig');
  });

  it('removes a session and forgets it', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('gone'));
    await store.remove('gone');
    expect((await failure(store.read('gone'))).exitCode).toBe(3);
    expect((await store.list()).sessions).toEqual([]);
  });

  it('creates the sessions directory 0700 only when writing, not when reading', async () => {
    const home = path.join(await tempHome(), 'deep', 'home');
    const store = openFileStore(home);
    expect((await store.list()).sessions).toEqual([]);
    await expect(stat(home)).rejects.toThrow();
    await store.create(session('x'));
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
  });
});

describe('resolve and latest', () => {
  it('resolves an exact id, a unique prefix, and names candidates of an ambiguous one', async () => {
    const store = openFileStore(await tempHome());
    for (const id of ['20260101-aaaa', '20260101-aabb', '20260102-cccc', 'ab']) await store.create(session(id));
    expect(await store.resolve('ab')).toBe('ab');
    expect(await store.resolve('20260102')).toBe('20260102-cccc');
    expect(await store.resolve('20260101-aab')).toBe('20260101-aabb');
    const ambiguous = await failure(store.resolve('20260101'));
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.message).toContain('20260101-aaaa, 20260101-aabb');
    expect((await failure(store.resolve('zz'))).exitCode).toBe(3);
  });

  it('names at most five candidates', async () => {
    const store = openFileStore(await tempHome());
    for (let i = 0; i < 7; i++) await store.create(session(`p${i}`));
    const err = await failure(store.resolve('p'));
    expect(err.message).toContain('matches 7 sessions: p0, p1, p2, p3, p4, …');
  });

  it.each(['../x', 'a/b', '..\\x', 'a\0b', 'x'.repeat(200), ''])(
    'rejects %j before touching the file system (reliability #77)',
    async (bad) => {
      const home = path.join(await tempHome(), 'never-created');
      const store = openFileStore(home);
      const calls = [
        () => store.resolve(bad),
        () => store.read(bad),
        () => store.update(bad, () => undefined),
        () => store.remove(bad),
        () => store.create(session(bad)),
      ];
      for (const call of calls) {
        expect((await failure(call())).exitCode).toBe(2);
      }
      await expect(stat(home)).rejects.toThrow();
    },
  );

  it('finds the most recently updated session, and says how to start one when there is none', async () => {
    const store = openFileStore(await tempHome());
    const err = await failure(store.latest());
    expect(err.exitCode).toBe(3);
    expect(err.hint).toContain('nsed ask');
    await store.create(session('old', { updated: '2026-01-01T00:00:00.000Z' }));
    await store.create(session('new', { updated: '2026-03-01T00:00:00.000Z' }));
    await store.create(session('mid', { updated: '2026-02-01T00:00:00.000Z' }));
    expect(await store.latest()).toBe('new');
  });
});

describe('permissions (reliability #76, C16)', () => {
  it.each([0o000, 0o022, 0o077])(
    'keeps the directory 0700 and files 0600 under umask %o, after create and rewrite',
    async (mask) => {
      const old = process.umask(mask);
      try {
        const home = path.join(await tempHome(), 'h');
        const store = openFileStore(home);
        await store.create(session('p'));
        const file = path.join(store.dir, 'p.json');
        expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
        expect((await stat(home)).mode & 0o777).toBe(0o700);
        expect((await stat(file)).mode & 0o777).toBe(0o600);
        await store.update('p', (s) => {
          s.title = 'rewritten';
        });
        expect((await stat(file)).mode & 0o777).toBe(0o600);
        // The listing index is written by a listing of a file it can trust (an old one).
        const past = new Date('2026-01-01T00:00:00Z');
        await utimes(file, past, past);
        await store.list();
        expect((await stat(path.join(home, 'index.ndjson'))).mode & 0o777).toBe(0o600);
      } finally {
        process.umask(old);
      }
    },
  );

  it('tightens a sessions directory someone else created 0755', async () => {
    const { mkdir: mk, chmod } = await import('node:fs/promises');
    const store = openFileStore(await tempHome());
    await mk(store.dir, { recursive: true });
    await chmod(store.dir, 0o755);
    await store.create(session('t'));
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
  });
});

describe('create()', () => {
  it('sweeps temp files that dead writers left behind (reliability #56)', async () => {
    const store = openFileStore(await tempHome());
    await store.create(session('first'));
    await writeFile(path.join(store.dir, '.first.json.2147483646.deadbeef.tmp'), '{"half');
    await store.create(session('second'));
    expect((await readdir(store.dir)).sort()).toEqual(['first.json', 'second.json']);
  });
});
