import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNdjson, useRig } from '../harness/rig.js';

/** The council's reasoning milestones stay one per line wherever the turn is read back. */

const rig = useRig();

const fileOf = (id: string): string => join(rig.home, 'sessions', `${id}.json`);

describe('reasoning milestones', () => {
  it('keeps reasoning milestones apart in -o json, the store and both exports', async () => {
    const r = await rig.run(['ask', '-o', 'json', '-p', 'fast', 'a question']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as { session: string; reasoning: string };
    const milestones = json.reasoning.split('\n');
    expect(milestones).toContain('Round 1 — evaluations from CortexA, CortexB, CortexC');
    expect(milestones.every((m) => !/CortexC(Round|Consensus)/.test(m))).toBe(true);

    const stored = JSON.parse(await readFile(fileOf(json.session), 'utf8')) as { turns: Array<{ reasoning?: string }> };
    expect(stored.turns.at(-1)?.reasoning).toBe(json.reasoning);

    const exported = JSON.parse((await rig.run(['sessions', 'export', json.session, '--format', 'json'])).stdout) as {
      turns: Array<{ reasoning: string | null }>;
    };
    expect(exported.turns.at(-1)?.reasoning).toBe(json.reasoning);

    const events = parseNdjson((await rig.run(['sessions', 'export', json.session, '--format', 'ndjson'])).stdout);
    expect(events.filter((e) => e['type'] === 'reasoning').map((e) => e['text'])).toEqual(milestones);
  });
});
