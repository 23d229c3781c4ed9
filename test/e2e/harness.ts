import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { startSim, type SimOptions, type SimServer } from '../../src/sim/server.js';

/** The CLI bundle this test run built (test/global-setup.ts). */
export const CLI = inject('cliMain');

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string | 'inherit-open';
  timeoutMs?: number;
}

/** A real simulator on a random loopback port and a real temp store, for one test file. */
export interface Rig {
  sim: SimServer;
  home: string;
  env: Record<string, string>;
  run(args: string[], opts?: RunOptions): Promise<RunResult>;
  spawn(args: string[], opts?: RunOptions): ChildProcess & { result: Promise<RunResult> };
  close(): Promise<void>;
}

export async function makeRig(simOpts: SimOptions = {}): Promise<Rig> {
  const sim = await startSim({ host: '127.0.0.1', port: 0, roundMs: 3, keepaliveMs: 15_000, ...simOpts });
  const home = await mkdtemp(join(tmpdir(), 'nsed-e2e-'));
  const env: Record<string, string> = { NSED_HOME: home, NSED_URL: sim.url, NO_COLOR: '1' };
  const rig: Rig = {
    sim,
    home,
    env,
    run: (args, opts) => rig.spawn(args, opts).result,
    spawn: (args, opts = {}) => spawnCli(args, { ...opts, env: { ...env, ...opts.env } }),
    close: async () => {
      await sim.close();
      await rm(home, { recursive: true, force: true });
    },
  };
  return rig;
}

/** Spawns the built CLI with a clean environment (no proxies, no inherited NSED_*). */
export function spawnCli(args: string[], opts: RunOptions = {}): ChildProcess & { result: Promise<RunResult> } {
  const base: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT']) {
    const v = process.env[k];
    if (v !== undefined) base[k] = v;
  }
  const env: Record<string, string> = { ...base };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if (opts.stdin === undefined) child.stdin?.end();
  else if (opts.stdin !== 'inherit-open') child.stdin?.end(opts.stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
  const result = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return Object.assign(child, { result });
}

/** Resolves once `predicate(stdout+stderr so far)` holds, polling the child's output. */
export async function waitForOutput(child: ChildProcess, predicate: (out: string) => boolean, timeoutMs = 10_000): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for output; saw: ${seen.slice(-500)}`)), timeoutMs);
    const check = (d: Buffer | string) => {
      seen += d.toString();
      if (predicate(seen)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
  });
}

export function parseNdjson(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
