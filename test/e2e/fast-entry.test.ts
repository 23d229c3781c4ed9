// bin/nsed.cjs runs plain `sessions ls`, `sessions show`, `--help` and `ask` from dist/fast.cjs,
// dist/help.cjs and dist/ask.cjs instead of the full CLI. Whatever it takes that path for must
// print byte for byte what the full CLI prints and exit with the same code. Each case here runs through the real
// bin as a process (the fast path) and through runCli in-process with one more word the prescan
// does not read, `--sim=false` (the default), so that yargs parses it (the full path), on the same
// stores: missing, empty, and one with every state, a fork, titles that need sanitising, a file
// that is no JSON and a symbolic link. The bin's dist/main.js is a stand-in that says it ran, so
// a case the fast entries wrongly declined cannot pass.
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP_WIDTH } from '../../src/cli/help-width.js';
import { prescan } from '../../src/cli/prescan.js';
import { FAST_ENTRIES } from '../../src/cli/run-cli.js';
import { openFileStore } from '../../src/session/file-store.js';
import { startSim } from '../../src/sim/server.js';
import type { Session, Turn } from '../../src/session/model.js';
import { runCliInProcess } from '../harness/cli.js';
import { WAIT_MS } from '../harness/limits.js';
import { CLI, DIST } from '../harness/process.js';
import { session, turn } from '../harness/temp-store.js';

const ROOT = join(__dirname, '..', '..');
const FULL_CLI_RAN = '[the full CLI ran]';

let tmp: string;
let bin: string;
let full: string;
let empty: string;
let missing: string;
let noConfig: string;
let brokenConfig: string;
let unknownKeyConfig: string;
const BIG = '20260105-0000000b';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real bin, beside the fast entries this test run built and a stand-in for dist/main.js. */
function runBin(args: string[], env: Record<string, string>): Promise<Result> {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

const reply = (id: string, over: Partial<Turn> = {}): Turn =>
  turn(id, { role: 'assistant', content: `answer ${id}`, policy_id: 'nsed:deep', job_id: `job-${id}`, ...over });

function at(n: number): string {
  return `2026-01-0${n}T10:00:00.000Z`;
}

async function fillStore(home: string): Promise<void> {
  const store = openFileStore(home);
  const make = (id: string, n: number, over: Partial<Session>): Promise<void> =>
    store.create(session(id, { created: at(n), updated: at(n), ...over }));
  await make('20260101-0000000a', 1, { turns: [turn('t1'), reply('t2')] });
  await make('20260102-0000000a', 2, {
    title: 'cut short',
    turns: [turn('t1'), reply('t2', { status: 'interrupted', error: 'the stream dropped' })],
  });
  await make('20260103-0000000a', 3, {
    title: 'still running',
    turns: [turn('t1')],
    pending_job: { job_id: 'job-9', turn: 't1', path: 'compat', policy: 'nsed:deep', started: at(3) },
  });
  await make('20260104-0000000a', 4, { title: 'failed one', turns: [turn('t1'), reply('t2', { status: 'failed' })] });
  await make('20260104-0000000c', 4, {
    title: 'cancelled one',
    turns: [turn('t1'), reply('t2', { status: 'cancelled' })],
  });
  await make('20260104-0000000d', 4, {
    title: 'Ünïcode ✓ \u001b[31mred\u001b[0m and a\nnewline',
    active_policy: 'nsed:fast',
    forked_from: { session: '20260101-0000000a', turn: 't2' },
    turns: [turn('t1'), reply('t2', { content: 'Ünïcode answer ✓\n\nwith \u001b[1mescapes\u001b[0m' })],
  });
  // One answer larger than any pipe holds, for a reader that leaves early.
  await make(BIG, 5, { title: 'a long answer', turns: [turn('t1'), reply('t2', { content: 'x'.repeat(1_500_000) })] });
  const dir = join(home, 'sessions');
  await writeFile(join(dir, '20260106-0badf00d.json'), '{ not json', { mode: 0o600 });
  await symlink(join(dir, '20260101-0000000a.json'), join(dir, '20260107-11111111.json'));
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'nsed-fast-'));
  const built = DIST;
  await mkdir(join(tmp, 'bin'));
  await mkdir(join(tmp, 'dist'));
  bin = join(tmp, 'bin', 'nsed.cjs');
  await copyFile(join(ROOT, 'bin', 'nsed.cjs'), bin);
  await copyFile(join(ROOT, 'package.json'), join(tmp, 'package.json'));
  // The entries and their code caches (scripts/code-cache.cjs), as the build leaves them.
  for (const file of await readdir(built)) {
    if (/\.(cjs|v8cache)$/.test(file)) await symlink(join(built, file), join(tmp, 'dist', file));
  }
  await writeFile(
    join(tmp, 'dist', 'main.js'),
    `process.stderr.write(${JSON.stringify(`${FULL_CLI_RAN}\n`)}); process.exitCode = 99;\n`,
  );
  full = join(tmp, 'full');
  empty = join(tmp, 'empty');
  missing = join(tmp, 'missing');
  await fillStore(full);
  await mkdir(join(empty, 'sessions'), { recursive: true });
  noConfig = join(tmp, 'no-config.json');
  brokenConfig = join(tmp, 'broken.json');
  unknownKeyConfig = join(tmp, 'unknown-key.json');
  await writeFile(brokenConfig, '{ "output": ');
  await writeFile(unknownKeyConfig, '{ "output": "json", "colour": false }');
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Both paths on the same store; the fast one must have run and printed the same. */
async function same(args: string[], home: string, config = noConfig): Promise<Result> {
  const env = { NSED_HOME: home, NSED_CONFIG: config, NO_COLOR: '1' };
  const viaYargs = [...args, '--sim=false'];
  expect(prescan(viaYargs, FAST_ENTRIES), viaYargs.join(' ')).toBeUndefined();
  // A pipe has no columns, which runCli reads as HELP_WIDTH (test/cli/stored-help.test.ts).
  const reference = await runCliInProcess(viaYargs, { env, columns: HELP_WIDTH });
  const fast = await runBin(args, { ...env, PATH: process.env['PATH'] ?? '' });
  expect(fast.stderr, args.join(' ')).not.toContain(FULL_CLI_RAN);
  expect(fast, args.join(' ')).toEqual({ code: reference.code, stdout: reference.stdout, stderr: reference.stderr });
  return fast;
}

