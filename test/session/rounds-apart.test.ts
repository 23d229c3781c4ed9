// Each answer's rounds and ballots live in a file beside the session's transcript, read only by
// what shows them (docs/history.md; docs/reliability.md #300-#303): real temp stores, the real
// file store, and a session an older nsed wrote (fixtures/v1-session.json, recorded from a run
// of the simulator before the rounds were put apart).
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realDisk, type DiskOps } from '../../src/files/atomic-write.js';
import { openFileStore } from '../../src/session/file-store.js';
import { SESSION_VERSION, type Session, type Turn } from '../../src/session/model.js';
import { failingDisk } from './fixtures/failing-disk.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'v1-session.json');
const v1 = async (): Promise<Session> => JSON.parse(await readFile(FIXTURE, 'utf8')) as Session;

/** The old file as it was, under its own id, in a fresh store. */
async function oldStore(): Promise<{ home: string; old: Session; file: string }> {
  const home = await tempHome();
  const old = await v1();
  await mkdir(path.join(home, 'sessions'), { recursive: true, mode: 0o700 });
  const file = path.join(home, 'sessions', `${old.id}.json`);
  await writeFile(file, `${JSON.stringify(old)}\n`, { mode: 0o600 });
  return { home, old, file };
}

const answers = (s: Session): Turn[] => s.turns.filter((t) => t.role === 'assistant');
const onDisk = async (file: string): Promise<Session> => JSON.parse(await readFile(file, 'utf8')) as Session;

