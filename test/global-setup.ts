// End-to-end tests spawn the built CLI, so build it once from the current sources, into a
// directory of this run's own: a second test run (or `npm run build`) at the same time must not
// swap the bundle under running processes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildCli } from '../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    cliMain: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'nsed-cli-'));
  await buildCli(dir);
  project.provide('cliMain', join(dir, 'main.js'));
  return () => rm(dir, { recursive: true, force: true });
}
