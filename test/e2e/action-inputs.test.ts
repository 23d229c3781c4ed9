import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { GATE_FLAGS } from '../../src/commands/shared/gate-flags.js';
import { batchOutputs, turnOutputs } from '../../src/output/github-output.js';

// The Action's inputs, its step's environment and action/run.mjs name the same things: an input
// added to action.yml and not handed to the script (or the reverse) would be silently ignored.
const ROOT = join(import.meta.dirname, '..', '..');

interface Action {
  inputs: Record<string, unknown>;
  outputs: Record<string, { value: string }>;
  runs: { steps: Array<{ id?: string; env?: Record<string, string> }> };
}

const envName = (input: string): string => `INPUT_${input.replaceAll('-', '_').toUpperCase()}`;

describe('the GitHub Action wires every input through', () => {
  it('every input of the nsed step reaches its environment as INPUT_*, and every gate flag has an input', async () => {
    const action = YAML.parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as Action;
    const step = action.runs.steps.find((s) => s.id === 'nsed');
    const env = step?.env ?? {};
    const script = await readFile(join(ROOT, 'action', 'run.mjs'), 'utf8');
    // Inputs the composite's own steps use (not the script's).
    const ownSteps = new Set(['node-version', 'comment', 'comment-key', 'github-token', 'pr-review-request-changes']);
    for (const name of Object.keys(action.inputs).filter((n) => !ownSteps.has(n))) {
      expect(env[envName(name)], `action.yml input ${name}`).toBe(`\${{ inputs.${name} }}`);
      expect(script.includes(`'${name}'`), `action/run.mjs reads ${name}`).toBe(true);
    }
    for (const gate of GATE_FLAGS) expect(Object.keys(action.inputs), `gate --${gate.name}`).toContain(gate.name);
  });
});

describe('the GitHub Action declares every step output', () => {
  it("each output nsed (its check run's outputs too), action/run.mjs, comment.mjs or review.mjs writes is an output of action.yml, taken from the step that writes it, and each declared output is written by one of them", async () => {
    const action = YAML.parse(await readFile(join(ROOT, 'action.yml'), 'utf8')) as Action;
    const written = async (file: string): Promise<string[]> =>
      [...(await readFile(join(ROOT, 'action', file), 'utf8')).matchAll(/setOutput\('([a-z-]+)'/g)].map(
        (m) => m[1] ?? '',
      );
    // Every name nsed can write: a turn's (with its answer file) and a batch's (with its results file).
    const turn = turnOutputs({ session: 's', saved: true, jobId: 'j', status: 'complete', usage: null }, null, null, {
      exitCode: 0,
      answerFile: '/tmp/answer.md',
    });
    const batch = batchOutputs(
      { batch: 'b', saved: true, started: '', wallMs: 0, entries: [] },
      { exitCode: 0, resultsFile: '/tmp/results.jsonl' },
    );
    const bySteps = {
      nsed: new Set(
        [...turn, ...batch].map(([name]) => name).concat(await written('run.mjs'), ['check-run-id', 'check-run-url']),
      ),
      comment: new Set(await written('comment.mjs')),
      review: new Set(await written('review.mjs')),
    };
    for (const name of ['cost-usd', 'cost-source', 'input-tokens', 'output-tokens'])
      expect(bySteps.nsed).toContain(name);
    const declared = Object.entries(action.outputs);
    for (const [name, { value }] of declared) {
      const step = /^\$\{\{ steps\.(nsed|comment|review)\.outputs\.([a-z-]+) \}\}$/.exec(value);
      expect(step?.[2], `action.yml output ${name} takes the step's output of its own name`).toBe(name);
      expect(bySteps[step?.[1] as keyof typeof bySteps].has(name), `output ${name} is written by its step`).toBe(true);
    }
    const names = new Set(declared.map(([name]) => name));
    for (const name of Object.values(bySteps).flatMap((set) => [...set]))
      expect(names.has(name), `action.yml declares ${name}`).toBe(true);
  });
});
