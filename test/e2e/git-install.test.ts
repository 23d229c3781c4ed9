/**
 * nsed installs from its git repository on a fresh machine, as docs/ci.md "A job without the Action"
 * says: clone a ref, `npm ci` (the build's dependencies), `npm pack` (its `prepack` builds
 * dist/), `npm i -g` of that tarball: no install script to allow, the same package a release
 * tarball is. The repository is a fresh clone holding this checkout's files as they would be
 * committed, reached by a `git+file://` URL; nothing but npm's registry is contacted.
 *
 * Why not `npm i -g git+URL`: npm prepares a git dependency by running its `prepare` script only,
 * never `prepack` (and without one it installs the repository unbuilt), while a `prepare` in the
 * package would ask every npm 11 install to allow an install script. The last test holds npm to
 * that, so README's advice changes when npm does.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIG = 64 * 1024 * 1024;

let dir: string;
let url: string;
let prefix: string;
let installLog = '';
const env = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

/** The files of a tarball. */
const listing = async (tgz: string): Promise<string[]> =>
  (await run('tar', ['tzf', tgz], { maxBuffer: BIG })).stdout.split('\n');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-git-'));
  prefix = join(dir, 'prefix');
  // A fresh clone, then this checkout's tracked and new files on top, committed: the repository
  // as this branch would publish it.
  const repo = join(dir, 'repo');
  await run('git', ['clone', '--quiet', '--no-hardlinks', ROOT, repo], { timeout: 120_000 });
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: BIG,
  });
  for (const file of stdout.split('\0').filter((f) => f !== '')) {
    await mkdir(join(repo, file, '..'), { recursive: true });
    await cp(join(ROOT, file), join(repo, file)).catch(() => undefined); // a file deleted in the checkout
  }
  const git = (args: string[]) =>
    run('git', ['-c', 'user.name=nsed test', '-c', 'user.email=test@localhost', ...args], { cwd: repo });
  await git(['add', '-A']);
  await git(['commit', '--quiet', '--allow-empty', '-m', 'the checkout as committed']);
  url = `git+file://${repo}`;
  // README's steps, on the clone of the URL.
  const src = join(dir, 'nsed-src');
  await run('git', ['clone', '--quiet', '--depth', '1', `file://${repo}`, src], { timeout: 120_000 });
  await run('npm', ['ci'], { cwd: src, env, timeout: 600_000, maxBuffer: BIG });
  await run('npm', ['pack'], { cwd: src, env, timeout: 300_000, maxBuffer: BIG });
  const tgz = (await readdir(src)).find((f) => f.endsWith('.tgz'));
  if (tgz === undefined) throw new Error('npm pack wrote no tarball');
  const installed = await run('npm', ['i', '-g', '--prefix', prefix, '--prefer-offline', join(src, tgz)], {
    cwd: dir,
    env,
    timeout: 300_000,
  });
  installLog = installed.stdout + installed.stderr;
}, 900_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('nsed from its git repository', { timeout: 300_000 }, () => {
  it('installs the packed clone without asking to allow an install script', () => {
    expect(installLog).not.toMatch(/install-scripts|allowScripts|allow-scripts/);
  });

  it('the installed nsed prints its version and runs a deliberation on its simulator', async () => {
    const home = { PATH: process.env['PATH'] ?? '', HOME: dir, NSED_HOME: join(dir, 'store') };
    const bin = join(prefix, 'bin', 'nsed');
    const version = await run(bin, ['--version'], { env: home, timeout: 120_000 });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    // --version is the bin's own answer; a deliberation needs the dist/ that prepack built.
    const { stdout } = await run(bin, ['ask', '--sim', '-p', 'fast', '-o', 'final', 'hi'], {
      env: home,
      timeout: 120_000,
    });
    expect(stdout).toContain('_Chosen:');
  });

  it('npm pack of the git URL itself runs no prepack: its tarball has no dist/ (why README clones first)', async () => {
    const packDir = join(dir, 'from-url');
    await mkdir(packDir);
    await run('npm', ['pack', '--pack-destination', packDir, url], {
      cwd: packDir,
      env,
      timeout: 300_000,
      maxBuffer: BIG,
    });
    const tgz = (await readdir(packDir)).find((f) => f.endsWith('.tgz'));
    expect(tgz).toBeDefined();
    const files = await listing(join(packDir, tgz ?? ''));
    expect(files).toContain('package/bin/nsed.cjs');
    expect(files.filter((f) => f.startsWith('package/dist/'))).toEqual([]);
  });
});
