// Writes completions/nsed.{bash,zsh,fish} and man/nsed.1 from src/docs, the one source that
// reads the command definitions themselves; the generated regions of the manual (README.md and
// every docs/*.md: option tables, the MCP tool reference, the Action's tables); and
// docs/architecture.md's arrows from scripts/layers.mjs. `--check` writes nothing and exits 1
// when a committed file differs from what would be generated (for CI).
import { bundleModule } from './build.mjs';
import { ACTION_PAGE, withActionTables } from './action-docs.mjs';
import { withArrowTable } from './layers.mjs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

const dir = await mkdtemp(path.join(tmpdir(), 'nsed-docs-'));
try {
  const outfile = await bundleModule('src/docs/generate.ts', path.join(dir, 'generate.mjs'));
  const { generatedFiles, generatedManualPage } = await import(pathToFileURL(outfile).href);
  let stale = 0;
  const actionYml = await readFile(path.join(root, 'action.yml'), 'utf8');
  // The manual is prose with generated regions in it: those are rewritten in place, in whichever
  // page holds them, so a page added under docs/ is kept up to date without naming it here.
  const pages = [
    'README.md',
    ...(await readdir(path.join(root, 'docs')))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  const files = { ...generatedFiles() };
  for (const page of pages) {
    let text = generatedManualPage(await readFile(path.join(root, page), 'utf8'));
    if (page === ACTION_PAGE) text = withActionTables(text, actionYml);
    // docs/architecture.md's table of allowed imports is written from the rules lint enforces.
    if (page === 'docs/architecture.md') text = withArrowTable(text);
    files[page] = text;
  }
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(root, file);
    const current = await readFile(target, 'utf8').catch(() => undefined);
    if (current === text) continue;
    if (check) {
      console.error(`stale: ${file} (run npm run docs)`);
      stale += 1;
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
    console.log(`wrote ${file}`);
  }
  process.exitCode = stale > 0 ? 1 : 0;
} finally {
  await rm(dir, { recursive: true, force: true });
}
