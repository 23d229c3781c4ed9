import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { openFileStore } from '../../src/session/file-store.js';
import { session, tempHome } from '../harness/temp-store.js';

const good = Buffer.from(`${JSON.stringify(session('bad'), null, 2)}\n`);

// Every way docs/reliability.md #57 lists for a store file to go bad.
const corruptions: Array<[string, Buffer]> = [
  ['truncated JSON', good.subarray(0, 40)],
  ['zero bytes', Buffer.alloc(0)],
  ['garbage', Buffer.from('\u0000\u00ffnot json at all')],
  ['two interleaved objects', Buffer.concat([good.subarray(0, 60), good])],
  ['invalid UTF-8', Buffer.concat([good.subarray(0, 20), Buffer.from([0xc3, 0x28]), good.subarray(20)])],
  ['a byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), good])],
  ['a JSON array', Buffer.from('[]')],
  ['a session without turns', Buffer.from(JSON.stringify({ ...session('bad'), turns: undefined }))],
];

async function failure(p: Promise<unknown>): Promise<NsedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof NsedError)) throw new Error(`expected an NsedError, got ${String(err)}`);
  return err;
}

describe('a corrupt session file (reliability #57)', () => {
  it.each(corruptions)(
    'with %s is reported with exit 8 naming the file and left byte-for-byte untouched',
    async (_what, bytes) => {
      const store = openFileStore(await tempHome());
      await store.create(session('ok'));
      const file = path.join(store.dir, 'bad.json');
      await writeFile(file, bytes);

      const read = await failure(store.read('bad'));
      expect(read.exitCode).toBe(8);
      expect(read.message).toContain(`session file ${file} cannot be parsed:`);
      expect(read.message).toContain('it was left untouched');

      let mutated = false;
      const update = await failure(
        store.update('bad', () => {
          mutated = true;
        }),
      );
      expect(update.exitCode).toBe(8);
      expect(mutated).toBe(false);

      const { sessions, unreadable } = await store.list();
      expect(sessions.map((s) => s.id)).toEqual(['ok']);
      expect(unreadable).toEqual([{ file, reason: expect.any(String) }]);

      expect(await store.resolve('bad')).toBe('bad');
      expect(Buffer.compare(await readFile(file), bytes)).toBe(0);
      expect((await readdir(store.dir)).sort()).toEqual(['bad.json', 'ok.json']);
    },
  );

  it('does not stop other sessions from being created, read and updated', async () => {
    const store = openFileStore(await tempHome());
    await mkdir(store.dir, { recursive: true });
    await writeFile(path.join(store.dir, 'bad.json'), '{"id":');
    await store.create(session('fine'));
    await store.update('fine', (s) => {
      s.title = 'still fine';
    });
    expect((await store.read('fine')).title).toBe('still fine');
    expect(await store.latest()).toBe('fine');
  });

  it('says which field is wrong when the JSON parses but is not a session', async () => {
    const store = openFileStore(await tempHome());
    await mkdir(store.dir, { recursive: true });
    await writeFile(path.join(store.dir, 'odd.json'), JSON.stringify({ ...session('odd'), title: 42 }));
    expect((await failure(store.read('odd'))).message).toContain("field 'title' is missing or not a string");
  });
});