describe('the fast entries print what the full CLI prints', () => {
  it('sessions ls in every shape the prescan reads, on a store with every state and two unreadable files', async () => {
    const shapes = [
      ['sessions', 'ls'],
      ['sessions', 'list'],
      ['sessions', 'ls', '--json'],
      ['sessions', 'ls', '--ids'],
      ['sessions', 'ls', '-n', '2'],
      ['sessions', 'ls', '--limit=3', '--json'],
      ['sessions', 'ls', '--state', 'running'],
      ['sessions', 'ls', '--state=interrupted', '--ids'],
      ['sessions', 'ls', '--state', 'ok', '-o', 'json'],
      ['sessions', 'ls', '-p', 'fast'],
      ['sessions', 'ls', '--policy', 'nsed:deep', '-n', '1'],
      ['sessions', 'ls', '-o', 'ndjson'],
      ['sessions', 'ls', '-q', '--no-color'],
    ];
    const seen: Result[] = [];
    for (const args of shapes) seen.push(await same(args, full));
    // The cases say something: sessions listed, warnings about the two files, an error.
    expect(seen[0]?.stdout).toContain('20260104-0000000d');
    expect(seen[0]?.stderr).toContain('20260106-0badf00d.json');
    expect(seen[0]?.stderr).toContain('symbolic link');
    expect(seen[3]?.stdout.split('\n').filter(Boolean)).toHaveLength(7);
    expect(seen[6]?.stdout).toContain('20260103-0000000a');
  });

  it('sessions ls on a missing store, an empty one, another --home, and with config files', async () => {
    const missingLs = await same(['sessions', 'ls'], missing);
    expect(missingLs).toEqual({ code: 0, stdout: '', stderr: '' });
    await same(['sessions', 'ls', '--json'], missing);
    await same(['sessions', 'ls', '--ids'], empty);
    await same(['sessions', 'ls', '-o', 'ndjson'], empty);
    await same(['sessions', 'ls', '--home', full, '--ids'], missing);
    const broken = await same(['sessions', 'ls'], full, brokenConfig);
    expect(broken.code).toBe(8);
    const unknown = await same(['sessions', 'ls'], full, unknownKeyConfig);
    expect(unknown.stderr).toContain('colour');
    expect(unknown.stdout.startsWith('[')).toBe(true);
  });

  it('sessions show by id, prefix and --last, in every output, and its errors', async () => {
    const shapes: Array<[string[], string]> = [
      [['sessions', 'show', '20260101-0000000a'], full],
      [['sessions', 'show', '20260104-0000000d'], full],
      [['sessions', 'show', '20260104-0000000d', '--json'], full],
      [['sessions', 'show', '20260104-0000000d', '-o', 'final'], full],
      [['sessions', 'show', '20260104-0000000d', '-o', 'ndjson'], full],
      [['sessions', 'show', '--rounds', '20260102-0000000a'], full],
      [['sessions', 'show', '20260103'], full],
      [['sessions', 'show', '20260103-0000000a', '-o', 'final'], full],
      [['sessions', 'show', '--last', '-q'], full],
      [['sessions', 'show', '2026010'], full],
      [['sessions', 'show', 'nope'], full],
      [['sessions', 'show', '20260106-0badf00d'], full],
      [['sessions', 'show', '20260101-0000000a', '--last'], full],
      [['sessions', 'show', '20260101-0000000a', '--json', '-o', 'final'], full],
      [['sessions', 'show'], full],
      [['sessions', 'show', '--last'], missing],
      [['sessions', 'show', '--last'], empty],
    ];
    const codes: Array<number | null> = [];
    for (const [args, home] of shapes) codes.push((await same(args, home)).code);
    expect(codes).toEqual([0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 3, 8, 2, 2, 2, 3, 3]);
  });

  it('help for the top level and a command, subcommand and alias, with --help and -h', async () => {
    for (const args of [
      ['--help'],
      ['-h'],
      ['ask', '--help'],
      ['sessions', 'ls', '-h'],
      ['sessions', 'list', '--help'],
    ]) {
      const r = await same(args, missing, brokenConfig);
      expect(r.stdout).toContain('nsed ');
    }
  });
});

