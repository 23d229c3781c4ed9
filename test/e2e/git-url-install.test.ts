/**
 * Why README says not to `npm install -g` a git URL: the machine's npm (11) reports success and
 * leaves nothing that runs. It prepares the package in a temporary clone, links the global
 * package to that clone and removes the clone's files: exit 0, a link to no package, no `nsed`. Should npm start
 * installing a git URL properly, this test fails and README's advice changes with it. The
 * repository is a clone of this checkout reached by a `git+file://` URL; nothing but npm's
 * registry (its cache first) is contacted.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIG = 64 * 1024 * 1024;

let dir: string;
let prefix: string;
let exitCode: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-git-url-'));
  prefix = join(dir, 'prefix');
  const repo = join(dir, 'repo');
  await run('git', ['clone', '--quiet', '--no-hardlinks', ROOT, repo], { timeout: 120_000 });
  const env = {
    ...process.env,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const installed = await run('npm', ['i', '-g', '--prefix', prefix, '--prefer-offline', `git+file://${repo}`], {
    cwd: dir,
    env,
    timeout: 600_000,
    maxBuffer: BIG,
  }).then(
    () => 0,
    (e: { code?: unknown }) => (typeof e.code === 'number' ? e.code : -1),
  );
  exitCode = installed;
}, 700_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('npm install -g of a git URL (docs/usage.md "Installing nsed as a tool")', { timeout: 60_000 }, () => {
  it('exits 0 and leaves the global package a link into a clone npm has removed, so no nsed runs', async () => {
    expect(exitCode).toBe(0);
    const pkg = join(prefix, 'lib', 'node_modules', 'nsed');
    expect((await lstat(pkg)).isSymbolicLink()).toBe(true);
    // The link leads into npm's temporary clone, whose files are gone: no package is there.
    expect(await readlink(pkg)).toMatch(/git-clone/);
    expect(existsSync(join(pkg, 'package.json'))).toBe(false);
    const bin = join(prefix, 'bin', 'nsed');
    expect((await lstat(bin)).isSymbolicLink()).toBe(true);
    expect(existsSync(bin)).toBe(false);
    await expect(run(bin, ['--version'])).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
