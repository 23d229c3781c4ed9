import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The measurement log is bench/RESULTS.md; a code comment says why in words, and what a trick buys
 * is on docs/performance.md. A few comments may still point at the log, where its numbers are the
 * reason (at most five).
 */
const MAX_CITATIONS = 5;
const CODE = /\.(ts|mts|cts|mjs|cjs|js)$/;

/** The lines of `text` that cite the measurement log, as `file:line`. */
function citationsIn(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (line.includes('RESULTS.md') ? [`${file}:${i + 1}`] : []));
}

async function codeFiles(): Promise<string[]> {
  const files = ['bin/nsed.cjs'];
  for (const dir of ['src', 'scripts']) {
    const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true });
    for (const e of entries)
      if (e.isFile() && CODE.test(e.name)) files.push(path.relative(ROOT, path.join(e.parentPath, e.name)));
  }
  return files;
}

describe('code comments that cite bench/RESULTS.md', () => {
  it('counts every line that names the log, comment or not', () => {
    const text = '// a (bench/RESULTS.md, round 3)\nconst x = 1;\n * see RESULTS.md\n';
    expect(citationsIn('src/a.ts', text)).toEqual(['src/a.ts:1', 'src/a.ts:3']);
  });

  it(`are at most ${MAX_CITATIONS} in src/, scripts/ and bin/nsed.cjs`, async () => {
    const found: string[] = [];
    for (const file of await codeFiles())
      found.push(...citationsIn(file, await readFile(path.join(ROOT, file), 'utf8')));
    expect(
      found.length,
      `cite docs/performance.md or say why in words instead:\n${found.join('\n')}`,
    ).toBeLessThanOrEqual(MAX_CITATIONS);
  });
});
