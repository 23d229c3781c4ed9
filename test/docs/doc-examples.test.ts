/**
 * Runs every fenced `sh` example of the manual: README.md and every docs/*.md (found by glob, so a
 * new page is run without naming it here). Each file runs in a scratch directory and a store of
 * its own, against simulators of its own, its blocks in order; each block is its own
 * `bash -e -o pipefail` script with `nsed` on PATH (a wrapper around the built CLI) and NSED_URL /
 * NSED_HOME set, so an example reaches an orchestrator as the README says a reader's does. The
 * Quick start's `npm ci && npx nsed ...` runs as `nsed ...`; its `npm test` line is the suite
 * itself and is skipped.
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
 *
 * The files run one after another: each example is a few processes already, and two files at
 * once on a small machine would only trade a shorter run for time-outs that are not the docs'.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { WAIT_MS } from '../harness/limits.js';
import { CLI } from '../harness/rig.js';
import { fencedBlocks, manualFiles, readManual } from './manual.js';

interface Example {
  /** Where it is written, as `docs/ci.md:120`. */
  where: string;
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

function extractExamples(file: string, markdown: string): Example[] {
  const lines = markdown.split('\n');
  return fencedBlocks(markdown)
    .filter((b) => b.lang === 'sh')
    .map((b) => {
      const i = b.line - 1;
      const heading = lines
        .slice(0, i)
        .reverse()
        .find((l) => l.startsWith('## '));
      const section = heading?.slice(3) ?? '';
      let body = b.lines;
      if (file === 'README.md' && section === 'Quick start') {
        body = body.filter((l) => l.trim() !== 'npm test').map((l) => l.replace(/^npm ci && npx nsed /, 'nsed '));
      }
      let k = i - 1;
      while (k >= 0 && (lines[k] ?? '').trim() === '') k--;
      const marker = /^<!-- test:(.*)-->$/.exec((lines[k] ?? '').trim());
      const opts = marker === null ? {} : parseOptions(marker[1] ?? '');
      return {
        where: `${file}:${b.line}`,
        section,
        script: body.join('\n'),
        sim: opts['sim'] === 'held' ? 'held' : 'fast',
        releaseOn: opts['release-on'],
        background: opts['background'] === 'true',
        waitFor: opts['wait-for'],
        exit: opts['exit'] === undefined ? 0 : Number(opts['exit']),
        expect: opts['expect'],
      };
    });
}

interface Running {
  example: Example;
  output: () => string;
  /** Resolves once the output contains `text`, or with false once the block ended without it. */
  shows: (text: string) => Promise<boolean>;
  done: Promise<number | null>;
}

/** One file's world: its scratch directory and store, and the simulators its examples reach. */
interface Scratch {
  root: string;
  fast: SimServer;
  held: SimServer;
  env: Record<string, string>;
}

async function openScratch(): Promise<Scratch> {
  const root = await mkdtemp(path.join(tmpdir(), 'nsed-doc-'));
  for (const dir of ['bin', 'home', 'work', 'store']) await mkdir(path.join(root, dir));
  const wrapper = path.join(root, 'bin', 'nsed');
  await writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(wrapper, 0o755);
  const [fast, held] = await Promise.all([
    startSim({ port: 0, roundMs: 5 }),
    startSim({ port: 0, roundMs: 5, hold: true }),
  ]);
  held.control.on('job', (id) => {
    // The first round is scored (text mode shows 'round 1/'), then the job waits until an
    // injection reaches it, a release-on text shows, or it is cancelled.
    held.control.release(id, 2);
    void held.control.injected(id).then(() => held.control.release(id));
  });
  const env = {
    PATH: `${path.join(root, 'bin')}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    HOME: path.join(root, 'home'),
    NSED_HOME: path.join(root, 'store'),
    NSED_SIM_ROUND_MS: '5',
    NO_COLOR: '1',
    LANG: process.env['LANG'] ?? 'C.UTF-8',
  };
  return { root, fast, held, env };
}

async function closeScratch(scratch: Scratch | undefined): Promise<void> {
  if (scratch === undefined) return;
  await Promise.all([scratch.fast.close(), scratch.held.close()]);
  await rm(scratch.root, { recursive: true, force: true });
}

/** Lets every held deliberation run to its end. */
function releaseHeld(held: SimServer): void {
  for (const job of held.control.jobs()) if (!job.ended) held.control.release(job.jobId);
}

function start(scratch: Scratch, example: Example): Running {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', example.script], {
    cwd: path.join(scratch.root, 'work'),
    env: { ...scratch.env, NSED_URL: example.sim === 'held' ? scratch.held.url : scratch.fast.url },
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
    void shows(example.releaseOn).then((seen) => seen && releaseHeld(scratch.held));
  }
  return { example, output: () => output, shows, done };
}

async function expectExit(run: Running): Promise<void> {
  const code = await run.done;
  const where = `${run.example.where}\n${run.example.script}\n--- output ---\n${run.output().slice(-3000)}`;
  expect(code, where).toBe(run.example.exit);
  if (run.example.expect !== undefined) expect(run.output(), where).toContain(run.example.expect);
}

const manual = manualFiles().map((file) => ({ file, examples: extractExamples(file, readManual(file)) }));

describe('the manual has examples where a reader looks for them', () => {
  it('README: the quick start runs without npm, and scripts, the second terminal and CI each show one', () => {
    const readme = manual.find((m) => m.file === 'README.md')?.examples ?? [];
    expect(readme[0]?.script).toBe('nsed ask --sim "Design a cache for a read-heavy API"');
    const sections = new Set(readme.map((e) => e.section));
    for (const s of ['Quick start', 'Scripts', 'A second terminal', 'CI']) expect(sections, s).toContain(s);
  });

  it('docs/: every task page has examples in its task sections', () => {
    const want: Record<string, string[]> = {
      'docs/usage.md': [
        'One-shot questions in scripts',
        'Conversations: continue, fork, resume',
        'A second terminal: watch, inject and cancel',
      ],
      'docs/ci.md': ['Reports and logs, step by step', "Gates on the council's verdict", '`nsed sim` in a pipeline'],
      'docs/simulator.md': ['Faults'],
      'docs/reference.md': ['Exit codes'],
    };
    for (const [file, sections] of Object.entries(want)) {
      const found = new Set(manual.find((m) => m.file === file)?.examples.map((e) => e.section));
      for (const s of sections) expect(found, `${file}: ${s}`).toContain(s);
    }
  });
});

for (const { file, examples } of manual.filter((m) => m.examples.length > 0)) {
  describe(`${file} examples`, () => {
    let scratch: Scratch | undefined;
    let background: Running | undefined;

    beforeAll(async () => {
      scratch = await openScratch();
    });

    afterAll(async () => {
      await closeScratch(scratch);
    });

    for (const example of examples) {
      const first = example.script.split('\n').find((l) => !l.startsWith('#')) ?? '';
      it(`${example.where} (${example.section}) runs: ${first.slice(0, 70)}`, async () => {
        if (scratch === undefined) throw new Error('no scratch directory');
        const run = start(scratch, example);
        if (example.background) {
          const waitFor = example.waitFor ?? '';
          if (!(await run.shows(waitFor)))
            throw new Error(`${example.where} ended before '${waitFor}':\n${run.output()}`);
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
}
