/**
 * nsed doctor against a healthy simulator, a wrong token, a closed port and an unwritable store;
 * the config file (nsed config get|set|unset|list|path) and its precedence: flags > environment >
 * config > built-in defaults. All through the CLI as a process, over real HTTP.
 */
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim } from '../../src/sim/server.js';
import { instantClock, useRig } from '../harness/rig.js';

const rig = useRig();
let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-config-'));
  config = join(dir, 'nsed', 'config.json');
  rig.env['NSED_CONFIG'] = config;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface DoctorJson {
  ok: boolean;
  exit_code: number;
  url: string | null;
  url_source: string;
  checks: Array<{ name: string; ok: boolean; detail: string; fix: string | null; exit_code: number | null }>;
}

async function doctor(
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number | null; report: DoctorJson }> {
  // An instant clock: a refused connect's back-off (200 + 400 ms) is not what these tests are about.
  const r = await rig.run(['doctor', '-o', 'json', ...args], { env, clock: instantClock() });
  return { code: r.code, report: JSON.parse(r.stdout) as DoctorJson };
}

const check = (report: DoctorJson, name: string): DoctorJson['checks'][number] | undefined =>
  report.checks.find((c) => c.name === name);

describe('nsed doctor', { timeout: 120_000 }, () => {
  it('passes every check against a healthy simulator, one ✓ line each, and exits 0', async () => {
    const r = await rig.run(['doctor']);
    expect(r.code).toBe(0);
    for (const name of [
      'node',
      'config',
      'url',
      'proxy',
      'reachable',
      'health',
      'token',
      'policies',
      'store',
      'store mode',
      'locks',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^✓ ${name}: `, 'm'));
    }
    expect(r.stdout).toContain(`✓ url: ${rig.sim.url} (from NSED_URL;`);
    expect(r.stdout).toMatch(/✓ reachable: .* answered in \d+ ms/);
    expect(r.stdout).toContain('✓ policies: 6');
    expect(r.stdout).toContain(`✓ store: ${rig.home} (writable)`);
    expect(r.stdout).not.toContain('✗');
  });

  it('with --sim, the url setting is the in-process simulator, never a default it does not use', async () => {
    const r = await rig.run(['doctor', '--sim'], { env: { NSED_URL: '' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('✓ url: (an in-process simulator) (from --sim;');
    expect(r.stdout).toMatch(/^ {2}url: \(an in-process simulator\) \(--sim\)$/m);
    expect(r.stdout).not.toContain('localhost:8080');
    const json = JSON.parse((await rig.run(['doctor', '--sim', '-o', 'json'], { env: { NSED_URL: '' } })).stdout) as {
      settings: Record<string, { value: string }>;
    };
    expect(json.settings['url']?.value).toBe('(an in-process simulator)');
  });

  it('a wrong token: ✗ token with the fix, exit 4, and the token is never printed', async () => {
    const guarded = await startSim({ host: '127.0.0.1', port: 0, roundMs: 3, token: 'right-token' });
    try {
      const r = await rig.run(['doctor', '--url', guarded.url], { env: { NSED_TOKEN: 'wrong-token-value' } });
      expect(r.code).toBe(4);
      expect(r.stdout).toMatch(/^✗ token: refused: .*401/m);
      expect(r.stdout).toMatch(/^ {4}fix: /m);
      expect(r.stdout + r.stderr).not.toContain('wrong-token-value');
      expect(r.stdout).toContain('not ready (exit 4)');
      const ok = await rig.run(['doctor', '--url', guarded.url], { env: { NSED_TOKEN: 'right-token' } });
      expect(ok.code).toBe(0);
    } finally {
      await guarded.close();
    }
  });

  it('a closed port: ✗ reachable, exit 6 (network)', async () => {
    const gone = await startSim({ host: '127.0.0.1', port: 0 });
    const url = gone.url;
    await gone.close();
    const { code, report } = await doctor(['--url', url]);
    expect(code).toBe(6);
    expect(report).toMatchObject({ ok: false, exit_code: 6, url, url_source: 'flag' });
    expect(check(report, 'reachable')).toMatchObject({
      ok: false,
      exit_code: 6,
      detail: expect.stringContaining('connection refused'),
    });
    // The store is still checked: doctor shows every problem, not only the first.
    expect(check(report, 'store')?.ok).toBe(true);
  });

  it('an unwritable store: ✗ store, exit 8, the orchestrator still checked', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory\n');
    const { code, report } = await doctor([], { NSED_HOME: join(file, 'store') });
    expect(code).toBe(8);
    expect(check(report, 'store')).toMatchObject({
      ok: false,
      exit_code: 8,
      fix: expect.stringContaining('NSED_HOME'),
    });
    expect(check(report, 'reachable')?.ok).toBe(true);
  });

  it('a store other users can read is flagged with chmod, but ask still works (exit 0)', async () => {
    const open = await mkdtemp(join(tmpdir(), 'nsed-open-'));
    try {
      const { chmod } = await import('node:fs/promises');
      await chmod(open, 0o755);
      const { code, report } = await doctor([], { NSED_HOME: open });
      expect(code).toBe(0);
      expect(check(report, 'store mode')).toMatchObject({ ok: false, fix: `chmod 700 ${open}`, exit_code: null });
    } finally {
      await rm(open, { recursive: true, force: true });
    }
  });
});

describe('nsed config', { timeout: 120_000 }, () => {
  it('set, get, list, unset and path; the file is 0600 and written whole', async () => {
    expect((await rig.run(['config', 'path'])).stdout).toBe(`${config}\n`);
    expect((await rig.run(['config', 'set', 'policy', 'fast'])).code).toBe(0);
    expect((await rig.run(['config', 'set', 'agents', 'CortexA,CortexB'])).code).toBe(0);
    expect((await rig.run(['config', 'get', 'policy'])).stdout).toBe('fast\n');
    expect((await rig.run(['config', 'get', 'agents', '-o', 'json'])).stdout).toBe('["CortexA","CortexB"]\n');
    expect((await rig.run(['config', 'list'])).stdout).toBe('policy=fast\nagents=CortexA,CortexB\n');
    expect(((await stat(config)).mode & 0o777).toString(8)).toBe('600');
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ policy: 'fast', agents: ['CortexA', 'CortexB'] });
    expect((await rig.run(['config', 'unset', 'agents'])).code).toBe(0);
    const missing = await rig.run(['config', 'get', 'agents']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('agents is not set');
    await rig.run(['config', 'unset', 'policy']);
  });

  it('refuses unknown keys with the known ones, a token with a hint to token_file, and bad values', async () => {
    const unknown = await rig.run(['config', 'set', 'colour', 'false']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      "nsed: unknown config key 'colour'\nhint: known keys: url, policy, agents, rounds, idle_timeout, output, color, token_file, progress, on_exit, max_cost, max_tokens\n",
    );
    const token = await rig.run(['config', 'set', 'token', 's3cret']);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain('token_file');
    const rounds = await rig.run(['config', 'set', 'rounds', 'many']);
    expect(rounds.code).toBe(2);
    expect(rounds.stderr).toContain('rounds must be a whole number from 1 to 100');
    const output = await rig.run(['config', 'set', 'output', 'yaml']);
    expect(output.code).toBe(2);
    const cap = await rig.run(['config', 'set', 'max_cost', '0']);
    expect(cap.code).toBe(2);
    expect(cap.stderr).toContain('max_cost must be a positive number of dollars');
    expect((await rig.run(['config', 'set', 'max_tokens', '20000'])).code).toBe(0);
    await rig.run(['config', 'unset', 'max_tokens']);
  });

  it('a file that cannot be parsed is never overwritten: exit 8 naming it, for set and for any command', async () => {
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"url": "http://x",\n');
    const set = await rig.run(['config', 'set', 'policy', 'deep'], { env: { NSED_CONFIG: broken } });
    expect(set.code).toBe(8);
    expect(set.stderr).toContain(broken);
    expect(await readFile(broken, 'utf8')).toBe('{"url": "http://x",\n');
    const ask = await rig.run(['ask', '-o', 'final', 'hi'], { env: { NSED_CONFIG: broken } });
    expect(ask.code).toBe(8);
    expect(ask.stderr).toMatch(/^nsed: the config file .*broken\.json is not valid JSON/);
    // doctor reports it rather than dying on it.
    const { code, report } = await doctor([], { NSED_CONFIG: broken });
    expect(code).toBe(8);
    expect(check(report, 'config')).toMatchObject({ ok: false, exit_code: 8 });
  });
});

describe('precedence: flags > environment > config > built-in defaults', { timeout: 120_000 }, () => {
  const precedenceConfig = (): string => join(dir, 'precedence.json');

  beforeAll(async () => {
    await mkdir(dir, { recursive: true });
  });

  it('url: the config file is used when neither --url nor NSED_URL is given, and loses to both', async () => {
    await writeFile(precedenceConfig(), JSON.stringify({ url: rig.sim.url }));
    const env = { NSED_CONFIG: precedenceConfig(), NSED_URL: undefined };
    expect((await doctor([], env)).report).toMatchObject({ url: rig.sim.url, url_source: 'config', ok: true });
    expect((await doctor([], { ...env, NSED_URL: 'http://127.0.0.1:9' })).report).toMatchObject({
      url: 'http://127.0.0.1:9',
      url_source: 'env',
    });
    expect(
      (await doctor(['--url', 'http://127.0.0.1:7'], { ...env, NSED_URL: 'http://127.0.0.1:9' })).report,
    ).toMatchObject({
      url: 'http://127.0.0.1:7',
      url_source: 'flag',
    });
    expect((await doctor([], { NSED_CONFIG: join(dir, 'none.json'), NSED_URL: undefined })).report.url_source).toBe(
      'default',
    );
  });

  it('policy and output: -p > NSED_POLICY > config; -o > config > text', async () => {
    await writeFile(precedenceConfig(), JSON.stringify({ policy: 'fast', output: 'json' }));
    const env = { NSED_CONFIG: precedenceConfig() };
    const fromConfig = await rig.run(['ask', 'hi'], { env });
    expect(fromConfig.code).toBe(0);
    expect(JSON.parse(fromConfig.stdout)).toMatchObject({ policy: 'nsed:fast' });
    const fromEnv = await rig.run(['ask', 'hi'], { env: { ...env, NSED_POLICY: 'deep' } });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ policy: 'nsed:deep' });
    const fromFlags = await rig.run(['ask', '-p', 'balanced', '-o', 'final', 'hi'], {
      env: { ...env, NSED_POLICY: 'deep' },
    });
    expect(fromFlags.code).toBe(0);
    expect(() => JSON.parse(fromFlags.stdout) as unknown).toThrow();
    const sessions = JSON.parse((await rig.run(['sessions', 'ls', '--json', '-n', '1'])).stdout) as Array<{
      policy: string;
    }>;
    expect(sessions[0]?.policy).toBe('nsed:balanced');
  });

  it('token_file in the config is read when neither --token-file nor NSED_TOKEN is given', async () => {
    const guarded = await startSim({ host: '127.0.0.1', port: 0, roundMs: 3, token: 'file-token' });
    try {
      const tokenFile = join(dir, 'token');
      await writeFile(tokenFile, 'file-token\n', { mode: 0o600 });
      await writeFile(precedenceConfig(), JSON.stringify({ url: guarded.url, token_file: tokenFile }));
      const env = { NSED_CONFIG: precedenceConfig(), NSED_URL: undefined };
      expect((await rig.run(['agents'], { env })).code).toBe(0);
      // NSED_TOKEN outranks the file the config names.
      expect((await rig.run(['agents'], { env: { ...env, NSED_TOKEN: 'other' } })).code).toBe(4);
    } finally {
      await guarded.close();
    }
  });

  it('an unknown key in the file is warned about once and ignored', async () => {
    await writeFile(precedenceConfig(), JSON.stringify({ polcy: 'fast' }));
    const r = await rig.run(['policies', '--tag', 'fast'], { env: { NSED_CONFIG: precedenceConfig() } });
    expect(r.code).toBe(0);
    expect(r.stderr.match(/unknown config key 'polcy'/g)).toHaveLength(1);
  });
});
