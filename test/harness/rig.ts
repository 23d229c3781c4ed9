// One simulator and one temp store per test file (or test), and the CLI run against both:
// in-process by default, as a real process where only a process shows the behaviour.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { startSim, type SimOptions, type SimServer } from '../../src/sim/server.js';
import { startCli, type CliOptions, type CliResult, type CliRun } from './cli.js';
import { spawnCli, type CliProcess, type RunOptions, type RunResult } from './process.js';

export interface Rig {
  sim: SimServer;
  home: string;
  /** NSED_HOME, NSED_URL and NO_COLOR: what both kinds of run see. */
  env: Record<string, string>;
  /** Runs `nsed <args>` in-process to its end. */
  run(args: string[], opts?: CliOptions): Promise<CliResult>;
  /** Starts `nsed <args>` in-process; the test watches its output and may interrupt it. */
  start(args: string[], opts?: CliOptions): CliRun;
  /** Runs `nsed <args>` as a real process to its end. */
  runProcess(args: string[], opts?: RunOptions): Promise<RunResult>;
  /** Starts `nsed <args>` as a real process. */
  spawn(args: string[], opts?: RunOptions): CliProcess;
  /** The saved session file, parsed. */
  session<T = Record<string, unknown>>(id: string): Promise<T>;
  close(): Promise<void>;
}

/** A simulator on a random loopback port (fast phases unless told otherwise) and an empty store. */
export async function makeRig(simOpts: SimOptions = {}): Promise<Rig> {
  const sim = await startSim({ host: '127.0.0.1', port: 0, roundMs: 3, keepaliveMs: 15_000, ...simOpts });
  const home = await mkdtemp(join(tmpdir(), 'nsed-rig-'));
  const env: Record<string, string> = { NSED_HOME: home, NSED_URL: sim.url, NO_COLOR: '1' };
  const inProcess = (opts: CliOptions = {}): CliOptions => ({ ...opts, env: { ...env, ...opts.env } });
  const rig: Rig = {
    sim,
    home,
    env,
    run: (args, opts) => startCli(args, inProcess(opts)).result,
    start: (args, opts) => startCli(args, inProcess(opts)),
    runProcess: (args, opts) => rig.spawn(args, opts).result,
    spawn: (args, opts = {}) => spawnCli(args, { ...opts, env: { ...env, ...opts.env } }),
    session: async <T>(id: string) => JSON.parse(await readFile(join(home, 'sessions', `${id}.json`), 'utf8')) as T,
    close: async () => {
      await sim.close();
      await rm(home, { recursive: true, force: true });
    },
  };
  return rig;
}

export { parseNdjson } from './ndjson.js';
export { CLI, spawnCli, waitForOutput, type RunResult } from './process.js';
export { instantClock, runCliInProcess, type CliResult, type CliRun } from './cli.js';

/**
 * A rig for the current test, closed when it finishes, however it ends (the test's own hook: with
 * isolate: false a module-level afterEach would belong to the first importing file only).
 */
export async function testRig(simOpts: SimOptions = {}): Promise<Rig> {
  const rig = await makeRig(simOpts);
  onTestFinished(() => rig.close());
  return rig;
}

/** A rig of its own for one test (a held, strict or quick simulator), closed however the test ends. */
export async function withRig<T>(simOpts: SimOptions, use: (rig: Rig) => Promise<T>): Promise<T> {
  const rig = await makeRig(simOpts);
  try {
    return await use(rig);
  } finally {
    await rig.close();
  }
}

/**
 * The rig of a test file or describe block: made in its beforeAll, closed in its afterAll (after
 * the block's own afterAll hooks, which vitest runs in reverse order). Call it where the block's
 * hooks are declared; the value it returns stands for the rig from the first test on, and reading
 * it earlier (at collection time) throws instead of handing out a rig that does not exist yet.
 */
export function useRig(simOpts: SimOptions = {}): Rig {
  let current: Rig | undefined;
  beforeAll(async () => {
    current = await makeRig(simOpts);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  // A proxy rather than a copy of Rig's members: a member added to Rig needs nothing here.
  return new Proxy({} as Rig, {
    get(_target, key) {
      if (current === undefined) throw new Error('useRig: the rig exists from beforeAll to afterAll');
      return Reflect.get(current, key) as unknown;
    },
  });
}
