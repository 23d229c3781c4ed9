import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FIGURE_NAMES } from '../../bench/figures/names.mjs';
import { TRICKS } from '../../scripts/build.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Row {
  trick: string;
  figures: string[];
  tests: string[];
}

/**
 * The rows of the page's tricks table (the table under "## The tricks"): the figures each names
 * in backticks in its "what it buys" cell, and the test files in its last cell.
 */
function trickRows(page: string): Row[] {
  const section = page.split(/^## /m).find((s) => s.startsWith('The tricks')) ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*(trick|-)/.test(l))
    .map((l) => {
      const cells = l.split('|').slice(1, -1);
      const ticked = (cell = '') => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
      return {
        trick: (cells[0] ?? '').trim(),
        figures: ticked(cells[1]),
        tests: ticked(cells.at(-1)).filter((t) => t.startsWith('test/')),
      };
    });
}

describe('docs/performance.md', async () => {
  const page = await readFile(path.join(ROOT, 'docs', 'performance.md'), 'utf8');
  const rows = trickRows(page);

  it('reads the table of a page as its rows, figures and tests', () => {
    const sample = '## The tricks\n\n| trick | buys | test |\n|---|---|---|\n| a | `x` 0.5 | `test/a.test.ts` |\n';
    expect(trickRows(sample)).toEqual([{ trick: 'a', figures: ['x'], tests: ['test/a.test.ts'] }]);
  });

  it('lists the tricks, each with the test that guards it', () => {
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      expect(row.tests, `${row.trick}: no test named`).not.toEqual([]);
      for (const test of row.tests) expect(existsSync(path.join(ROOT, test)), `${row.trick}: ${test}`).toBe(true);
    }
  });

  it("names only figures that the bench's figures print", () => {
    const named = rows.flatMap((r) => r.figures);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(FIGURE_NAMES, `"${name}" is no figure of bench/run.mjs`).toContain(name);
  });

  it('has A/B figures from builds that still leave their trick out: each text a variant replaces is there once', async () => {
    // scripts/build.mjs fails a variant whose text is gone; this says so before a bench run does.
    expect(Object.keys(TRICKS).length).toBeGreaterThan(0);
    for (const [trick, files] of Object.entries(TRICKS))
      for (const [file, swaps] of Object.entries(files)) {
        const source = await readFile(path.join(ROOT, file), 'utf8');
        for (const [from] of swaps) expect(source.split(from).length - 1, `${trick}: ${file} has \`${from}\``).toBe(1);
      }
  });
});
