import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { arrowErrors, findCycles, importGraph } from '../../scripts/check-imports.mjs';
import { LAYERS, withArrowTable } from '../../scripts/layers.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The layers/arrows messages ESLint reports for `code` written as the file `file`. */
async function arrowMessages(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'layers/arrows').map((m) => m.message);
}

describe('the layer arrows in lint', () => {
  it.each([
    [
      'src/api/x.ts',
      "import type { SessionStore } from '../session/store.js';\nexport type S = SessionStore;\n",
      /src\/api\/ must not import src\/session\//,
    ],
    ['src/api/x.ts', "export { createRenderer } from '../output/renderer.js';\n", /must not import src\/output\//],
    [
      'src/sim/x.ts',
      "import { createClient } from '../api/client.js';\nexport const c = createClient;\n",
      /src\/sim\/ may import only/,
    ],
    ['src/session/x.ts', "export const load = () => import('../api/client.js');\n", /must not import src\/api\//],
    [
      'src/output/x.ts',
      "import type { NsedClient } from '../api/client.js';\nexport type C = NsedClient;\n",
      /must not import src\/api\//,
    ],
    [
      'src/output/x.ts',
      "import { openFileStore } from '../session/file-store.js';\nexport const o = openFileStore;\n",
      /must not import src\/session\/file-store/,
    ],
    [
      'src/turn/x.ts',
      "import { ask } from '../commands/ask.js';\nexport const a = ask;\n",
      /must not import src\/commands\//,
    ],
    ['src/commands/x.ts', "import { runCli } from '../cli/run-cli.js';\nexport const r = runCli;\n", /is the entry/],
    [
      'src/tools/x.ts',
      "import type { SessionStore } from '../session/store.js';\nexport type S = SessionStore;\n",
      /src\/tools\/ may import only/,
    ],
    [
      'src/output/x.ts',
      "import { applyEvent } from '../turn/transcript.js';\nexport const a = applyEvent;\n",
      /must not import src\/turn\//,
    ],
    [
      'src/batch/x.ts',
      "import { batchCommand } from '../commands/batch.js';\nexport const b = batchCommand;\n",
      /src\/batch\/ must not import src\/commands\//,
    ],
    [
      'src/batch/x.ts',
      "import { INPUT_FLAGS } from '../commands/shared/input-flags.js';\nexport const f = INPUT_FLAGS;\n",
      /src\/batch\/ must not import src\/commands\//,
    ],
    [
      'src/turn/x.ts',
      "import type { BatchItem } from '../batch/items.js';\nexport type B = BatchItem;\n",
      /src\/turn\/ must not import src\/batch\//,
    ],
    [
      'src/input/x.ts',
      "import { INPUT_FLAGS } from '../commands/shared/input-flags.js';\nexport const f = INPUT_FLAGS;\n",
      /src\/input\/ must not import src\/commands\//,
    ],
    [
      'src/turn/x.ts',
      "import { readPrompt } from '../input/prompt.js';\nexport const r = readPrompt;\n",
      /src\/turn\/ must not import src\/input\//,
    ],
    [
      'src/events/transcript.ts',
      "import type { Session } from '../session/model.js';\nexport type S = Session;\n",
      /src\/events\/transcript\.ts may import only/,
    ],
  ])('reports %s importing against the arrows', async (file, code, message) => {
    expect(await arrowMessages(file, code)).toEqual([expect.stringMatching(message)]);
  });

  it.each([
    ['src/turn/x.ts', "import { isAlive } from '../session/lock.js';\nexport const a = isAlive;\n", 'session/lock'],
    [
      'src/turn/x.ts',
      "import { eofError } from '../api/stream-processor.js';\nexport const e = eofError;\n",
      'api/stream-processor',
    ],
    ['src/commands/x.ts', "export const load = () => import('../session/file-store.js');\n", 'session/file-store'],
    [
      'src/output/x.ts',
      "import type { Session } from '../session/model.js';\nexport type S = Session;\n",
      'session/model',
    ],
  ])('keeps %s out of a private module of a layer with a face (%s)', async (file, code, what) => {
    const [layer] = what.split('/');
    expect(await arrowMessages(file, code)).toEqual([
      `'${code.match(/'([^']+)'/)?.[1] ?? ''}' runs against the arrows: src/${what}.ts is private to src/${layer}/: import what other layers may use from src/${layer}/index.ts`,
    ]);
  });

  it('lets the Context open the store, and the faces be imported', async () => {
    expect(
      await arrowMessages('src/run/context.ts', "export const load = () => import('../session/file-store.js');\n"),
    ).toEqual([]);
    const faces =
      "import { isAlive } from '../session/index.js';\nimport { eofError } from '../api/index.js';\nexport const x = [isAlive, eofError];\n";
    expect(await arrowMessages('src/turn/x.ts', faces)).toEqual([]);
  });

  it('lets the arrows that run one way pass', async () => {
    const ok = [
      "import type { NsedEvent } from '../events/events.js';",
      "import { NsedError } from '../errors.js';",
      "import { applyEvent } from '../events/transcript.js';",
      "import type { Session } from '../session/index.js';",
      'export type X = [NsedEvent, NsedError, typeof applyEvent, Session];',
    ].join('\n');
    expect(await arrowMessages('src/output/x.ts', `${ok}\n`)).toEqual([]);
    // A batch reads its items' input with the readers every command uses, and runs turns.
    const batch =
      "import { prepareTurnInput } from '../input/turn-input.js';\nimport { executeTurn } from '../turn/execute-turn.js';\nexport const x = [prepareTurnInput, executeTurn];\n";
    expect(await arrowMessages('src/batch/x.ts', batch)).toEqual([]);
  });
});

describe('the import graph', () => {
  it('has no circle and no import against the arrows in src/', async () => {
    const graph = await importGraph(ROOT);
    expect(Object.keys(graph).length).toBeGreaterThan(100);
    expect(arrowErrors(graph)).toEqual([]);
    expect(findCycles(graph)).toEqual([]);
  });

  it('finds a circle made of type-only and dynamic imports', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'nsed-graph-'));
    try {
      await mkdir(path.join(dir, 'src', 'turn'), { recursive: true });
      await writeFile(path.join(dir, 'src/turn/a.ts'), "import type { B } from './b.js';\nexport type A = B;\n");
      await writeFile(
        path.join(dir, 'src/turn/b.ts'),
        "export const load = () => import('../c.js');\nexport type B = 1;\n",
      );
      await writeFile(path.join(dir, 'src/c.ts'), "export { type A } from './turn/a.js';\n");
      const cycles = findCycles(await importGraph(dir));
      expect(cycles).toHaveLength(1);
      expect(new Set(cycles[0])).toEqual(new Set(['src/turn/a.ts', 'src/turn/b.ts', 'src/c.ts']));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("docs/architecture.md's table of arrows", () => {
  it('is the one written from the rules lint enforces (npm run docs)', async () => {
    const doc = await readFile(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(doc, 'stale: run npm run docs').toBe(withArrowTable(doc));
    // Every rule has its row, so a rule added to scripts/layers.mjs reaches the page.
    for (const rule of LAYERS) expect(doc).toContain(`| \`${rule.from.replace(/^src\//, '')}\` |`);
  });
});
