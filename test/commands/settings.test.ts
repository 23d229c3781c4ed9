// The settings of a run are resolved once at the edge, each with its source, and
// shown by `nsed doctor` and `--verbose`; a token is named by where it is read from, never shown.
// Against the simulator, with a real config file and store.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

const CANARY = 'canary-token-6f1d2e';

const rig = useRig({ roundMs: 0, token: CANARY });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-settings-'));
  const config = join(dir, 'config.json');
  await writeFile(config, JSON.stringify({ policy: 'deep', rounds: 2, idle_timeout: 45 }));
  rig.env['NSED_CONFIG'] = config;
  rig.env['NSED_TOKEN'] = CANARY;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('settings with their sources', () => {
  it('doctor -o json lists every setting, its value and where it came from', async () => {
    const r = await rig.run(['doctor', '-o', 'json']);
    expect(r.stdout).not.toContain(CANARY);
    const report = JSON.parse(r.stdout) as {
      settings: Record<string, { value: string; source: string; from: string }>;
    };
    expect(report.settings).toMatchObject({
      url: { value: rig.sim.url, source: 'env', from: 'NSED_URL' },
      token: { value: 'from NSED_TOKEN', source: 'env' },
      policy: { value: 'deep', source: 'config', from: 'policy' },
      rounds: { value: '2', source: 'config' },
      idle_timeout: { value: '45 s', source: 'config' },
      output: { value: 'json', source: 'flag', from: '--output' },
      timeout: { value: '(none)', source: 'default' },
    });
  });

  it('doctor prints them after the checks', async () => {
    const r = await rig.run(['doctor', '--idle-timeout', '20']);
    expect(r.stdout).toContain('settings (flag > environment > config > default):');
    expect(r.stdout).toContain("  policy: deep (the config file's policy)");
    expect(r.stdout).toContain('  idle_timeout: 20 s (--idle-timeout)');
    expect(r.stdout).toContain(`  url: ${rig.sim.url} (NSED_URL)`);
    expect(r.stdout).not.toContain(CANARY);
  });

  it('--verbose says each setting and its source on stderr, and the flag wins', async () => {
    const r = await rig.run(['ask', '--verbose', '-o', 'final', '-p', 'fast', 'hello']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('setting policy fast (--policy)');
    expect(r.stderr).toContain('setting rounds 2 (rounds)');
    expect(r.stderr).toContain('setting token from NSED_TOKEN (NSED_TOKEN)');
    expect(r.stderr).toContain('setting timeout (none) (default)');
    expect(r.stderr).not.toContain(CANARY);
  });
});

describe('settings are read below the commands, never worked out there', () => {
  it('no module below src/commands/ reads the config file or a setting’s environment variable', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const { commands } = await import('../../src/commands/index.js');
    const { GLOBAL_FLAGS } = await import('../../src/commands/global-options.js');
    const { isGroup } = await import('../../src/commands/command.js');
    const defs = commands.flatMap((e) => (isGroup(e) ? e.subcommands : [e]));
    // Every environment variable a flag table declares, and the token's.
    const names = new Set(
      [...GLOBAL_FLAGS, ...defs.flatMap((d) => d.flags ?? [])].flatMap((f) => (f.env === undefined ? [] : [f.env])),
    );
    names.add('NSED_TOKEN');
    names.add('NSED_SIM_ROUND_MS');
    expect(names.size).toBeGreaterThan(5);
    const root = join(import.meta.dirname, '../../src');
    const files = (await readdir(root, { recursive: true }))
      .filter((f) => f.endsWith('.ts'))
      .filter(
        (f) => !f.startsWith('commands/') && !f.startsWith('cli/') && !f.startsWith('sim/') && !f.startsWith('docs/'),
      );
    expect(files.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const f of files) {
      const text = await readFile(join(root, f), 'utf8');
      if (/globals\.config\b/.test(text)) found.push(`${f}: globals.config`);
      for (const name of names)
        if (text.includes(`env['${name}']`) || text.includes(`env.${name}`)) found.push(`${f}: ${name}`);
    }
    // The one exception: the run's secrets know NSED_TOKEN's value to redact it everywhere
    // (docs/reliability.md #89), which chooses no setting.
    expect(found.filter((f) => f !== 'secrets.ts: NSED_TOKEN')).toEqual([]);
  });
});

describe('the config keys come from the flag tables', () => {
  it('every key the config file accepts is one flag’s configKey, and every configKey a key', async () => {
    const { CONFIGURABLE } = await import('../../src/commands/config/shared.js');
    const { isConfigKey, unknownKeyError } = await import('../../src/run/config-file.js');
    const keys = CONFIGURABLE.map((f) => f.configKey ?? '');
    expect(keys.length).toBe(12);
    for (const k of keys) expect(isConfigKey(k), k).toBe(true);
    // The refusal lists the known keys: exactly the tables' ones.
    const listed = (unknownKeyError('nope').hint ?? '').replace('known keys: ', '').split(', ');
    expect(new Set(listed)).toEqual(new Set(keys));
  });
});
