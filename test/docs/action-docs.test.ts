// The manual's tables of the Action's inputs and outputs (docs/ci.md) are written from action.yml,
// the file GitHub reads, so an input added to the Action is documented by `npm run docs` or this
// test fails.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ACTION_PAGE, withActionTables } from '../../scripts/action-docs.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe("the manual's tables of the Action", () => {
  it('are the ones written from action.yml (npm run docs)', async () => {
    const page = await readFile(`${ROOT}${ACTION_PAGE}`, 'utf8');
    const actionYml = await readFile(`${ROOT}action.yml`, 'utf8');
    expect(page, 'stale: run npm run docs').toBe(withActionTables(page, actionYml));
    const action = parse(actionYml) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
    for (const name of Object.keys(action.inputs)) expect(page).toContain(`| \`${name}\` |`);
    for (const name of Object.keys(action.outputs)) expect(page).toContain(`| \`${name}\` |`);
  });

  it('describe args as what it is today', async () => {
    const action = parse(await readFile(`${ROOT}action.yml`, 'utf8')) as {
      inputs: Record<string, { description: string }>;
    };
    expect(action.inputs['args']?.description).not.toMatch(/later nsed/);
  });
});
