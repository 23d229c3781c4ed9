import { access, constants, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../../run/context.js';
import { ExitCode, toNsedError, type ExitCodeValue } from '../../errors.js';
import { isAlive } from '../../process-alive.js';

/** One line of `nsed doctor`. */
export interface Check {
  name: string;
  ok: boolean;
  /** What was found (always shown). */
  detail: string;
  /** What to do about a failure. */
  fix?: string;
  /**
   * The exit code this failure means when `ask` cannot work without the thing checked;
   * undefined for a check that only informs (a loose store mode, a proxy in effect).
   */
  exitCode?: ExitCodeValue;
  /** What does work, where `ask` works only in part (a plain server: `-m` only). */
  works?: string;
}

const MIN_NODE = [20, 19] as const;

export function nodeCheck(version: string): Check {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? { name: 'node', ok, detail: `Node.js ${version}` }
    : {
        name: 'node',
        ok,
        detail: `Node.js ${version} is older than ${MIN_NODE.join('.')}`,
        fix: 'install Node.js 20.19 or newer',
        exitCode: ExitCode.usage,
      };
}

export function configCheck(ctx: Context): Check {
  const { config } = ctx.globals;
  const where = config.path ?? '(none: HOME is not set)';
  if (config.error !== undefined) {
    return {
      name: 'config',
      ok: false,
      detail: config.error.message,
      fix: config.error.hint ?? `fix or remove ${where}`,
      exitCode: ExitCode.store,
    };
  }
  if (!config.exists) return { name: 'config', ok: true, detail: `${where} (not created; built-in defaults apply)` };
  const set = Object.keys(config.values);
  const unknown = config.unknown.length === 0 ? '' : `; unknown keys ignored: ${config.unknown.join(', ')}`;
  return {
    name: 'config',
    ok: config.unknown.length === 0,
    detail: `${where}: ${set.length === 0 ? 'nothing set' : `sets ${set.join(', ')}`}${unknown}`,
    ...(config.unknown.length === 0 ? {} : { fix: `remove them (nsed config list shows what is known)` }),
  };
}

/** Proxy and certificate settings in effect, from the environment nsed was given. */
export async function networkSettingsCheck(env: Context['env'], url: string): Promise<Check[]> {
  const { proxySettings, proxyDisplay } = await import('../../api/index.js');
  const checks: Check[] = [];
  const proxy = proxySettings(env);
  const https = url.startsWith('https:');
  const proxyFor = proxy === undefined ? '' : https ? proxy.httpsProxy : proxy.httpProxy;
  const { isLoopbackHost } = await import('../../protocol/loopback.js');
  const loopback = isLoopbackHost(new URL(url).hostname);
  checks.push({
    name: 'proxy',
    ok: true,
    detail:
      proxyFor === ''
        ? 'none (direct connection)'
        : loopback
          ? `${proxyDisplay(proxyFor)} set, but loopback goes direct`
          : `${proxyDisplay(proxyFor)}${proxy?.noProxy ? `, NO_PROXY=${proxy.noProxy}` : ''}`,
  });
  const ca = env['NODE_EXTRA_CA_CERTS'];
  if (ca !== undefined && ca !== '') {
    try {
      await access(ca, constants.R_OK);
      checks.push({ name: 'ca', ok: true, detail: `NODE_EXTRA_CA_CERTS=${ca}` });
    } catch {
      checks.push({
        name: 'ca',
        ok: false,
        detail: `NODE_EXTRA_CA_CERTS=${ca} cannot be read`,
        fix: 'point it at a readable PEM file',
        exitCode: https ? ExitCode.network : undefined,
      });
    }
  } else {
    checks.push({ name: 'ca', ok: true, detail: 'system certificate authorities (NODE_EXTRA_CA_CERTS not set)' });
  }
  if (env['NODE_TLS_REJECT_UNAUTHORIZED'] === '0') {
    checks.push({
      name: 'tls',
      ok: false,
      detail: 'NODE_TLS_REJECT_UNAUTHORIZED=0 turns certificate checks off',
      fix: 'unset it; use NODE_EXTRA_CA_CERTS for a private CA',
    });
  }
  return checks;
}

/** The store: where it is, that a session file can be written there, its mode, its locks. */
export async function storeChecks(ctx: Context): Promise<Check[]> {
  const { resolveHome, sessionsDir } = await import('../../session/index.js');
  let home: string;
  try {
    home = resolveHome(ctx.env, ctx.globals.settings.home.value);
  } catch (err) {
    const e = toNsedError(err);
    return [{ name: 'store', ok: false, detail: e.message, fix: e.hint ?? 'set NSED_HOME', exitCode: ExitCode.store }];
  }
  const dir = sessionsDir(home);
  const probe = path.join(dir, `.doctor-${process.pid}.tmp`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(probe, 'probe\n', { mode: 0o600 });
    await rm(probe, { force: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return [
      {
        name: 'store',
        ok: false,
        detail: `${home} is not writable (${code})`,
        fix: 'fix its permissions, or choose another place with --home or NSED_HOME',
        exitCode: ExitCode.store,
      },
    ];
  }
  const checks: Check[] = [{ name: 'store', ok: true, detail: `${home} (writable)` }];
  const mode = (await stat(home)).mode & 0o777;
  checks.push(
    (mode & 0o077) === 0
      ? {
          name: 'store mode',
          ok: true,
          detail: `${mode.toString(8).padStart(4, '0')} (only you can read your sessions)`,
        }
      : {
          name: 'store mode',
          ok: false,
          detail: `${mode.toString(8).padStart(4, '0')}: other users can read your sessions`,
          fix: `chmod 700 ${home}`,
        },
  );
  checks.push(await lockCheck(dir));
  return checks;
}

/** Session locks present now: held by a live nsed, or left by one that died (taken over on next use). */
async function lockCheck(dir: string): Promise<Check> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.lock'));
  let live = 0;
  let stale = 0;
  for (const name of names) {
    const owner = await readFile(path.join(dir, name, 'owner'), 'utf8').catch(() => '');
    const pid = Number(owner.split(' ')[0]);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) live++;
    else stale++;
  }
  if (names.length === 0) return { name: 'locks', ok: true, detail: 'no session is locked' };
  const parts = [
    live > 0 ? `${live} held by a running nsed` : '',
    stale > 0 ? `${stale} left by a process that ended (taken over when next used)` : '',
  ];
  return { name: 'locks', ok: true, detail: parts.filter((p) => p !== '').join('; ') };
}
