import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/commands/index.js';
import { cliReference } from '../../src/docs/reference.js';
import { generatedFiles } from '../../src/docs/generate.js';
import { openFileStore } from '../../src/session/file-store.js';
import { SESSION_VERSION } from '../../src/session/model.js';
import { instantClock, runCliInProcess, type CliResult } from '../harness/cli.js';
import { CLI } from '../harness/rig.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const has = async (cmd: string): Promise<boolean> =>
  run('sh', ['-c', `command -v ${cmd}`]).then(
    () => true,
    () => false,
  );
const [hasZsh, hasFish] = await Promise.all([has('zsh'), has('fish')]);

function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCliInProcess(args, {
    env: { NO_COLOR: '1', ...env },
    clock: instantClock(),
    randomHex: (n) => '0'.repeat(n * 2),
  });
}

describe('the committed completion scripts', () => {
  for (const [file, text] of Object.entries(generatedFiles()).filter(([f]) => f.startsWith('completions/'))) {
    it(`${file} is what the generator writes (run npm run docs when this fails)`, async () => {
      expect(await readFile(path.join(ROOT, file), 'utf8')).toBe(text);
    });
  }

  it('are what nsed completion prints, for a named shell and for the one in $SHELL', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await cli(['completion', shell]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(await readFile(path.join(ROOT, `completions/nsed.${shell}`), 'utf8'));
    }
    expect((await cli(['completion'], { SHELL: '/usr/bin/zsh' })).stdout).toMatch(/^#compdef nsed\n/);
    const unknown = await cli(['completion'], { SHELL: '/bin/tcsh' });
    expect(unknown.code).toBe(2);
    expect((await cli(['completion', 'powershell'])).code).toBe(2);
  });

  it('declare exactly the flags the parser documents in --help for every command', async () => {
    const ref = cliReference(commands);
    for (const c of ref.commands) {
      const help = (await cli([...c.words, '--help'])).stdout;
      // `nsed sim` shows only its own options and yargs' --help and --version.
      const globals = c.clientOptions
        ? ref.globalOptions
        : ref.globalOptions.filter((o) => o.name === 'help' || o.name === 'version');
      for (const o of [...c.options, ...globals]) {
        for (const flag of o.flags)
          expect(help, `${c.words.join(' ')} ${flag}`).toMatch(new RegExp(`(^|[\\s,])${flag}([\\s,]|$)`, 'm'));
      }
      const declared = new Set([...c.options, ...globals].flatMap((o) => o.flags));
      // Option rows of yargs' help: `  -o, --output` or `      --url`, never a flag quoted in a description.
      const rows = [...help.matchAll(/^ {2}(?:-\w, | {4})(--[a-z][a-z-]*)/gm)].map((m) => m[1] ?? '');
      expect(rows.length, c.words.join(' ')).toBeGreaterThanOrEqual(globals.length);
      for (const flag of rows) expect(declared, `${c.words.join(' ')} --help lists ${flag}`).toContain(flag);
    }
  });
});

