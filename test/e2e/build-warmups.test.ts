// `npm run build` inside a CI step (the Action's set-up, a job that builds from a checkout) runs
// warm-up asks to make the fast entries' code caches. They must not report as that step: a
// $GITHUB_OUTPUT, step summary or annotation written by a warm-up would make a step that builds
// and then fails read `exit-code=0`. The build runs as a process, as CI runs it, with the runner's
// variables pointing at files of the test's own.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BUILD = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));

let dir: string;
let out: { stdout: string; stderr: string };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-build-'));
  for (const f of ['output', 'summary', 'env', 'path']) await writeFile(join(dir, f), '');
  out = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `await (await import(${JSON.stringify(BUILD)})).buildCli(process.argv[1]);`,
      join(dir, 'dist'),
    ],
    {
      env: {
        ...process.env,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_OUTPUT: join(dir, 'output'),
        GITHUB_STEP_SUMMARY: join(dir, 'summary'),
        GITHUB_ENV: join(dir, 'env'),
        GITHUB_PATH: join(dir, 'path'),
        GITHUB_WORKSPACE: dir,
      },
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}, 300_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the build inside a GitHub Actions step', () => {
  it('made the fast entries, warm-ups and all', async () => {
    // The warm-ups ran: their code caches are what the Node < 22.1 bin loads.
    const built = await run('ls', [join(dir, 'dist')]);
    expect(built.stdout).toMatch(/ask\.[0-9a-f]+\.v8cache/);
  });

  it('writes nothing to the step outputs, summary, environment or path it was given', async () => {
    for (const f of ['output', 'summary', 'env', 'path']) expect(await readFile(join(dir, f), 'utf8')).toBe('');
  });

  it('prints no workflow command (annotation, mask, group)', () => {
    expect(`${out.stdout}\n${out.stderr}`).not.toMatch(/^::/m);
  });
});
