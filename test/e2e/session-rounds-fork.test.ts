// A fork copies its parent's answers with their rounds into files of its own (docs/history.md):
// removing the parent with `sessions rm`, which takes the parent's rounds with it, leaves every
// round of the fork's copies shown. Real CLI runs against the simulator over HTTP.
import { readdir } from 'node:fs/promises';
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
