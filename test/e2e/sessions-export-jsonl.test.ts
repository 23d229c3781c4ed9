// `sessions export --format jsonl` (docs/history.md): one line per turn for bulk readers, each the
// json export's turn, rounds joined back from the files beside the transcript, with its session
// and position; a session run against the simulator over HTTP.
import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

const rig = useRig();

describe('sessions export --format jsonl', () => {
  it("writes one line per turn, each the json export's turn with its session and position", async () => {
    const asked = await rig.run(['ask', '-o', 'json', 'Design a cache']);
    expect(asked.code, asked.stderr).toBe(0);
    const session = String((JSON.parse(asked.stdout) as { session: string }).session);
    const more = await rig.run(['continue', '-s', session, 'And its eviction?']);
    expect(more.code, more.stderr).toBe(0);

    const jsonl = await rig.run(['sessions', 'export', session, '--format', 'jsonl']);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    const json = await rig.run(['sessions', 'export', session, '--format', 'json']);
    const doc = JSON.parse(json.stdout) as { v: number; turns: Array<{ role: string; rounds: unknown[] }> };

    expect(jsonl.stdout.endsWith('\n')).toBe(true);
    const lines = jsonl.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map(({ v, session: s, position, ...turn }) => [v, s, position, turn])).toEqual(
      doc.turns.map((turn, i) => [doc.v, session, i + 1, turn]),
    );
    // The answers' rounds, which the session file keeps apart, are in their lines.
    const answers = parsed.filter((t) => t['role'] === 'assistant');
    expect(answers).toHaveLength(2);
    for (const a of answers) expect((a['rounds'] as unknown[]).length).toBeGreaterThan(0);
  });
});
