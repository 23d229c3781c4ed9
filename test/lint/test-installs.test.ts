// `npm test` needs nothing beyond `npm ci`: no file it runs reaches, through any chain of
// imports, the code that installs third-party peers from the registry (bench/lib/peer-install.mjs,
// bench/lib/promptfoo.mjs, about 2 GB on a fresh machine). Those tests are `npm run test:peers`,
// which .ci/run calls beside `npm test`.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { glob } from 'tinyglobby';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import mainConfig from '../../vitest.config.js';
import peersConfig from '../../vitest.peers.config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INSTALLERS = ['bench/lib/peer-install.mjs', 'bench/lib/promptfoo.mjs'];

/** The test files a config runs, relative to the root. */
async function filesOf(config: typeof mainConfig): Promise<string[]> {
  return glob(config.test?.include ?? [], { cwd: ROOT, ignore: config.test?.exclude ?? [] });
}

const importsOf = new Map<string, Promise<string[]>>();

/** The files `file` imports by relative specifiers (`.js` specifiers name `.ts` sources); read once. */
function imports(file: string): Promise<string[]> {
  let got = importsOf.get(file);
  if (got === undefined) {
    got = readFile(path.join(ROOT, file), 'utf8').then(
      (text) =>
        ts
          .preProcessFile(text, true, true)
          .importedFiles.map((f) => f.fileName)
          .filter((name) => name.startsWith('.'))
          .map((name) => {
            const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), name));
            return target.endsWith('.js') && !INSTALLERS.includes(target) ? target.replace(/\.js$/, '.ts') : target;
          }),
      () => [],
    );
    importsOf.set(file, got);
  }
  return got;
}

/** Every file reachable from `start` by relative imports. */
async function reachable(start: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...(await imports(file)));
  }
  return seen;
}

describe('the test commands', () => {
  it('npm test runs no file that can install a peer from the registry', async () => {
    const files = await filesOf(mainConfig);
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => f.startsWith('test/peers/'))).toEqual([]);
    const reaching: string[] = [];
    for (const f of files) {
      const reach = await reachable(f);
      if (INSTALLERS.some((i) => reach.has(i))) reaching.push(f);
    }
    expect(reaching).toEqual([]);
  });

  it('npm run test:peers runs the peers, and .ci/run calls it', async () => {
    const peers = await filesOf(peersConfig);
    expect(peers).toEqual(expect.arrayContaining(['test/peers/promptfoo.test.ts', 'test/peers/mcp-peers.test.ts']));
    // The peers do reach the installers: the check above follows imports far enough to see them.
    expect([...(await reachable('test/peers/promptfoo.test.ts'))]).toContain('bench/lib/promptfoo.mjs');
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['test:peers']).toBe('vitest run --config vitest.peers.config.ts');
    expect(await readFile(path.join(ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm run test:peers\b/m);
  });
});
