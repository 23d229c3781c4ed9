// dist/help.cjs prints help texts yargs rendered when the bundle was built. They must never go
// stale or differ from what the full CLI prints: every stored text is compared here with what
// runCli prints for the same words, with --help and with -h, and every command, alias and
// subcommand must have one. Help must also depend on nothing the build could not see; what
// could (locale, colour, the config file, the terminal) is tried here.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { helpKey, helpShapes } from '../../src/cli/help-texts.js';
import { HELP_WIDTH, helpWidth } from '../../src/cli/help-width.js';
import { isGroup } from '../../src/commands/command.js';
import { commands } from '../../src/commands/index.js';
import { runCliInProcess } from '../harness/cli.js';
import { DIST } from '../harness/process.js';
import { Capture, settle } from '../terminal/memory-io.js';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';

const built = createRequire(import.meta.url)(join(DIST, 'help.cjs')) as {
  storedHelp(): Record<string, string>;
};
const stored = built.storedHelp();

/** runCli as the full CLI runs it on a pipe: a stdout without columns. */
async function printed(args: string[], env: Record<string, string> = { NO_COLOR: '1' }) {
  const stdout = new Capture(false);
  Object.defineProperty(stdout, 'columns', { value: undefined });
  const stderr = new Capture(false);
  const base = {
    env,
    clock: { now: () => new Date(), sleep: () => Promise.resolve() },
    signal: new AbortController().signal,
    signalExit: () => undefined,
    randomHex: (n: number) => '0'.repeat(n * 2),
  };
  const code = await runCli(args, base, { stdout, stderr, stdin: new PassThrough() });
  await settle();
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const savedEnv = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

describe('the help texts dist/help.cjs carries', () => {
  it('has one for the top level and every command, alias and subcommand, and no other', () => {
    const keys = Object.keys(stored).sort();
    expect(keys).toEqual(helpShapes().map(helpKey).sort());
    expect(keys).toContain('');
    for (const entry of commands) {
      const name = entry.command.split(' ')[0] ?? '';
      expect(keys).toContain(name);
      if (isGroup(entry))
        for (const sub of entry.subcommands) expect(keys).toContain(`${name} ${sub.command.split(' ')[0] ?? ''}`);
    }
    expect(keys).toContain('sessions list');
  });

  it('holds exactly what the full CLI prints for each, with --help and with -h', async () => {
    for (const words of helpShapes()) {
      for (const flag of ['--help', '-h']) {
        const r = await printed([...words, flag]);
        const shape = [...words, flag].join(' ');
        expect({ code: r.code, stderr: r.stderr }, shape).toEqual({ code: 0, stderr: '' });
        expect(r.stdout, shape).toBe(stored[helpKey(words)]);
      }
    }
  });

  it('is the same whatever the locale, colour and config file say', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'nsed-help-'));
    try {
      const broken = join(dir, 'config.json');
      await writeFile(broken, '{ not json');
      // yargs reads the locale from the process environment, not from the command's.
      Object.assign(process.env, { LC_ALL: 'de_DE.UTF-8', LC_MESSAGES: 'fr_FR', LANG: 'ja_JP', LANGUAGE: 'es' });
      const env = { FORCE_COLOR: '3', NSED_CONFIG: broken, LANG: 'de_DE.UTF-8' };
      for (const words of [[], ['ask'], ['sessions', 'ls'], ['config', 'set']]) {
        const r = await printed([...words, '--help'], env);
        expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
        expect(r.stdout, words.join(' ')).toBe(stored[helpKey(words)]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is what a terminal at least as wide as the stored width gets; a narrower one gets yargs', async () => {
    expect(helpWidth(undefined)).toBe(HELP_WIDTH);
    for (const columns of [HELP_WIDTH, 180]) {
      expect(helpWidth(columns)).toBe(HELP_WIDTH);
      const r = await runCliInProcess(['sessions', 'show', '--help'], { tty: true, columns });
      expect(r.stdout).toBe(stored['sessions show']);
    }
    // Narrower, the text is wrapped otherwise: the fast entry declines it (cli/fast-help.ts).
    expect(helpWidth(60)).toBe(60);
    const narrow = await runCliInProcess(['sessions', 'show', '--help'], { tty: true, columns: 60 });
    expect(narrow.code).toBe(0);
    expect(narrow.stdout).not.toBe(stored['sessions show']);
  });
});
