import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NDJSON_EVENTS } from '../../src/docs/ndjson-schema.js';
import { anchors as pageAnchors, manualFiles } from './manual.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED_DIRS = ['src', 'test', 'bench', 'scripts'];
const SCANNED_EXT = /\.(ts|mjs|js|md)$/;
/** These name the outside documents and show the old citation shapes on purpose. */
const SELF = new Set(['test/docs/citations.test.ts', 'scripts/cite-docs.mjs']);
/** The reference pages these tests check citations against, not pages whose citations they check. */
const CITED = new Set(['docs/architecture.md', 'docs/ndjson.md', 'docs/protocol.md', 'docs/reliability.md']);

interface Source {
  file: string;
  lines: string[];
}

/** The manual (README.md and its pages under docs/), code, tests, benchmarks and scripts. */
async function sources(): Promise<Source[]> {
  const files = manualFiles().filter((f) => !CITED.has(f));
  for (const dir of SCANNED_DIRS) {
    const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true });
    for (const e of entries) {
      if (e.isFile() && SCANNED_EXT.test(e.name)) files.push(path.relative(ROOT, path.join(e.parentPath, e.name)));
    }
  }
  const read = async (file: string): Promise<Source> => ({
    file,
    lines: (await readFile(path.join(ROOT, file), 'utf8')).split('\n'),
  });
  return Promise.all(
    files
      .filter((f) => !SELF.has(f))
      .sort()
      .map(read),
  );
}

const doc = (name: string): Promise<string> => readFile(path.join(ROOT, 'docs', name), 'utf8');

/** Section numbers of a doc page: `## 4. …` gives 4, `### 3.12 …` gives 3.12. */
function sectionNumbers(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)) if (m[1] !== undefined) out.add(m[1]);
  return out;
}

