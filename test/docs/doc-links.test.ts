/**
 * README.md is the front door and docs/ the manual: README stays short enough to read through,
 * says how an example reaches an orchestrator before its first example, and every relative link
 * in README and docs/*.md leads to a file that exists and, into a Markdown page, to a heading
 * (or `<a id>`) it has.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, anchors, fencedBlocks, manualFiles, proseLines, readManual } from './manual.js';

/** `[text](target)` outside code: the target, without a title. */
function links(markdown: string): Array<{ line: number; target: string }> {
  const out: Array<{ line: number; target: string }> = [];
  proseLines(markdown).forEach((text, i) => {
    // Inline code is not a link: `[x](y)` inside backticks is text.
    const bare = text.replace(/`[^`]*`/g, '');
    for (const m of bare.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ line: i + 1, target: m[1] ?? '' });
  });
  return out;
}

describe('README.md, the front door', () => {
  it('is at most 400 lines', () => {
    expect(readManual('README.md').split('\n').length).toBeLessThanOrEqual(400);
  });

  it('says how the examples reach an orchestrator (--sim, or nsed sim and NSED_URL) before the first example', () => {
    const readme = readManual('README.md');
    const first = fencedBlocks(readme).find((b) => b.lang === 'sh');
    expect(first, 'README has no sh example').toBeDefined();
    const before = readme
      .split('\n')
      .slice(0, (first?.line ?? 1) - 1)
      .join('\n');
    expect(before).toContain('`--sim`');
    expect(before).toContain('`nsed sim`');
    expect(before).toContain('`NSED_URL`');
  });

  it('links to every page of the manual under docs/', () => {
    const readme = readManual('README.md');
    for (const page of ['usage', 'ci', 'mcp', 'simulator', 'reference']) expect(readme).toContain(`](docs/${page}.md`);
  });
});

describe('relative links in README.md and docs/*.md', () => {
  it('lead to files that exist and to anchors those pages have', () => {
    const broken: string[] = [];
    for (const file of manualFiles()) {
      for (const { line, target } of links(readManual(file))) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // https:, mailto:: not a file of the repository
        const [pathPart = '', anchor] = target.split('#');
        const resolved = pathPart === '' ? file : path.posix.join(path.posix.dirname(file), pathPart);
        const where = `${file}:${line}: ${target}`;
        if (!existsSync(path.join(ROOT, resolved))) {
          broken.push(`${where} (no file ${resolved})`);
          continue;
        }
        if (anchor === undefined || !resolved.endsWith('.md')) continue;
        if (!anchors(readManual(resolved)).has(anchor)) broken.push(`${where} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('are checked at all: the manual has links between its pages', () => {
    const count = manualFiles().reduce(
      (n, f) => n + links(readManual(f)).filter((l) => !l.target.includes(':')).length,
      0,
    );
    expect(count).toBeGreaterThan(20);
  });
});
