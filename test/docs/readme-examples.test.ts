/**
 * Runs every fenced `sh` example of README.md, in order, in one scratch directory and one store,
 * each block as its own `bash -e -o pipefail` script with `nsed` on PATH (a wrapper around the
 * built CLI) and NSED_URL / NSED_HOME set. The Quick start's `npm ci && npx nsed ...` runs as
 * `nsed ...`; its `npm test` line is the suite itself and is skipped.
 *
 * An HTML comment right before a block tunes how it runs (invisible when rendered):
 *   <!-- test: sim=held background wait-for="round 1/" exit=9 -->
 *   sim=held      NSED_URL points at a simulator that holds each deliberation once its first
 *                 round is scored (default: one with 5 ms phases), for examples that act on a
 *                 deliberation while it runs. A held job runs on to its end once it accepts an
 *                 injection, or once the output shows `release-on`; cancel ends it anyway.
 *                 No example depends on how fast the machine is.
 *   release-on="text"  release the held jobs once the block's output shows this text
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
import { WAIT_MS } from '../harness/limits.js';
import { CLI } from '../harness/rig.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

interface Example {
  line: number;
  section: string;
  script: string;
  sim: 'fast' | 'held';
  releaseOn: string | undefined;
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
      sim: opts['sim'] === 'held' ? 'held' : 'fast',
      releaseOn: opts['release-on'],
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
  /** Resolves once the output contains `text`, or with false once the block ended without it. */
  shows: (text: string) => Promise<boolean>;
  done: Promise<number | null>;
}

const examples = extractExamples(await readFile(README, 'utf8'));
let root: string;
let fast: SimServer;
let held: SimServer;
let env: Record<string, string>;
let background: Running | undefined;

function start(example: Example): Running {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', example.script], {
    cwd: path.join(root, 'work'),
    env: { ...env, NSED_URL: example.sim === 'held' ? held.url : fast.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const onOutput = (d: Buffer): void => {
    output += d.toString();
    child.emit('output');
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  // A backstop against a hung example, not a speed limit.
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  const done = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  const shows = (text: string): Promise<boolean> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!output.includes(text)) return;
        child.off('output', check);
        resolve(true);
      };
      child.on('output', check);
      check();
      void done.then(() => resolve(output.includes(text)));
    });
  if (example.releaseOn !== undefined) {
    void shows(example.releaseOn).then((seen) => seen && releaseHeld());
  }
  return { example, output: () => output, shows, done };
}

/** Lets every held deliberation run to its end. */
function releaseHeld(): void {
  for (const job of held.control.jobs()) if (!job.ended) held.control.release(job.jobId);
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
  [fast, held] = await Promise.all([startSim({ port: 0, roundMs: 5 }), startSim({ port: 0, roundMs: 5, hold: true })]);
  held.control.on('job', (id) => {
    // The first round is scored (text mode shows 'round 1/'), then the job waits until an
    // injection reaches it, a release-on text shows, or it is cancelled.
    held.control.release(id, 2);
    void held.control.injected(id).then(() => held.control.release(id));
  });
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
  await Promise.all([fast?.close(), held?.close()]);
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

describe('README.md examples', () => {
  it('has examples in every task section, and the quick start runs without npm', () => {
    const sections = new Set(examples.map((e) => e.section));
    for (const s of [
      'Quick start',
      'One-shot questions in scripts',
      'Conversations: continue, fork, resume',
      'A second terminal: watch, inject and cancel',
      'CI',
      'The simulator',
    ]) {
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
        if (!(await run.shows(waitFor)))
          throw new Error(`README.md:${example.line} ended before '${waitFor}':\n${run.output()}`);
        background = run;
        return;
      }
      await expectExit(run);
      const waiting = background;
      background = undefined;
      if (waiting !== undefined) await expectExit(waiting);
    });
  }
});