describe('a one-shot ask through dist/ask.cjs', () => {
  it('prints what the full CLI prints, exits with its code and records the session', async () => {
    const sim = await startSim({ host: '127.0.0.1', port: 0, roundMs: 3, keepaliveMs: 15_000 });
    try {
      const shapes = [
        ['ask', '-q', '-o', 'final', '--url', sim.url, 'What is 6 times 7?'],
        ['ask', '-q', '-p', 'fast', '--url', sim.url, '--title', 'six', 'What is', '6 times 7?'],
        ['ask', '-o', 'final', '--no-save', '--url', sim.url, '--', '-x', 'is a flag?'],
        ['ask', '-q', '-o', 'final', '--url', sim.url, '--rounds', '101', 'q'],
        ['ask', '-q', '-o', 'ndjson', '--url', sim.url, '--agents', 'OnlyOne', 'q'],
        ['ask', '-q', '-o', 'final', '--url', 'http://127.0.0.1:1', 'q'],
      ];
      for (const [i, args] of shapes.entries()) {
        const homes = [join(tmp, `ask-fast-${i}`), join(tmp, `ask-full-${i}`)];
        const env = (home: string) => ({ NSED_HOME: home, NSED_CONFIG: noConfig, NO_COLOR: '1' });
        // Before the words: after `--` it would be one of them.
        const viaYargs = ['ask', '--sim=false', ...args.slice(1)];
        expect(prescan(viaYargs, FAST_ENTRIES), viaYargs.join(' ')).toBeUndefined();
        const reference = await runCliInProcess(viaYargs, { env: env(homes[1] ?? '') });
        const fast = await runBin(args, { ...env(homes[0] ?? ''), PATH: process.env['PATH'] ?? '' });
        expect(fast.stderr, args.join(' ')).not.toContain(FULL_CLI_RAN);
        expect(fast, args.join(' ')).toEqual({
          code: reference.code,
          stdout: reference.stdout,
          stderr: reference.stderr,
        });
        const saved = await Promise.all(homes.map((h) => readdir(join(h, 'sessions')).catch(() => [])));
        expect(saved[0]?.length, args.join(' ')).toBe(saved[1]?.length);
      }
      expect((await readdir(join(tmp, 'ask-fast-0', 'sessions'))).filter((n) => n.endsWith('.json'))).toHaveLength(1);
      // One bundle, and still only what an ask uses: neither node:http2 nor node:crypto (test/e2e/ask-cost.test.ts
      // holds the full CLI to the same).
      const spy = `process.on('exit', () => process.stderr.write('[modules ' + process.moduleLoadList.join(',') + ']\\n'));`;
      const r = await runBin(shapes[0] ?? [], {
        NSED_HOME: join(tmp, 'ask-modules'),
        NSED_CONFIG: noConfig,
        NODE_OPTIONS: `--import=data:text/javascript;base64,${Buffer.from(spy).toString('base64')}`,
      });
      const modules = /\[modules ([^\]]*)\]/.exec(r.stderr)?.[1]?.split(',') ?? [];
      expect(modules).toContain('NativeModule net');
      expect(modules.filter((m) => m.includes('http2'))).toEqual([]);
      if (process.platform !== 'win32') expect(modules).not.toContain('NativeModule crypto');
    } finally {
      await sim.close();
    }
  });
});

