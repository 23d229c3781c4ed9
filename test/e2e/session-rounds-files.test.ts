// The rounds kept beside a session's transcript (docs/history.md), as the CLI shows them: a fork
// copies its parent's answers with their rounds into files of its own, and a rounds file that
// cannot be read costs its turn's rounds alone, with one warning. Real CLI runs against the
// simulator over HTTP.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

const rig = useRig();

const roundsShown = async (id: string): Promise<number[]> => {
  const shown = await rig.run(['sessions', 'show', id, '--json']);
  expect(shown.code, shown.stderr).toBe(0);
  const doc = JSON.parse(shown.stdout) as { turns: Array<{ role: string; rounds: unknown[] }> };
  return doc.turns.filter((t) => t.role === 'assistant').map((t) => t.rounds.length);
};

describe('a rounds file that cannot be read (docs/reliability.md #302)', () => {
  it('shows the session, its other rounds and one warning naming the file, which is left as it is', async () => {
    const asked = await rig.run(['ask', '-o', 'json', 'Design a cache']);
    const id = String((JSON.parse(asked.stdout) as { session: string }).session);
    expect((await rig.run(['continue', '-s', id, 'And its eviction?'])).code).toBe(0);
    const dir = path.join(rig.home, 'sessions', `${id}.rounds`);
    const file = (await readdir(dir)).sort()[0]!;
    const { turns } = JSON.parse(await readFile(path.join(rig.home, 'sessions', `${id}.json`), 'utf8')) as {
      turns: Array<{ id: string; rounds_apart?: { file: string } }>;
    };
    const broken = turns.find((t) => t.rounds_apart?.file === file)!;
    await writeFile(path.join(dir, file), '{"v":1,"rounds":');

    const shown = await rig.run(['sessions', 'show', id, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^nsed: warning: the rounds of turn ${broken.id} cannot be read \\(.*${file}: `),
    );
    expect(lines[0]).toContain('repair or remove that file');
    const doc = JSON.parse(shown.stdout) as { turns: Array<{ id: string; role: string; rounds: unknown[] }> };
    const answers = doc.turns.filter((t) => t.role === 'assistant');
    expect(answers.map((t) => (t.id === broken.id ? t.rounds.length === 0 : t.rounds.length > 0))).toEqual([
      true,
      true,
    ]);
    expect(await readFile(path.join(dir, file), 'utf8')).toBe('{"v":1,"rounds":');

    // The plain transcript does not read the rounds: no warning.
    const plain = await rig.run(['sessions', 'show', id]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe('');
  });
});

describe('the rounds of a fork', () => {
  it("are the fork's own: removing the parent leaves them shown", async () => {
    const asked = await rig.run(['ask', '-o', 'json', 'Design a cache']);
    expect(asked.code, asked.stderr).toBe(0);
    const parent = String((JSON.parse(asked.stdout) as { session: string }).session);
    const forked = await rig.run(['fork', parent]);
    expect(forked.code, forked.stderr).toBe(0);
    const fork = forked.stdout.trim();

    const before = await roundsShown(fork);
    expect(before).toHaveLength(1);
    expect(before[0]).toBeGreaterThan(0);
    expect(await readdir(path.join(rig.home, 'sessions', `${fork}.rounds`))).toHaveLength(1);

    const removed = await rig.run(['sessions', 'rm', parent]);
    expect(removed.code, removed.stderr).toBe(0);
    const left = await readdir(path.join(rig.home, 'sessions'));
    expect(left.filter((n) => n.startsWith(parent))).toEqual([]);
    expect(await roundsShown(fork)).toEqual(before);
  });
});
