// Child processes for the figures: wall time from spawn to exit, output, and peak RSS.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The CLI the figures run: bin/nsed.cjs, or the private copy run.mjs makes (see snapshot-cli.mjs). */
export let CLI = path.join(ROOT, 'bin', 'nsed.cjs');
export function useCli(file) {
  CLI = file;
  return file;
}
const MAXRSS_HOOK = new URL('./maxrss-hook.mjs', import.meta.url).href;
const USAGE_HOOK = new URL('./usage-hook.mjs', import.meta.url).href;
const GNU_TIME = '/usr/bin/time';

/**
 * The environment every child runs in, nsed and floor alike: the caller's, including
 * NODE_EXTRA_CA_CERTS (it costs every Node start the same, so the ratios share it), minus
 * anything that would point nsed elsewhere or make it chatty.
 */
export function baseEnv(extra = {}) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('NSED_') || /^(https?|no|all)_proxy$/i.test(key)) delete env[key];
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

/**
 * Runs `node args` to completion. `ms` is spawn to exit; stdout is kept when `keep` is set,
 * else only counted. A run that fails is an error: a figure built on failed runs is no figure.
 */
export function runNode(args, opts = {}) {
  return runProcess(process.execPath, args, opts);
}

/**
 * `runNode` for any program (xargs, a shell), with `stdinFile` as its standard input. `what`
 * names the run in its error.
 */
export function runProcess(
  file,
  args,
  { env = baseEnv(), keep = false, timeoutMs = 120_000, onStdout, stdinFile, what } = {},
) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const stdin = stdinFile === undefined ? 'ignore' : openSync(stdinFile, 'r');
    const child = spawn(file, args, { env, stdio: [stdin, 'pipe', 'pipe'] });
    if (typeof stdin === 'number') closeSync(stdin);
    let ended = 0;
    let bytes = 0;
    const out = [];
    let err = '';
    child.stdout.on('data', (d) => {
      if (onStdout) onStdout(d);
      bytes += d.length;
      if (keep) out.push(d);
    });
    child.stderr.on('data', (d) => {
      if (err.length < 4000) err += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', () => {
      ended = performance.now();
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = keep ? Buffer.concat(out).toString('utf8') : '';
      if (code !== 0) {
        const name = what ?? `${path.basename(file)} ${args.map((a) => path.basename(a)).join(' ')}`;
        reject(new Error(`${name} exited ${code ?? signal}: ${gist(err)}`));
        return;
      }
      resolve({ ms: ended - started, bytes, stdout, stderr: err });
    });
  });
}

/** The line of a child's stderr that says what went wrong: nsed's own, or a thrown error's. */
function gist(stderr) {
  const lines = stderr.split('\n').map((l) => l.trim());
  return (
    lines.find((l) => l.startsWith('nsed:')) ??
    lines.find((l) => /^[A-Za-z]*Error\b/.test(l)) ??
    lines.find(Boolean) ??
    ''
  ).slice(0, 300);
}

/** Wall time of one run, for `interleave`. */
export const timeNode = (args, opts) => async () => (await runNode(args, opts)).ms;

let gnuTime;
/** Whether /usr/bin/time is GNU time (BSD's has no -f or -o); asked once. */
function hasGnuTime(tmp) {
  gnuTime ??= (async () => {
    if (!existsSync(GNU_TIME)) return false;
    const side = path.join(tmp, `gnu-time-probe-${process.pid}`);
    try {
      await runExec(GNU_TIME, ['-f', '%M', '-o', side, process.execPath, '-e', '0'], baseEnv());
      return Number((await readFile(side, 'utf8')).trim().split('\n').at(-1)) > 0;
    } catch {
      return false;
    } finally {
      await rm(side, { force: true });
    }
  })();
  return gnuTime;
}

/** How peakRssKib measures, for the record. */
export async function peakRssMethod(tmp) {
  return (await hasGnuTime(tmp)) ? 'GNU time %M' : 'process.resourceUsage().maxRSS at exit';
}

/**
 * Peak resident set of `node args` in KiB: GNU time's %M when installed, else the child's own
 * process.resourceUsage().maxRSS written at exit by a preloaded hook.
 */
export async function peakRssKib(args, { env = baseEnv(), tmp }) {
  const side = path.join(tmp, `rss-${process.pid}-${Math.random().toString(16).slice(2)}`);
  try {
    if (await hasGnuTime(tmp)) {
      await runExec(GNU_TIME, ['-f', '%M', '-o', side, process.execPath, ...args], env);
    } else {
      await runExec(process.execPath, ['--import', MAXRSS_HOOK, ...args], { ...env, BENCH_MAXRSS_FILE: side });
    }
    const lines = (await readFile(side, 'utf8')).trim().split('\n');
    const kib = Number(lines.at(-1));
    if (!Number.isFinite(kib) || kib <= 0) throw new Error(`no peak RSS in ${side}: ${lines.join(' | ')}`);
    return kib;
  } finally {
    await rm(side, { force: true });
  }
}

/**
 * Runs `node args` with the usage hook preloaded: the run's wall time and output as `runNode`
 * gives them, and its own CPU time (user + system), peak RSS and live heap after a collection.
 */
export async function runNodeWithUsage(args, { env = baseEnv(), tmp, ...opts }) {
  const side = path.join(tmp, `usage-${process.pid}-${Math.random().toString(16).slice(2)}`);
  try {
    const run = await runNode(['--expose-gc', '--import', USAGE_HOOK, ...args], {
      ...opts,
      env: { ...env, BENCH_USAGE_FILE: side },
    });
    return { ...run, usage: JSON.parse(await readFile(side, 'utf8')) };
  } finally {
    await rm(side, { force: true });
  }
}

function runExec(file, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      if (err.length < 4000) err += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(file)} exited ${code}: ${gist(err)}`)),
    );
  });
}

/**
 * Runs `nsed args` once: undefined when it works, else why not (a command another issue has not
 * landed yet exits 2), so a figure can be reported as skipped rather than sink the whole run.
 */
export async function whyNot(args, env) {
  try {
    await runNode([CLI, ...args], { env, timeoutMs: 30_000 });
    return undefined;
  } catch (err) {
    return err.message.split('\n')[0].slice(0, 200);
  }
}
