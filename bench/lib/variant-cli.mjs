// Builds of the CLI for the A/B figures of the tricks that only a build can leave out
// (scripts/build.mjs, TRICKS): each into its own directory under the bench's temp dir, with
// bin/nsed.cjs and package.json beside it as in the package, from the same source at the same
// time, so the only difference between two of them is the trick.
import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './proc.mjs';

/** Builds the CLI without the tricks in `without` (none: the shipped build) and returns its bin/nsed.cjs. */
export async function buildVariant(tmp, name, without = []) {
  const { buildCli } = await import('../../scripts/build.mjs');
  const home = path.join(tmp, `cli-${name}`);
  await buildCli(path.join(home, 'dist'), { without });
  await mkdir(path.join(home, 'bin'), { recursive: true });
  await cp(path.join(ROOT, 'bin', 'nsed.cjs'), path.join(home, 'bin', 'nsed.cjs'));
  await cp(path.join(ROOT, 'package.json'), path.join(home, 'package.json'));
  return path.join(home, 'bin', 'nsed.cjs');
}