function anchors(markdown: string): Set<string> {
  return new Set(Array.from(markdown.matchAll(/<a id="([^"]+)"><\/a>/g), (m) => m[1] ?? ''));
}

/** `§3.1 and §3.3`, `§4.3-§4.6`, `§3.4, §13.5`: every number named after the first `§`. */
const PROTOCOL_CITE = /(?:docs\/protocol\.md|protocol) §[\d.]*\d(?:(?:-| and |, )§[\d.]*\d)*/g;
/** `#33`, `#6-#9, #11`, `#55/#56`, `#78, C17`. */
const RELIABILITY_CITE = /(?:docs\/reliability\.md|reliability) #\d+(?:(?:, |-|\/)(?:#\d+|C\d+))*/g;
const OUTSIDE_DOC = /(?<![\w/.-])(?:design|protocol|reliability)\.md\b/;
const COMMENT = /^\s*(?:\/\/|\/\*\*?|\*)|\s\/\/\s/;
/** A title: `it('…`, `describe.each(…)('…`, `it.skipIf(x)('…`, a fixture's `name: '…`, an `it.each` row. */
const TITLE = /\b(?:it|describe|test)\b[\w.]*(?:\([^)]*\))?\(\s*['"`]|\bname: ['"`]|^\s*\[['"`]/;

describe('citations in code, tests and the manual', () => {
  it('name only docs that exist in the repository', async () => {
    const missing: string[] = [];
    for (const { file, lines } of await sources()) {
      lines.forEach((line, i) => {
        for (const m of line.matchAll(/\bdocs\/([\w-]+\.md)/g)) {
          if (!existsSync(path.join(ROOT, 'docs', m[1] ?? ''))) missing.push(`${file}:${i + 1}: docs/${m[1]}`);
        }
      });
    }
    expect(missing).toEqual([]);
  });

  it('never cite design.md, protocol.md or reliability.md outside docs/', async () => {
    const stray: string[] = [];
    for (const { file, lines } of await sources()) {
      // A page under docs/ links its neighbours by their own names (`reliability.md#bounds`).
      if (file.startsWith('docs/')) continue;
      lines.forEach((line, i) => {
        if (OUTSIDE_DOC.test(line)) stray.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    // Cite docs/protocol.md §N or docs/reliability.md #N instead, or say the reason in words.
    expect(stray).toEqual([]);
  });

  it('cite no bare #NN in a comment or a test title: a number says which document it counts in', async () => {
    const bare: string[] = [];
    for (const { file, lines } of await sources()) {
      if (file.endsWith('.md')) continue;
      lines.forEach((line, i) => {
        if (!COMMENT.test(line) && !TITLE.test(line)) return;
        const rest = line.replace(RELIABILITY_CITE, '');
        if (/(?<![\w&\\])#\d+\b/.test(rest)) bare.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    // `node scripts/cite-docs.mjs` rewrites the mechanical cases.
    expect(bare).toEqual([]);
  });

  it('name no issue number in tests: a test says what it proves, and cites docs/reliability.md #N for a scenario', async () => {
    const named: string[] = [];
    for (const { file, lines } of await sources()) {
      if (!file.startsWith('test/')) continue;
      lines.forEach((line, i) => {
        if (/\bissues? \d+/i.test(line)) named.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(named).toEqual([]);
  });

  it('point at sections of docs/protocol.md that exist', async () => {
    const sections = sectionNumbers(await doc('protocol.md'));
    expect(sections.size).toBeGreaterThan(20);
    const dangling: string[] = [];
    for (const { file, lines } of await sources()) {
      lines.forEach((line, i) => {
        for (const m of line.matchAll(PROTOCOL_CITE)) {
          for (const n of m[0].matchAll(/§([\d.]*\d)/g)) {
            if (!sections.has(n[1] ?? '')) dangling.push(`${file}:${i + 1}: §${n[1]}`);
          }
        }
      });
    }
    expect(dangling).toEqual([]);
  });

  it('point at scenarios and figures of docs/reliability.md that exist', async () => {
    const ids = anchors(await doc('reliability.md'));
    const dangling: string[] = [];
    let cited = 0;
    for (const { file, lines } of await sources()) {
      lines.forEach((line, i) => {
        for (const m of line.matchAll(RELIABILITY_CITE)) {
          for (const n of m[0].matchAll(/#(\d+)|(C\d+)/g)) {
            cited += 1;
            const id = n[1] ?? n[2] ?? '';
            if (!ids.has(id)) dangling.push(`${file}:${i + 1}: ${id}`);
          }
        }
      });
    }
    expect(cited).toBeGreaterThan(100);
    expect(dangling).toEqual([]);
  });

  it('link to anchors of docs pages that exist', async () => {
    const dangling: string[] = [];
    const pages = new Map<string, Set<string>>();
    const docFiles = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md'));
    const docText = async (f: string): Promise<Source> => ({ file: `docs/${f}`, lines: (await doc(f)).split('\n') });
    const docTexts = await Promise.all(docFiles.map(docText));
    const texts = [...(await sources()), ...docTexts];
    for (const { file, lines } of texts) {
      lines.forEach((line, i) => {
        for (const m of line.matchAll(/(?:docs\/)?\b([\w-]+\.md)#([\w-]+)/g)) {
          const page = m[1] ?? '';
          if (!docFiles.includes(page)) continue;
          if (!pages.has(page)) {
            pages.set(page, pageAnchors(docTexts.find((t) => t.file === `docs/${page}`)?.lines.join('\n') ?? ''));
          }
          if (!pages.get(page)?.has(m[2] ?? '')) dangling.push(`${file}:${i + 1}: ${m[0]}`);
        }
        for (const m of line.matchAll(/\]\(#([\w-]+)\)/g)) {
          if (!file.startsWith('docs/')) continue;
          if (!pageAnchors(lines.join('\n')).has(m[1] ?? '')) dangling.push(`${file}:${i + 1}: #${m[1]}`);
        }
      });
    }
    expect(dangling).toEqual([]);
  });
});

describe('docs/reliability.md', () => {
  it('names only test files that exist', async () => {
    const text = await doc('reliability.md');
    const named = new Set(Array.from(text.matchAll(/`(test\/[\w./-]+\.ts)`/g), (m) => m[1] ?? ''));
    expect(named.size).toBeGreaterThan(30);
    expect([...named].filter((f) => !existsSync(path.join(ROOT, f)))).toEqual([]);
  });

  it('keeps every scenario number from 1 to 81 and every figure from C1 to C19', async () => {
    const ids = anchors(await doc('reliability.md'));
    const scenarios = Array.from({ length: 81 }, (_, i) => String(i + 1));
    const figures = Array.from({ length: 19 }, (_, i) => `C${i + 1}`);
    const want = [...scenarios, ...figures];
    expect(want.filter((id) => !ids.has(id))).toEqual([]);
  });
});

describe('docs/ndjson.md', () => {
  it('has a row for every event type of the NDJSON schema, naming each of its fields', async () => {
    const text = await doc('ndjson.md');
    const problems: string[] = [];
    for (const [type, { fields }] of Object.entries(NDJSON_EVENTS)) {
      const row = text.split('\n').find((l) => l.startsWith(`| \`${type}\` |`));
      if (row === undefined) {
        problems.push(`${type}: no row`);
        continue;
      }
      for (const field of Object.keys(fields)) {
        if (!row.includes(`\`${field}\``)) problems.push(`${type}: field ${field}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("says finalized is a user's pick, as the wire's nsed_finalized is, never the council's choice", async () => {
    const rows = [await doc('ndjson.md'), await doc('reference.md')].map((t) =>
      t.split('\n').find((l) => l.startsWith('| `finalized` |')),
    );
    for (const row of [...rows, NDJSON_EVENTS.finalized.when]) {
      expect(row).toMatch(/a user picked a candidate/);
      expect(row).not.toMatch(/the council chose/);
    }
  });
});
