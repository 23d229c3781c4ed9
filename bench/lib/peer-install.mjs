// Programs nobody here wrote that the bench and the tests run beside nsed (promptfoo, the MCP
// Inspector, the MCP conformance suite): each pinned by a package.json and lockfile of its own
// (bench/promptfoo/, test/peers/), installed with `npm ci`, once, into a cache directory outside
// the checkout named by the lockfile's hash, never into the root lockfile: CI installs that one,
// and their tens of thousands of files inside the checkout would be walked by everything that
// scans it (the citation checks). Each runs on a Node its `engines` allows, fetched as the
// registry's `node` package when this one is older.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runProcess } from './proc.mjs';

/** `major.minor.patch` of a version string, as numbers. */
const parts = (v) => v.replace(/^v/, '').split('.').map(Number);
const atLeast = (have, want) => {
  const [a, b] = [parts(have), parts(want)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
};

/** Where `source`'s lockfile is installed: `<cache>/nsed-bench/<name>-<hash of the lockfile>`. */
async function installDir(source, name) {
  const lock = await readFile(path.join(source, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex').slice(0, 12);
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'nsed-bench', `${name}-${hash}`);
}

/**
 * A Node that the `engines` of every package in `packages` allows (as the lockfile records
 * them): this one when it is new enough, else the registry's `node` package at the major they
 * need, run through npx (promptfoo 0.123.1 wants 22.22 or later and `npm ci` refuses it on
 * Node 20 with EBADENGINE).
 */
async function peerNode(source, packages, log) {
  const lock = JSON.parse(await readFile(path.join(source, 'package-lock.json'), 'utf8'));
  let floor = '0.0.0';
  let wanted = '>=0';
  for (const name of packages) {
    const engines = lock.packages?.[`node_modules/${name}`]?.engines?.node ?? '>=0';
    const least = /(\d+\.\d+\.\d+)/.exec(engines)?.[1] ?? '0.0.0';
    if (!atLeast(floor, least)) [floor, wanted] = [least, engines];
  }
  if (atLeast(process.version, floor)) return process.execPath;
  const major = parts(floor)[0];
  log(`${packages.join(', ')} need Node ${wanted}; this is ${process.version}: using npx node@${major}`);
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const run = await runProcess(npx, ['-y', `node@${major}`, '-p', 'process.execPath + " " + process.version'], {
    env: { ...process.env },
    keep: true,
    timeoutMs: 5 * 60_000,
    what: `npx node@${major}`,
  });
  const [node, version] = run.stdout.trim().split(' ');
  if (node === undefined || version === undefined || !atLeast(version, floor))
    throw new Error(`npx node@${major} gave ${run.stdout.trim() || 'nothing'}, not a Node ${wanted}`);
  return node;
}

/**
 * `source`'s lockfile installed (`npm ci`, a few minutes, once) and the Node to run it with:
 * `{ node, dir }`, `dir` holding its node_modules. `main` is a file the install must leave
 * (relative to `dir`). npm runs under that Node (its directory first on PATH), so the engine
 * check is the one the programs will run under.
 */
export async function ensurePeers({ source, name, packages, main, log }) {
  const node = await peerNode(source, packages, log);
  const dir = await installDir(source, name);
  if (existsSync(path.join(dir, main))) return { node, dir };
  log(`installing ${packages.join(', ')} into ${dir} (npm ci, once)`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) await copyFile(path.join(source, f), path.join(dir, f));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const PATH = `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`;
  await runProcess(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
    env: { ...process.env, PATH },
    timeoutMs: 15 * 60_000,
    what: `npm ci (${name})`,
  });
  if (!existsSync(path.join(dir, main))) throw new Error(`npm ci left no ${main} in ${dir}`);
  return { node, dir };
}
