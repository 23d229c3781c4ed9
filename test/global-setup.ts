// End-to-end tests spawn the built CLI, so build it once from the current sources, into a
// directory of this run's own: a second test run (or `npm run build`) at the same time must not
// swap the bundle under running processes. The directory is laid out as the package is
// (bin/nsed.cjs, dist/, package.json), and processes start from the bin, so every process test
// takes the route a user's command takes: the bin's own --version, the CommonJS entries for the
// plain shapes of ask, sessions ls/show and --help, the ES-module bundle for the rest; and
// provider/promptfoo.mjs, the promptfoo provider as the package ships it.
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildCli } from '../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** bin/nsed.cjs of this run's build. */
    cliBin: string;
    /** The dist/ folder beside it. */
    cliDist: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'nsed-cli-'));
  const root = join(import.meta.dirname, '..');
  await buildCli(join(dir, 'dist'));
  await mkdir(join(dir, 'bin'));
  await copyFile(join(root, 'bin', 'nsed.cjs'), join(dir, 'bin', 'nsed.cjs'));
  await copyFile(join(root, 'package.json'), join(dir, 'package.json'));
  await mkdir(join(dir, 'provider'));
  await copyFile(join(root, 'provider', 'promptfoo.mjs'), join(dir, 'provider', 'promptfoo.mjs'));
  project.provide('cliBin', join(dir, 'bin', 'nsed.cjs'));
  project.provide('cliDist', join(dir, 'dist'));
  return () => rm(dir, { recursive: true, force: true });
}
