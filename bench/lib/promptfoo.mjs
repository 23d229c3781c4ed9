// promptfoo, the comparison the batch figures run beside `nsed batch`: a dev dependency of the
// bench only. Its package.json and lockfile live in bench/promptfoo/; it is installed from them
// with `npm ci`, once, into a cache directory outside the checkout (named by the lockfile's
// hash), never into the root lockfile: CI installs that one, and promptfoo's 75,000 files inside
// the checkout would be walked by everything that scans bench/ (the citation checks).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { baseEnv, runProcess } from './proc.mjs';

const SOURCE = fileURLToPath(new URL('../promptfoo/', import.meta.url));
// The discard port: nothing listens on it here, so a connection to it is refused at once.
const DEAD_END = 'http://127.0.0.1:9';
const MAIN = path.join('node_modules', 'promptfoo', 'dist', 'src', 'main.js');

async function installDir() {
  const lock = await readFile(path.join(SOURCE, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex').slice(0, 12);
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'nsed-bench', `promptfoo-${hash}`);
}

/** The version the lockfile pins, for the figure's name. */
export async function promptfooVersion() {
  const pkg = JSON.parse(await readFile(path.join(SOURCE, 'package.json'), 'utf8'));
  return pkg.dependencies.promptfoo;
}

/** `major.minor.patch` of a version string, as numbers. */
const parts = (v) => v.replace(/^v/, '').split('.').map(Number);
const atLeast = (have, want) => {
  const [a, b] = [parts(have), parts(want)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
};

/**
 * A Node that promptfoo's `engines` allows: this one when it is new enough, else the registry's
 * `node` package at the major promptfoo needs, run through npx (promptfoo 0.123.1 wants 22.22 or
 * later and `npm ci` refuses it on Node 20 with EBADENGINE, so the figure went missing on the
 * machines that ship 20). Its own npm then installs promptfoo, and it runs promptfoo's CLI.
 */
async function promptfooNode(log) {
  const pkg = JSON.parse(await readFile(path.join(SOURCE, 'package-lock.json'), 'utf8'));
  const wanted = pkg.packages?.['node_modules/promptfoo']?.engines?.node ?? '>=0';
  const floor = /(\d+\.\d+\.\d+)/.exec(wanted)?.[1] ?? '0.0.0';
  if (atLeast(process.version, floor)) return process.execPath;
  const major = parts(floor)[0];
  log(`promptfoo needs Node ${wanted}; this is ${process.version}: using npx node@${major}`);
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
 * promptfoo's CLI entry and the Node to run it with, installed with `npm ci` first when it is
 * missing (a few minutes, once). npm runs under that Node (its directory first on PATH), so the
 * engine check is the one promptfoo will run under.
 */
export async function ensurePromptfoo(log) {
  const node = await promptfooNode(log);
  const dir = await installDir();
  const main = path.join(dir, MAIN);
  if (existsSync(main)) return { node, main };
  log(`installing promptfoo into ${dir} (npm ci, once)`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) await copyFile(path.join(SOURCE, f), path.join(dir, f));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const PATH = `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`;
  await runProcess(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
    env: { ...process.env, PATH },
    timeoutMs: 15 * 60_000,
    what: 'npm ci (promptfoo)',
  });
  if (!existsSync(main)) throw new Error(`npm ci left no ${MAIN} in ${dir}`);
  return { node, main };
}

/**
 * The environment promptfoo runs in: its own config and database directory under the run's
 * temp dir, and everything that would reach past loopback turned off (telemetry, the update
 * check, sharing, remote generation). Even so, promptfoo 0.123.1 posts one "telemetry disabled"
 * event to r.promptfoo.app (seen with strace as a DNS query for it): every request not to
 * loopback is sent to a proxy on a closed loopback port, which promptfoo's fetch honours, so it
 * fails there without a lookup. The adaptive scheduler is off so that `-j` is the concurrency,
 * as it is for the other clients.
 */
export function promptfooEnv(configDir) {
  const env = baseEnv({
    PROMPTFOO_CONFIG_DIR: configDir,
    PROMPTFOO_DISABLE_TELEMETRY: '1',
    PROMPTFOO_DISABLE_UPDATE: '1',
    PROMPTFOO_DISABLE_SHARING: '1',
    PROMPTFOO_DISABLE_REMOTE_GENERATION: '1',
    PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION: '1',
    PROMPTFOO_DISABLE_ADAPTIVE_SCHEDULER: '1',
    HTTPS_PROXY: DEAD_END,
    HTTP_PROXY: DEAD_END,
    NO_PROXY: '127.0.0.1,localhost',
  });
  for (const key of Object.keys(env)) if (/^OPENAI_/.test(key)) delete env[key];
  return env;
}

/** A promptfoo eval of `prompts` through its `openai:chat` provider pointed at `url`'s /v1. */
export async function writeEval(dir, { url, model, prompts }) {
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'tests.jsonl'),
    prompts.map((prompt) => `${JSON.stringify({ vars: { prompt } })}\n`).join(''),
  );
  const config = [
    'description: nsed bench, the batch figures',
    'prompts:',
    "  - '{{prompt}}'",
    'providers:',
    `  - id: openai:chat:${model}`,
    '    config:',
    `      apiBaseUrl: ${url}/v1`,
    '      apiKey: bench',
    'tests: file://tests.jsonl',
    '',
  ].join('\n');
  const file = path.join(dir, 'promptfooconfig.yaml');
  await writeFile(file, config);
  return file;
}