describe('the fast entries decline what they do not run', () => {
  it('hands any other shape to the full CLI', async () => {
    const env = { NSED_HOME: full, NSED_CONFIG: noConfig, NO_COLOR: '1' };
    for (const args of [
      ['sessions', 'export', '20260101-0000000a'],
      ['sessions', 'ls', '--color=true'],
      ['sessions', 'ls', '--limit', '0'],
      ['sessions', 'ls', 'extra'],
      ['sessions', 'show', 'a', 'b'],
      ['sessions'],
      ['--help', '--json'],
      ['no-such-command', '--help'],
      ['ask', 'q', '--sim=false'],
      ['ask', '-p', 'fast', '-m', 'gpt', 'q'],
      ['ask', 'why', 'help'],
      ['continue', 'q'],
    ]) {
      const r = await runBin(args, env);
      expect({ code: r.code, stderr: r.stderr }, args.join(' ')).toEqual({ code: 99, stderr: `${FULL_CLI_RAN}\n` });
    }
  });
});

describe('the code cache of the fast entries (Node < 22.1)', () => {
  it('is there for each entry, named by the build on its first line, and V8 takes it in a plain node', async () => {
    const built = DIST;
    for (const file of ['fast.cjs', 'help.cjs', 'ask.cjs']) {
      const source = await readFile(join(built, file), 'utf8');
      const id = /^\/\/ nsed-build ([0-9a-f]+)\n/.exec(source)?.[1];
      expect(id, file).toBeDefined();
      const cache = join(built, file.replace(/\.cjs$/, `.${id ?? ''}.v8cache`));
      // The bin's own loading, in a process without flags, as a user's shell runs it.
      const check = `const fs = require('fs'), vm = require('vm');
const s = new vm.Script(fs.readFileSync(process.argv[1], 'utf8'), { filename: process.argv[1], cachedData: fs.readFileSync(process.argv[2]) });
process.stdout.write(String(s.cachedDataRejected));`;
      const r = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['-e', check, join(built, file), cache], { env: {} });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('close', () => resolve(out));
      });
      expect(r, file).toBe('false');
    }
  });

  it('holds what a one-shot ask compiled, not only what loading dist/ask.cjs compiled', async () => {
    const source = await readFile(join(DIST, 'ask.cjs'), 'utf8');
    const id = /^\/\/ nsed-build ([0-9a-f]+)\n/.exec(source)?.[1] ?? '';
    const shipped = (await readFile(join(DIST, `ask.${id}.v8cache`))).length;
    // The cache of the loaded, unrun bundle, made as the bin loads it, in a plain node.
    const unrun = `const fs = require('fs'), vm = require('vm');
const s = new vm.Script(fs.readFileSync(process.argv[1], 'utf8'), { filename: process.argv[1] });
process.stdout.write(String(s.createCachedData().length));`;
    const loaded = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', unrun, join(DIST, 'ask.cjs')], { env: {} });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('close', () => resolve(Number(out)));
    });
    expect(loaded).toBeGreaterThan(0);
    // The functions an ask runs (the store, the request, the stream, the renderers) are most of
    // the bundle's code: their compiled code more than doubles the cache.
    expect(shipped).toBeGreaterThan(2 * loaded);
  });
});

/**
 * Runs the bin at `script` and closes its stdout at the first byte, as `| head -c1` does. Every
 * listener is attached before anything is awaited: a child whose output and close came while the
 * test still waited on another one would otherwise never be seen ending.
 */
function leaveAtFirstByte(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<Omit<Result, 'stdout'>> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.once('data', () => child.stdout.destroy());
  const timer = setTimeout(() => child.kill('SIGKILL'), WAIT_MS);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('a reader that leaves early (reliability #69)', () => {
  it('ends sessions show quietly with exit 0 on both paths', async () => {
    const env = { NSED_HOME: full, NSED_CONFIG: noConfig, NO_COLOR: '1' };
    // One child at a time: the answer (1.5 MB) fills the pipe, so each is still writing when its
    // reader leaves, whatever the machine's load.
    expect(await leaveAtFirstByte(bin, ['sessions', 'show', BIG], env)).toEqual({ code: 0, stderr: '' });
    expect(await leaveAtFirstByte(CLI, ['sessions', 'show', BIG, '--sim=false'], env)).toEqual({ code: 0, stderr: '' });
  });
});
