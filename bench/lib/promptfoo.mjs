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

/** promptfoo's CLI entry, installed with `npm ci` first when it is missing (a few minutes, once). */
export async function ensurePromptfoo(log) {
  const dir = await installDir();
  const main = path.join(dir, MAIN);
  if (existsSync(main)) return main;
  log(`installing promptfoo into ${dir} (npm ci, once)`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) await copyFile(path.join(SOURCE, f), path.join(dir, f));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await runProcess(npm, ['ci', '--prefix', dir, '--no-audit', '--no-fund'], {
    env: { ...process.env },
    timeoutMs: 15 * 60_000,
    what: 'npm ci (promptfoo)',
  });
  if (!existsSync(main)) throw new Error(`npm ci left no ${MAIN} in ${dir}`);
  return main;
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
