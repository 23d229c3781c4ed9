// Writes completions/nsed.{bash,zsh,fish} and man/nsed.1 from src/docs, the one source that
// reads the command definitions themselves, and docs/architecture.md's arrows from scripts/layers.mjs. `--check` writes nothing and exits 1 when a
// committed file differs from what would be generated (for CI).
import { bundleModule } from './build.mjs';
import { withActionTables } from './action-docs.mjs';
import { withArrowTable } from './layers.mjs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

const dir = await mkdtemp(path.join(tmpdir(), 'nsed-docs-'));
try {
  const outfile = await bundleModule('src/docs/generate.ts', path.join(dir, 'generate.mjs'));
  const { generatedFiles, generatedReadme } = await import(pathToFileURL(outfile).href);
  let stale = 0;
  // README.md is prose with generated option tables in it: those are rewritten in place.
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const actionYml = await readFile(path.join(root, 'action.yml'), 'utf8');
  // docs/architecture.md's table of allowed imports is written from the rules lint enforces.
  const architecture = await readFile(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const files = {
    ...generatedFiles(),
    'README.md': withActionTables(generatedReadme(readme), actionYml),
    'docs/architecture.md': withArrowTable(architecture),
  };
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
