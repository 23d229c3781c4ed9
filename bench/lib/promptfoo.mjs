// promptfoo, the comparison the batch figures run beside `nsed batch`, and the host that
// test/peers/promptfoo.test.ts runs nsed's promptfoo provider in: a dev dependency of the bench
// and the tests only. Its package.json and lockfile live in bench/promptfoo/; it is installed from
// them as peer-install.mjs says (promptfoo alone is 75,000 files), outside the checkout.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePeers } from './peer-install.mjs';
import { baseEnv } from './proc.mjs';

const SOURCE = fileURLToPath(new URL('../promptfoo/', import.meta.url));
// The discard port: nothing listens on it here, so a connection to it is refused at once.
const DEAD_END = 'http://127.0.0.1:9';
const MAIN = path.join('node_modules', 'promptfoo', 'dist', 'src', 'main.js');

/** The version the lockfile pins, for the figure's name. */
export async function promptfooVersion() {
  const pkg = JSON.parse(await readFile(path.join(SOURCE, 'package.json'), 'utf8'));
  return pkg.dependencies.promptfoo;
}

/**
 * promptfoo's CLI entry and the Node to run it with (peer-install.mjs), installed with `npm ci`
 * first when it is missing (a few minutes, once).
 */
export async function ensurePromptfoo(log) {
  const { node, dir } = await ensurePeers({
    source: SOURCE,
    name: 'promptfoo',
    packages: ['promptfoo'],
    main: MAIN,
    log,
  });
  return { node, main: path.join(dir, MAIN) };
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
