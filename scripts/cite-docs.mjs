// Rewrites the mechanical citation shapes in comments and test titles to the repository's own
// docs: `protocol.md §N` -> `docs/protocol.md §N`, `reliability.md #N` or a bare `(#N)` ->
// `docs/reliability.md #N` (in a test title: `reliability #N`, `protocol §N`). Branches merged
// from before docs/ existed bring the old shapes back; this fixes them without a hand edit.
// What needs words rather than a prefix (a design.md citation) it only lists. `--check` writes
// nothing and exits 1 when a file would change. test/docs/citations.test.ts is the judge.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const DIRS = ['src', 'test', 'bench', 'scripts'];
// These two name the old shapes on purpose.
const SKIP = new Set(['scripts/cite-docs.mjs', 'test/docs/citations.test.ts']);

const COMMENT = /^\s*(?:\/\/|\/\*\*?|\*)|\s\/\/\s/;
const TITLE = /\b(?:it|describe|test)\b[\w.]*(?:\([^)]*\))?\(\s*['"`]|\bname: ['"`]|^\s*\[['"`]/;

function rewrite(line) {
  const title = TITLE.test(line);
  if (!title && !COMMENT.test(line)) return line;
  let out = line
    .replace(/(?<![\w/.-])reliability(?:\.md)? #/g, 'docs/reliability.md #')
    .replace(/(?<![\w/.-])protocol\.md §/g, 'docs/protocol.md §');
  if (title) {
    out = out.replaceAll('docs/reliability.md #', 'reliability #').replaceAll('docs/protocol.md §', 'protocol §');
  }
  const prefix = title ? 'reliability ' : 'docs/reliability.md ';
  out = out.replace(/^(\s*\/\*\* )#(\d+):/, `$1${prefix}#$2:`);
  // The first number of a parenthetical names the document; the ones after it share it.
  return out.replace(/\(([^()]*#\d[^()]*)\)/g, (whole, inner) =>
    inner.includes('reliability') ? whole : `(${inner.replace(/(?<![\w&\\])#(\d)/, `${prefix}#$1`)})`,
  );
}

const files = [];
for (const dir of DIRS) {
  for (const e of await readdir(path.join(root, dir), { withFileTypes: true, recursive: true })) {
    const rel = path.relative(root, path.join(e.parentPath, e.name));
    if (e.isFile() && /\.(ts|mjs|js)$/.test(e.name) && !SKIP.has(rel)) files.push(rel);
  }
}

let changed = 0;
for (const file of files.sort()) {
  const text = await readFile(path.join(root, file), 'utf8');
  const lines = text.split('\n');
  const next = lines.map(rewrite);
  lines.forEach((line, i) => {
    if (/(?<![\w/.-])design\.md\b/.test(line)) console.log(`${file}:${i + 1}: cites design.md; say why in words`);
  });
  if (next.every((l, i) => l === lines[i])) continue;
  changed += 1;
  console.log(`${check ? 'would rewrite' : 'rewrote'} ${file}`);
  if (!check) await writeFile(path.join(root, file), next.join('\n'));
}
if (check && changed > 0) process.exitCode = 1;
