/**
 * Runs every fenced `sh` example of README.md, in order, in one scratch directory and one store,
 * each block as its own `bash -e -o pipefail` script with `nsed` on PATH (a wrapper around the
 * built CLI) and NSED_URL / NSED_HOME set. The Quick start's `npm ci && npx nsed ...` runs as
 * `nsed ...`; its `npm test` line is the suite itself and is skipped.
 *
 * An HTML comment right before a block tunes how it runs (invisible when rendered):
 *   <!-- test: sim=slow background wait-for="round 1/" exit=9 -->
 *   sim=slow      NSED_URL points at a simulator with 500 ms phases (default: 5 ms), for
 *                 examples that act on a deliberation while it runs
 *   background    start the block and go on once its output shows `wait-for`; it must end,
 *                 with its expected exit code, by the end of the next block
 *   exit=N        the exit code the block must end with (default 0)
 *   expect="text" its output must contain this text
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { CLI } from '../e2e/harness.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

interface Example {
  line: number;
  section: string;
  script: string;
  sim: 'fast' | 'slow';
  background: boolean;
  waitFor: string | undefined;
  exit: number;
  expect: string | undefined;
}

function parseOptions(comment: string): Record<string, string> {
  const opts: Record<string, string> = {};
  for (const m of comment.matchAll(/([a-z-]+)(?:=(?:"([^"]*)"|(\S+)))?/g)) opts[m[1] ?? ''] = m[2] ?? m[3] ?? 'true';
  return opts;
}

function extractExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const out: Example[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('## ')) section = line.slice(3);
    if (line.trim() !== '```sh') continue;
    const end = lines.findIndex((l, k) => k > i && l.trim() === '```');
    if (end === -1) throw new Error(`unclosed sh block at README.md:${i + 1}`);
    let body = lines.slice(i + 1, end);
    if (section === 'Quick start') {
      body = body.filter((l) => l.trim() !== 'npm test').map((l) => l.replace(/^npm ci && npx nsed /, 'nsed '));
    }
    let k = i - 1;
    while (k >= 0 && (lines[k] ?? '').trim() === '') k--;
    const marker = /^<!-- test:(.*)-->$/.exec((lines[k] ?? '').trim());
    const opts = marker === null ? {} : parseOptions(marker[1] ?? '');
    out.push({
      line: i + 1,
      section,
      script: body.join('\n'),
      sim: opts['sim'] === 'slow' ? 'slow' : 'fast',
      background: opts['background'] === 'true',
      waitFor: opts['wait-for'],
      exit: opts['exit'] === undefined ? 0 : Number(opts['exit']),
      expect: opts['expect'],
    });
    i = end;
  }
  return out;
}

interface Running {
  example: Example;
  output: () => string;
  done: Promise<number | null>;
}

const examples = extractExamples(await readFile(README, 'utf8'));
let root: string;
let fast: SimServer;
let slow: SimServer;
let env: Record<string, string>;
let background: Running | undefined;

function start(example: Example): Running {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', example.script], {
    cwd: path.join(root, 'work'),
    env: { ...env, NSED_URL: example.sim === 'slow' ? slow.url : fast.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const done = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { example, output: () => output, done };
}

async function expectExit(run: Running): Promise<void> {
  const code = await run.done;
  const where = `README.md:${run.example.line}\n${run.example.script}\n--- output ---\n${run.output().slice(-3000)}`;
  expect(code, where).toBe(run.example.exit);
  if (run.example.expect !== undefined) expect(run.output(), where).toContain(run.example.expect);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'nsed-readme-'));
  for (const dir of ['bin', 'home', 'work', 'store']) await mkdir(path.join(root, dir));
  const wrapper = path.join(root, 'bin', 'nsed');
  await writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(wrapper, 0o755);
  [fast, slow] = await Promise.all([startSim({ port: 0, roundMs: 5 }), startSim({ port: 0, roundMs: 500 })]);
  env = {
    PATH: `${path.join(root, 'bin')}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    HOME: path.join(root, 'home'),
    NSED_HOME: path.join(root, 'store'),
    NSED_SIM_ROUND_MS: '5',
    NO_COLOR: '1',
    LANG: process.env['LANG'] ?? 'C.UTF-8',
  };
});

afterAll(async () => {
  await Promise.all([fast?.close(), slow?.close()]);
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

describe('README.md examples', () => {
  it('has examples in every task section, and the quick start runs without npm', () => {
    const sections = new Set(examples.map((e) => e.section));
    for (const s of ['Quick start', 'One-shot questions in scripts', 'Conversations: continue, fork, resume', 'A second terminal: inject and cancel', 'CI', 'The simulator']) {
      expect(sections, s).toContain(s);
    }
    expect(examples[0]?.script).toBe('nsed ask --sim "Design a cache for a read-heavy API"');
  });

  for (const example of examples) {
    const first = example.script.split('\n').find((l) => !l.startsWith('#')) ?? '';
    it(`README.md:${example.line} (${example.section}) runs: ${first.slice(0, 70)}`, async () => {
      const run = start(example);
      if (example.background) {
        const waitFor = example.waitFor ?? '';
        const deadline = Date.now() + 20_000;
        while (!run.output().includes(waitFor)) {
          if (Date.now() > deadline) throw new Error(`README.md:${example.line} never printed '${waitFor}':\n${run.output()}`);
          const ended = await Promise.race([run.done.then(() => true), new Promise((r) => setTimeout(() => r(false), 50))]);
          if (ended && !run.output().includes(waitFor)) throw new Error(`README.md:${example.line} ended before '${waitFor}':\n${run.output()}`);
        }
        background = run;
        return;
      }
      await expectExit(run);
      const waiting = background;
      background = undefined;
      if (waiting !== undefined) await expectExit(waiting);
    }, 30_000);
  }
});
