// The figures run a private copy of the built CLI: other work in the same checkout (a test
// run's global setup) may rebuild dist/ mid-run, and a figure must not time a half-written
// bundle. The bundle is self-contained (dependencies inlined), so a copy runs as it is.
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, useCli } from './proc.mjs';

const DIST = path.join(ROOT, 'dist');

async function listing(dir) {
  const entries = await readdir(dir, { recursive: true });
  // Files only: a directory's own size is its entry table's, which a fresh copy need not match.
  const sizes = await Promise.all(
    entries.map(async (e) => {
      const s = await stat(path.join(dir, e));
      return s.isDirectory() ? `${e}/` : `${e}:${s.size}`;
    }),
  );
  return sizes.sort().join('\n');
}

/** Copies dist/, bin/nsed.cjs and package.json under `tmp` (building dist/ first if it is missing). */
export async function snapshotCli(tmp) {
  if (!existsSync(path.join(DIST, 'main.js'))) {
    const { buildCli } = await import('../../scripts/build.mjs');
    await buildCli();
  }
  const home = path.join(tmp, 'cli');
  for (let attempt = 0; attempt < 30; attempt++) {
    await rm(home, { recursive: true, force: true });
    await mkdir(path.join(home, 'bin'), { recursive: true });
    try {
      const before = await listing(DIST);
      await cp(DIST, path.join(home, 'dist'), { recursive: true });
      // A copy taken while dist/ was being rewritten differs from dist/ before or after it.
      if (
        before === (await listing(DIST)) &&
        before === (await listing(path.join(home, 'dist'))) &&
        before.includes('main.js:')
      ) {
        await cp(path.join(ROOT, 'bin', 'nsed.cjs'), path.join(home, 'bin', 'nsed.cjs'));
        await cp(path.join(ROOT, 'package.json'), path.join(home, 'package.json'));
        return useCli(path.join(home, 'bin', 'nsed.cjs'));
      }
    } catch {
      // dist/ vanished under the copy: a rebuild is under way, so wait for it.
    }
    await sleep(1_000);
  }
  throw new Error('dist/ kept changing for 30 s; run the bench when no build is running');
}
