// The Action's main step (action/run.mjs) run as its step runs it: the inputs as INPUT_*
// variables, the token as one of them, the runner's GITHUB_OUTPUT, RUNNER_TEMP and workspace, and
// this run's build of nsed beside it. An input's value is that input's and nothing else: a numeric
// input holding `--url=http://elsewhere` is refused before any request, so the bearer token never
// goes there; every input reaches nsed as one `--flag=value` word, so a string input that starts
// with '-' is that flag's value, never a flag of its own.
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, DIST, runScript } from '../harness/process.js';
import { useRig } from '../harness/rig.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TOKEN = 'sk-nsed-input-canary-41c7';
const rig = useRig();

let dir: string;
let elsewhere: { url: string; seen: IncomingHttpHeaders[]; server: Server };

beforeAll(async () => {
  // The action's checkout as `uses:` fetches it and its Build step leaves it: action/, bin/, dist/.
  dir = await mkdtemp(join(tmpdir(), 'nsed-action-inputs-'));
  await cp(join(ROOT, 'action'), join(dir, 'action'), { recursive: true });
  await copyFile(join(ROOT, 'package.json'), join(dir, 'package.json'));
  await symlink(dirname(CLI), join(dir, 'bin'), 'dir');
  await symlink(DIST, join(dir, 'dist'), 'dir');
  // Another server, where an input that became `--url` would send the token.
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  elsewhere = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => elsewhere?.server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

interface StepResult {
  code: number | null;
  log: string;
  outputs: string;
  workspace: string;
}

/** action/run.mjs with these inputs, in a fresh workspace and RUNNER_TEMP, as the nsed step runs it. */
async function runStep(name: string, inputs: Record<string, string>): Promise<StepResult> {
  const workspace = join(dir, name, 'workspace');
  const temp = join(dir, name, 'temp');
  await mkdir(workspace, { recursive: true });
  await mkdir(temp, { recursive: true });
  await writeFile(join(workspace, '--notes.md'), 'The retry count went from 3 to 0.\n');
  await writeFile(join(workspace, 'items.jsonl'), '{"id":"cache","prompt":"Design a cache"}\n');
  const outputs = join(temp, 'set_output');
  await writeFile(outputs, '');
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: outputs,
    GITHUB_RUN_ID: '77',
    GITHUB_JOB: 'council',
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: temp,
    NSED_ACTION_STEP: name,
    INPUT_URL: rig.sim.url,
    INPUT_TOKEN: TOKEN,
    INPUT_JUNIT: 'nsed-junit.xml',
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.replaceAll('-', '_').toUpperCase()}`] = v;
  const { code, log } = await runScript(join(dir, 'action', 'run.mjs'), { env, cwd: workspace });
  return { code, log, outputs: await readFile(outputs, 'utf8'), workspace };
}

describe("the Action's inputs", () => {
  const NUMERIC = {
    rounds: 'a whole number',
    'max-tokens': 'a whole number',
    jobs: 'a whole number',
    'max-cost': 'a number',
    timeout: 'a number',
  };

  for (const [name, form] of Object.entries(NUMERIC)) {
    it(`refuses a ${name} that is no number, --url=… included, before any request: the token goes nowhere`, async () => {
      const ask: Record<string, string> =
        name === 'jobs' ? { batch: 'items.jsonl', policy: 'fast' } : { prompt: 'Is this safe?', policy: 'fast' };
      const html = join(dir, `${name}.html`);
      const before = rig.sim.requests.length;
      const r = await runStep(`bad-${name}`, {
        ...ask,
        [name]: `--url=${elsewhere.url}`,
        args: `--html=${html}`,
      });
      expect(r.code).toBe(2);
      expect(r.log).toBe(
        `::error title=nsed action::the ${name} input must be ${form}, e.g. ${form === 'a number' ? '0.5' : '3'}\n`,
      );
      expect(elsewhere.seen).toEqual([]);
      expect(rig.sim.requests.length).toBe(before);
      // Nothing ran: no step output, no report.
      expect(r.outputs).toBe('');
      await expect(readFile(html, 'utf8')).rejects.toThrow(/ENOENT/);
    });
  }

  it("reach nsed as --flag=value: numbers as the flags read them, a string starting with - as its flag's value", async () => {
    const r = await runStep('good', {
      prompt: 'Is this retry change safe?',
      policy: 'fast',
      'max-cost': '5',
      'max-tokens': '900000',
      timeout: '300',
      files: '--notes.md',
      'junit-name': `--url=${elsewhere.url}`,
    });
    expect(r.code, r.log).toBe(0);
    expect(elsewhere.seen).toEqual([]);
    const junit = await readFile(join(r.workspace, 'nsed-junit.xml'), 'utf8');
    expect(junit).toContain(`<testsuite name="--url=${elsewhere.url}"`);
    // The file named `--notes.md` was read as context and sent with the question.
    const sent = rig.sim.requests.filter((q) => q.method === 'POST').map((q) => JSON.stringify(q.body));
    expect(sent.some((b) => b.includes('The retry count went from 3 to 0.'))).toBe(true);
    expect(r.outputs).toContain('exit-code<<');
    expect(r.log).not.toContain(TOKEN);
  });
});