describe('completing on a real store', () => {
  let dir: string;
  let env: Record<string, string>;
  const ids = ['20260101-aaaa0001', '20260102-bbbb0002', '20260103-cccc0003'];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'nsed-completion-'));
    await mkdir(path.join(dir, 'bin'));
    await writeFile(path.join(dir, 'bin', 'nsed'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    await chmod(path.join(dir, 'bin', 'nsed'), 0o755);
    for (const [home, list] of [
      ['store', ids],
      ['other', ['other-session']],
    ] as const) {
      const store = openFileStore(path.join(dir, home));
      for (const [i, id] of list.entries()) {
        const at = `2026-01-0${i + 1}T00:00:00.000Z`;
        await store.create({
          version: SESSION_VERSION,
          id,
          title: id,
          created: at,
          updated: at,
          active_policy: 'nsed:deep',
          orchestrator: 'sim',
          conversation_id: 'thread-x',
          turns: [],
        });
      }
    }
    env = {
      PATH: `${path.join(dir, 'bin')}:${process.env['PATH'] ?? ''}`,
      NSED_HOME: path.join(dir, 'store'),
      HOME: dir,
    };
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('bash completes -p from the tag cache of the last nsed policies, without a request, and nothing once it is stale', async () => {
    const cache = path.join(dir, 'store', 'policies-cache.json');
    const script = [
      `source "${path.join(ROOT, 'completions/nsed.bash')}"`,
      'comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _nsed; printf "%s\\n" "${COMPREPLY[*]}"; }',
      'comp nsed ask -p ""',
      'comp nsed ask --policy d',
    ].join('\n');
    // NSED_URL names a port nothing listens on: a request would fail, not answer.
    const noNetwork = { ...env, NSED_URL: 'http://127.0.0.1:1' };
    await writeFile(
      cache,
      JSON.stringify({ written: new Date().toISOString(), url: 'sim', tags: ['balanced', 'fast', 'deep'] }),
    );
    const fresh = (await run('bash', ['--norc', '-c', script], { env: noNetwork })).stdout.split('\n');
    expect(fresh.slice(0, 2)).toEqual(['balanced fast deep', 'deep']);
    await writeFile(cache, JSON.stringify({ written: '2020-01-01T00:00:00.000Z', url: 'sim', tags: ['balanced'] }));
    const stale = (await run('bash', ['--norc', '-c', script], { env: noNetwork })).stdout.split('\n');
    expect(stale.slice(0, 2)).toEqual(['', '']);
    await rm(cache);
  });

  it('bash completes commands, subcommands, flags, their values and session ids from the store', async () => {
    const lines = [
      'nsed ""',
      'nsed sessions ""',
      'nsed sessions show ""',
      `nsed sessions show --home "${path.join(dir, 'other')}" ""`,
      'nsed sessions rm 20260101-aaaa0001 ""',
      'nsed sessions export x --format ""',
      'nsed -o ""',
      'nsed continue -s ""',
      'nsed ask --p',
      'nsed sessions ls --state ""',
      'nsed completion ""',
      'nsed fork 20260101-aaaa0001 ""',
      'nsed sessions show x --rounds ""',
      'nsed ask --rounds ""',
      'nsed inject --no-',
    ];
    const script = [
      `source "${path.join(ROOT, 'completions/nsed.bash')}"`,
      'comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _nsed; printf "%s\\n" "${COMPREPLY[*]}"; }',
      ...lines.map((l) => `comp ${l}`),
    ].join('\n');
    const { stdout } = await run('bash', ['--norc', '-c', script], { env });
    const got = stdout.split('\n');
    const newestFirst = [...ids].reverse().join(' ');
    expect(got[0]?.split(' ')).toEqual([
      'ask',
      'batch',
      'continue',
      'fork',
      'resume',
      'watch',
      'gate',
      'inject',
      'tool-result',
      'cancel',
      'sessions',
      'render',
      'policies',
      'agents',
      'models',
      'config',
      'doctor',
      'mcp',
      'sim',
      'completion',
    ]);
    expect(got[1]).toBe('ls show search stats export archive unarchive rm reindex');
    expect(got[2]).toBe(newestFirst);
    expect(got[3]).toBe('other-session');
    expect(got[4]).toBe(newestFirst);
    expect(got[5]).toBe('json markdown messages ndjson thread summary junit html jsonl');
    expect(got[6]).toBe('text ndjson final json');
    expect(got[7]).toBe(newestFirst);
    expect(got[8]).toBe('--policy --progress');
    expect(got[9]).toBe('ok running interrupted failed cancelled');
    expect(got[10]).toBe('bash zsh fish');
    expect(got[11]).toBe('');
    expect(got[12]).toBe('');
    expect(got[13]).toBe('');
    expect(got[14]).toBe('--no-wait --no-color');
  });

  it.skipIf(!hasFish)('fish completes subcommands, flag values and session ids', async () => {
    const script = `source "${path.join(ROOT, 'completions/nsed.fish')}"
complete -C "nsed sessions sh"; echo ---; complete -C "nsed sessions show "; echo ---; complete -C "nsed sessions export x --format "; echo ---; complete -C "nsed fork 20260101-aaaa0001 "`;
    const { stdout } = await run('fish', ['--no-config', '-c', script], { env });
    const [sub, show, format, afterFork] = stdout.split('---\n').map((part) =>
      part
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    );
    expect(sub).toEqual(['show']);
    expect(show?.sort()).toEqual([...ids].sort());
    expect(format).toEqual(['json', 'markdown', 'messages', 'ndjson', 'thread']);
    expect(afterFork).toEqual([]);
  });

  it.skipIf(!hasZsh)('zsh completes -p to a whole tag that holds a colon', async () => {
    // A real interactive zsh on a pseudo-terminal (zpty): TAB completes the line, then a key bound
    // to a widget prints the buffer, and the read waits for that print (no sleep, no timing).
    const cache = path.join(dir, 'store', 'policies-cache.json');
    await writeFile(
      cache,
      JSON.stringify({ written: new Date().toISOString(), url: 'sim', tags: ['mid:0v1', 'fast'] }),
    );
    const drive = path.join(dir, 'drive.zsh');
    await writeFile(
      drive,
      [
        'zmodload zsh/zpty',
        'zpty -b z zsh -f -i',
        `zpty -w z 'PS1="> "; autoload -U compinit; compinit -u -D; source "${path.join(ROOT, 'completions/nsed.zsh')}"'`,
        // "BU""F<" so the echo of this very line cannot match the pattern read for below.
        `zpty -w z 'dump() { print -r -- "BU""F<$BUFFER>" > /dev/tty; }; zle -N dump; bindkey "^X" dump'`,
        "zpty -w -n z $'nsed ask -p mi\\t\\x18'",
        "zpty -r z line '*BUF<*>*'",
        'print -r -- "${${line##*BUF<}%%>*}"',
        'zpty -d z',
      ].join('\n'),
    );
    const { stdout } = await run('zsh', ['-f', drive], { env, cwd: dir, timeout: 60_000 });
    await rm(cache);
    expect(stdout.trim()).toBe('nsed ask -p mid:0v1');
  });

  it.skipIf(!hasZsh)('zsh parses the script and registers it for nsed', async () => {
    const file = path.join(ROOT, 'completions/nsed.zsh');
    await run('zsh', ['-n', file]);
    const { stdout } = await run(
      'zsh',
      ['-f', '-c', `autoload -U compinit && compinit -u -D && source "${file}" && print -r -- $_comps[nsed]`],
      { env },
    );
    expect(stdout.trim()).toBe('_nsed');
  });
});
