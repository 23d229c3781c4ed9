import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { backArrowErrors, importGraph, rootFileErrors } from '../../scripts/check-imports.mjs';
import { ROOT_FILES_MAX } from '../../scripts/layers.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The import graph of a scratch repository holding `files` (path from the root -> source). */
async function graphOf(files: Record<string, string>): Promise<Record<string, string[]>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'nsed-shape-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    return await importGraph(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("src/turn/'s files sit above its sub-folders", () => {
  it('has no import that runs from a sub-folder back up to a file of turn/ leading into it', async () => {
    const graph = await importGraph(ROOT);
    expect(Object.keys(graph)).toContain('src/turn/execute-turn.ts');
    expect(backArrowErrors(graph)).toEqual([]);
  });

  it('names an import back up, with the way that leads into the sub-folder again', async () => {
    const graph = await graphOf({
      // execute-turn.ts uses follow/ through live-turn.ts; follow/left.ts then imports execute-turn.ts.
      'src/turn/execute-turn.ts': "import { live } from './live-turn.js';\nexport const run = live;\n",
      'src/turn/live-turn.ts': "import { replay } from './follow/replay.js';\nexport const live = replay;\n",
      'src/turn/follow/replay.ts': 'export const replay = 1;\n',
      'src/turn/follow/left.ts': "import { run } from '../execute-turn.js';\nexport const left = run;\n",
      // A leaf of turn/ that leads into no sub-folder may be imported from any of them.
      'src/turn/turn-spec.ts': 'export const spec = 1;\n',
      'src/turn/follow/stream.ts': "import { spec } from '../turn-spec.js';\nexport const s = spec;\n",
    });
    expect(backArrowErrors(graph)).toEqual([
      'src/turn/follow/left.ts -> src/turn/execute-turn.ts: runs back up inside src/turn/, as src/turn/execute-turn.ts -> src/turn/live-turn.ts -> src/turn/follow/replay.ts imports src/turn/follow/',
    ]);
  });

  it('names two sub-folders that import each other', async () => {
    const graph = await graphOf({
      'src/turn/follow/left.ts': "import { claim } from '../idempotency/claim.js';\nexport const left = claim;\n",
      'src/turn/idempotency/claim.ts': 'export const claim = 1;\n',
      'src/turn/idempotency/keyed.ts': "import { left } from '../follow/left.js';\nexport const keyed = left;\n",
    });
    expect(backArrowErrors(graph)).toEqual([
      expect.stringMatching(/^the sub-folders of src\/turn\/ import each other: src\/turn\/(follow|idempotency)\//),
    ]);
  });
});

describe("src/'s root", () => {
  it(`holds at most ${ROOT_FILES_MAX} files, the leaves every layer imports`, async () => {
    expect(rootFileErrors(await importGraph(ROOT))).toEqual([]);
  });

  it('names the files beyond the most it may hold', async () => {
    const graph = await graphOf({
      'src/errors.ts': 'export const e = 1;\n',
      'src/figures.ts': 'export const v = 1;\n',
      'src/council/usage.ts': 'export const u = 1;\n',
    });
    expect(rootFileErrors(graph, 2)).toEqual([]);
    expect(rootFileErrors(graph, 1)).toEqual([
      'src/ holds 2 files (src/errors.ts, src/figures.ts), at most 1: put each in the folder named for what it holds',
    ]);
  });
});
