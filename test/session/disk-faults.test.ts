import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { openFileStore } from '../../src/session/file-store.js';
import { failingDisk, type DiskCall } from './fixtures/failing-disk.js';
import { session, tempHome } from '../harness/temp-store.js';

async function failure(p: Promise<unknown>): Promise<NsedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof NsedError)) throw new Error(`expected an NsedError, got ${String(err)}`);
  return err;
}

describe('disk faults (reliability #62, #65, C12)', () => {
  it.each<[DiskCall, string]>([
    ['open-temp', 'ENOSPC'],
    ['open-temp', 'EDQUOT'],
    ['rename', 'EROFS'],
    ['rename', 'EACCES'],
    ['rename', 'EPERM'],
    ['rename', 'ENOSPC'],
  ])('an update failing at %s with %s exits 8 naming the file, and the old file stays intact', async (call, code) => {
    const home = await tempHome();
    await openFileStore(home).create(session('d'));
    const file = path.join(home, 'sessions', 'd.json');
    const before = await readFile(file);
    const store = openFileStore(home, { disk: failingDisk(call, code) });
    const err = await failure(
      store.update('d', (s) => {
        s.title = 'lost';
      }),
    );
    expect(err.exitCode).toBe(8);
    expect(err.message).toBe(`cannot write session file ${file}: ${code}`);
    expect(err.hint).toMatch(/NSED_HOME/);
    expect(Buffer.compare(await readFile(file), before)).toBe(0);
    expect((await readdir(store.dir)).sort()).toEqual(['d.json']);
  });

  it.each<[DiskCall, string]>([
    ['open-temp', 'ENOSPC'],
    ['link', 'EROFS'],
  ])('a create failing at %s with %s exits 8 and leaves no file behind', async (call, code) => {
    const store = openFileStore(await tempHome(), { disk: failingDisk(call, code) });
    const err = await failure(store.create(session('n')));
    expect(err.exitCode).toBe(8);
    expect(err.message).toContain(code);
    expect(await readdir(store.dir)).toEqual([]);
  });

  it('creates through rename when the file system has no hard links', async () => {
    const store = openFileStore(await tempHome(), { disk: failingDisk('link', 'EPERM') });
    await store.create(session('nolink'));
    expect((await store.read('nolink')).id).toBe('nolink');
    expect((await failure(store.create(session('nolink')))).exitCode).toBe(7);
  });

  it('a remove the disk refuses exits 8 and keeps the session', async () => {
    const home = await tempHome();
    await openFileStore(home).create(session('r'));
    const err = await failure(openFileStore(home, { disk: failingDisk('unlink', 'EACCES') }).remove('r'));
    expect(err.exitCode).toBe(8);
    expect((await openFileStore(home).read('r')).id).toBe('r');
  });

  it('a sessions directory that is not a directory is exit 8 for writes and reads', async () => {
    const home = await tempHome();
    await writeFile(path.join(home, 'sessions'), 'not a directory');
    const store = openFileStore(home);
    const create = await failure(store.create(session('x')));
    expect(create.exitCode).toBe(8);
    expect(create.message).toContain(`cannot create the session directory ${store.dir}`);
    expect((await failure(store.read('x'))).exitCode).toBe(8);
    expect((await failure(store.list())).message).toBe(`cannot read the session directory ${store.dir}: ENOTDIR`);
  });
});