describe('the rounds kept apart', () => {
  it('writes an old file in the new form on its next write, and reads back every round and ballot it held', async () => {
    const { home, old, file } = await oldStore();
    const store = openFileStore(home);
    expect(answers(old).every((t) => (t.rounds?.length ?? 0) > 0 && t.verdict?.ballots != null)).toBe(true);

    // Read as it is: the rounds are in the turns, whatever the reader asked for.
    expect(await store.read(old.id)).toEqual(old);

    await store.update(old.id, (s) => {
      s.title = 'renamed';
    });
    const written = await onDisk(file);
    expect(written.version).toBe(SESSION_VERSION);
    for (const t of answers(written)) {
      expect(t.rounds).toBeUndefined();
      expect(t.verdict?.ballots).toBeNull();
      expect(t.rounds_apart).toMatchObject({ ballots: true });
    }
    const files = await readdir(path.join(home, 'sessions', `${old.id}.rounds`));
    expect(files.sort()).toEqual(
      answers(written)
        .map((t) => t.rounds_apart?.file)
        .sort(),
    );
    // The transcript alone is what a plain read pays for: a third of the file it was.
    expect((await readFile(file)).byteLength).toBeLessThan(JSON.stringify(old).length / 2);

    const joined = await store.read(old.id, { rounds: true });
    expect(answers(joined).map((t) => [t.rounds, t.verdict?.ballots])).toEqual(
      answers(old).map((t) => [t.rounds, t.verdict?.ballots]),
    );
    const plain = await store.read(old.id);
    expect(answers(plain).every((t) => t.rounds === undefined && t.verdict?.ballots === null)).toBe(true);
  });

  it("puts a new answer's rounds and ballots apart and joins them back for what shows them", async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    const answer = answers(await v1())[0]!;
    await store.create(session('s1', { turns: [turn('u1')] }));
    await store.update('s1', (s) => {
      s.turns.push(structuredClone(answer));
    });
    const kept = (await onDisk(path.join(home, 'sessions', 's1.json'))).turns[1]!;
    expect(kept.rounds_apart).toEqual({
      file: expect.stringMatching(new RegExp(`^${answer.id}\\.[0-9a-f]{16}\\.json$`)) as string,
      rounds: answer.rounds?.length,
      ballots: true,
    });
    const beside = JSON.parse(
      await readFile(path.join(home, 'sessions', 's1.rounds', kept.rounds_apart!.file), 'utf8'),
    ) as Record<string, unknown>;
    expect(beside).toEqual({
      v: 1,
      session: 's1',
      turn: answer.id,
      rounds: answer.rounds,
      ballots: answer.verdict?.ballots,
    });
    const { rounds_apart: _marker, ...shown } = (await store.read('s1', { rounds: true })).turns[1]!;
    expect(shown).toEqual(answer);
  });

  it('reads the transcript alone unless asked for the rounds: a plain read and every write open no rounds file', async () => {
    const { home, old } = await oldStore();
    await openFileStore(home).update(old.id, () => undefined);
    const opened: string[] = [];
    const disk: DiskOps = {
      ...realDisk,
      open: (file, ...rest) => {
        opened.push(path.basename(file));
        return realDisk.open(file, ...rest);
      },
    };
    const store = openFileStore(home, { disk });
    await store.read(old.id);
    await store.update(old.id, (s) => void (s.title = 'again'));
    expect(opened.filter((f) => f.endsWith('.json') && f !== `${old.id}.json`)).toEqual([]);
    await store.read(old.id, { rounds: true });
    expect(opened.filter((f) => /^t[0-9a-f]+\.[0-9a-f]{16}\.json$/.test(f))).toHaveLength(answers(old).length);
  });

  it('keeps inline the rounds of an answer whose verdict was never recorded, as its verdict is derived from them', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    const { verdict: _v, ...older } = answers(await v1())[0]!;
    await store.create(session('s2', { turns: [turn('u1'), older] }));
    const kept = (await onDisk(path.join(home, 'sessions', 's2.json'))).turns[1]!;
    expect(kept.rounds).toEqual(older.rounds);
    expect(kept.rounds_apart).toBeUndefined();
    expect(existsSync(path.join(home, 'sessions', 's2.rounds'))).toBe(false);
  });

  it('shows a turn whose rounds file is missing, corrupt or named outside the store without rounds, and leaves the file as it is', async () => {
    const { home, old, file } = await oldStore();
    const store = openFileStore(home);
    await store.update(old.id, () => undefined);
    const written = await onDisk(file);
    const [first, second, third] = answers(written);
    const dir = path.join(home, 'sessions', `${old.id}.rounds`);
    await writeFile(path.join(dir, first!.rounds_apart!.file), '{"v":1,"session":');
    // A hand edit that points a marker at another file is no marker.
    third!.rounds_apart!.file = '../../outside.json';
    await writeFile(
      path.join(home, 'outside.json'),
      JSON.stringify({ v: 1, session: old.id, turn: third!.id, rounds: [] }),
    );
    await writeFile(file, JSON.stringify(written));
    const bytes = await readFile(path.join(dir, first!.rounds_apart!.file), 'utf8');

    const joined = answers(await store.read(old.id, { rounds: true }));
    expect(joined.map((t) => t.rounds === undefined)).toEqual([true, false, true]);
    // The corrupt file is named for the warning; the marker naming a path elsewhere is no marker at all.
    expect(joined.map((t) => typeof t.rounds_unreadable)).toEqual(['string', 'undefined', 'undefined']);
    expect(joined[1]!.rounds).toEqual(answers(old)[1]!.rounds);
    expect(second!.rounds_apart!.rounds).toBe(answers(old)[1]!.rounds!.length);
    expect(await readFile(path.join(dir, first!.rounds_apart!.file), 'utf8')).toBe(bytes);
  });

  it('fails a write whose rounds cannot be written with exit 8, and the transcript as it was', async () => {
    const { home, old, file } = await oldStore();
    const before = await readFile(file, 'utf8');
    const store = openFileStore(home, { disk: failingDisk('rename', 'ENOSPC') });
    const err = await store.update(old.id, (s) => void (s.title = 'x')).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: 8, message: expect.stringContaining('rounds file') as string });
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await openFileStore(home).read(old.id)).toEqual(old);
  });

  it('removes the rounds with their session on `sessions rm`', async () => {
    const { home, old } = await oldStore();
    const store = openFileStore(home);
    await store.update(old.id, () => undefined);
    expect(existsSync(path.join(home, 'sessions', `${old.id}.rounds`))).toBe(true);
    await store.remove(old.id);
    expect(await readdir(path.join(home, 'sessions'))).toEqual([]);
  });

  it('redacts the rounds file as it does the transcript (docs/reliability.md #89)', async () => {
    const home = await tempHome();
    const secret = 'sk-live-0123456789abcdef';
    const store = openFileStore(home, { redact: (t) => t.replaceAll(secret, '[redacted]') });
    const answer = structuredClone(answers(await v1())[0]!);
    answer.rounds![0]!.candidates[0]!.content_preview = `the token is ${secret}`;
    await store.create(session('s3', { turns: [turn('u1'), answer] }));
    const dir = path.join(home, 'sessions', 's3.rounds');
    const [name] = await readdir(dir);
    const text = await readFile(path.join(dir, name!), 'utf8');
    expect(text).not.toContain(secret);
    expect(text).toContain('the token is [redacted]');
  });
});
