/**
 * The package installs like a tool: `npm pack` (which builds dist/ on prepack), `npm i -g` into
 * a temporary prefix without any install script to allow, then the installed `nsed` runs a
 * deliberation on its built-in simulator, lists and shows it (the fast entries) and `man -w nsed`
 * finds the linked man page. It packs a copy of the checkout: prepack rebuilds dist/ in place,
 * and the checkout's dist/ may be what other tests, or the person running them, start from.
 */
import { execFile, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const hasMan = spawnSync('man', ['--version']).status === 0;

let dir: string;
let prefix: string;
let installLog = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-pack-'));
  prefix = join(dir, 'prefix');
  const env = {
    ...process.env,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  // What the build and the package read, and the installed dependencies beside them (linked).
  const copy = join(dir, 'checkout');
  for (const entry of [
    'package.json',
    'package-lock.json',
    'README.md',
    'bin',
    'completions',
    'docs',
    'man',
    'provider',
    'schemas',
    'scripts',
    'src',
  ])
    await cp(join(ROOT, entry), join(copy, entry), { recursive: true });
  await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  await run('npm', ['pack', '--pack-destination', dir], { cwd: copy, env, timeout: 300_000 });
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const installed = await run('npm', ['i', '-g', '--prefix', prefix, '--prefer-offline', join(dir, tarball)], {
    cwd: dir,
    env,
    timeout: 300_000,
  });
  installLog = installed.stdout + installed.stderr;
}, 600_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the packed tarball, installed globally', { timeout: 300_000 }, () => {
  it('installs without asking to allow install scripts, and ships no build step', async () => {
    expect(installLog).not.toMatch(/install-scripts|allowScripts|allow-scripts/);
    const manifest = JSON.parse(
      await readFile(join(prefix, 'lib', 'node_modules', 'nsed', 'package.json'), 'utf8'),
    ) as {
      scripts?: Record<string, string>;
      man?: string[];
    };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(manifest.scripts?.[hook]).toBeUndefined();
    expect(manifest.man).toEqual(['./man/nsed.1']);
    // The review schema ships as a file too, for --schema FILE (docs/ci.md "Findings on the changed lines").
    const review = JSON.parse(
      await readFile(join(prefix, 'lib', 'node_modules', 'nsed', 'schemas', 'review.schema.json'), 'utf8'),
    ) as { title: string };
    expect(review.title).toBe('code_review');
  });

  it('runs nsed ask --sim from the prefix', async () => {
    const home = join(dir, 'store');
    const { stdout } = await run(join(prefix, 'bin', 'nsed'), ['ask', '--sim', '-p', 'fast', '-o', 'final', 'hi'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, NSED_HOME: home },
      timeout: 120_000,
    });
    expect(stdout).toContain('_Chosen:');
    // The fast entries (dist/fast.cjs, dist/help.cjs) ship and run from the installed package.
    const env = { PATH: process.env['PATH'] ?? '', HOME: dir, NSED_HOME: home };
    const ls = await run(join(prefix, 'bin', 'nsed'), ['sessions', 'ls', '--ids'], { env, timeout: 120_000 });
    expect(ls.stdout.trim()).toMatch(/^\d{8}-[0-9a-f]{8}$/);
    const show = await run(join(prefix, 'bin', 'nsed'), ['sessions', 'show', '--last', '-o', 'final'], {
      env,
      timeout: 120_000,
    });
    expect(show.stdout).toBe(stdout);
    const help = await run(join(prefix, 'bin', 'nsed'), ['sessions', '--help'], { env, timeout: 120_000 });
    expect(help.stdout).toContain('nsed sessions ls');
  });

  it('ships the promptfoo provider, which runs a turn from the installed package', async () => {
    // docs/ci.md "promptfoo": the file promptfoo is given, loaded as promptfoo loads it (an import).
    const file = join(prefix, 'lib', 'node_modules', 'nsed', 'provider', 'promptfoo.mjs');
    const { default: Provider } = (await import(pathToFileURL(file).href)) as {
      default: new (o: { id?: string; config?: unknown }) => {
        id(): string;
        callApi(prompt: string): Promise<{ output?: string; error?: string; metadata?: Record<string, unknown> }>;
      };
    };
    const provider = new Provider({ config: { sim: true, policy: 'fast', home: join(dir, 'promptfoo-store') } });
    expect(provider.id()).toBe('nsed');
    const r = await provider.callApi('hi');
    expect(r.error).toBeUndefined();
    expect(r.output).toContain('_Chosen:');
    expect(r.metadata?.['status']).toBe('complete');
    expect(String(r.metadata?.['session'])).toMatch(/^\d{8}-[0-9a-f]{8}$/);
  });

  it.runIf(hasMan)('man -w nsed finds the linked page under the prefix', async () => {
    const { stdout } = await run('man', ['-w', 'nsed'], {
      env: { PATH: process.env['PATH'] ?? '', MANPATH: join(prefix, 'share', 'man') },
    });
    expect(stdout.trim()).toMatch(/nsed\.1$/);
  });

  it.skipIf(hasMan)('man -w nsed: skipped, this machine has no man (the link is still checked)', async () => {
    console.warn('note: man is not installed; checking the man page link instead of running man -w');
    expect(await readdir(join(prefix, 'share', 'man', 'man1'))).toContain('nsed.1');
  });
});
