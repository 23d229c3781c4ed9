import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { GATE_FLAGS } from '../../src/commands/shared/gate-flags.js';

// The Action's inputs, its step's environment and action/run.mjs name the same things: an input
// added to action.yml and not handed to the script (or the reverse) would be silently ignored.
const ROOT = join(import.meta.dirname, '..', '..');

interface Action {
  inputs: Record<string, unknown>;
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
    const ownSteps = new Set(['node-version', 'comment', 'github-token']);
    for (const name of Object.keys(action.inputs).filter((n) => !ownSteps.has(n))) {
      expect(env[envName(name)], `action.yml input ${name}`).toBe(`\${{ inputs.${name} }}`);
      expect(script.includes(`'${name}'`), `action/run.mjs reads ${name}`).toBe(true);
    }
    for (const gate of GATE_FLAGS) expect(Object.keys(action.inputs), `gate --${gate.name}`).toContain(gate.name);
  });
});
