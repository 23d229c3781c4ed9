// The prescan answers `sessions ls` without yargs; it must never read the words differently
// from the yargs definitions. Every shape it accepts is parsed both ways here and the typed
// options (global and the command's own) compared.
import { describe, expect, it } from 'vitest';
import { prescan } from '../../src/cli/prescan.js';
import { parseWords } from '../../src/cli/run-cli.js';
import { parseGlobalOptions } from '../../src/commands/global-options.js';
import type { ParsedArgv } from '../../src/commands/command.js';
import type { LoadedConfig } from '../../src/config-file.js';

const GROUPS: string[][] = [
  ['--json'],
  ['--ids'],
  ['-q'],
  ['--quiet'],
  ['--no-color'],
  ['--home', '/tmp/nsed home'],
  ['--home=/tmp/h=1'],
  ['-o', 'json'],
  ['-o', 'ndjson'],
  ['--output', 'final'],
  ['--output=text'],
];

function shapes(): string[][] {
  const out: string[][] = [];
  for (const verb of ['ls', 'list']) {
    out.push(['sessions', verb]);
    for (const a of GROUPS) {
      out.push(['sessions', verb, ...a]);
      for (const b of GROUPS) {
        if (a !== b) out.push(['sessions', verb, ...a, ...b]);
      }
    }
  }
  return out;
}

async function viaYargs(args: string[]) {
  const parsed = await parseWords(args, 100);
  expect(parsed.error, args.join(' ')).toBeUndefined();
  const selected = parsed.selected;
  if (selected === undefined) throw new Error(`yargs chose no command for ${args.join(' ')}`);
  return {
    command: selected.def.command,
    globals: parseGlobalOptions(selected.argv),
    configured: parseGlobalOptions(selected.argv, CONFIGURED),
    options: selected.def.parse(selected.argv),
  };
}

/** A config file's output and idle timeout apply only where no flag gave one, with either parser. */
const CONFIGURED: LoadedConfig = {
  path: '/c.json',
  exists: true,
  values: { output: 'json', idle_timeout: 30 },
  unknown: [],
  error: undefined,
};

describe('prescan of sessions ls', () => {
  it('reads every shape it accepts exactly as the yargs definitions do', async () => {
    const all = shapes();
    let accepted = 0;
    for (const args of all) {
      const quick: ParsedArgv | undefined = prescan(args);
      if (quick === undefined) continue;
      accepted++;
      const yargsView = await viaYargs(args);
      const { ls } = await import('../../src/commands/sessions/ls.js');
      expect(yargsView.command, args.join(' ')).toBe(ls.command);
      expect(
        {
          globals: parseGlobalOptions(quick),
          configured: parseGlobalOptions(quick, CONFIGURED),
          options: ls.parse(quick),
        },
        args.join(' '),
      ).toEqual({ globals: yargsView.globals, configured: yargsView.configured, options: yargsView.options });
    }
    // Repeats of one flag (e.g. -q --quiet) are left to yargs; every other shape is taken.
    expect(accepted).toBeGreaterThan(200);
  });

  it('leaves everything else to yargs', () => {
    const others = [
      ['sessions'],
      ['sessions', 'show', 'x'],
      ['ask', 'q'],
      ['--home', '/h', 'sessions', 'ls'],
      ['sessions', 'ls', 'extra'],
      ['sessions', 'ls', '--limit', '5'],
      ['sessions', 'ls', '-n', '5'],
      ['sessions', 'ls', '--state', 'ok'],
      ['sessions', 'ls', '--help'],
      ['sessions', 'ls', '-h'],
      ['sessions', 'ls', '--json', '--json'],
      ['sessions', 'ls', '-q', '--quiet'],
      ['sessions', 'ls', '--json=false'],
      ['sessions', 'ls', '-o', 'bogus'],
      ['sessions', 'ls', '-o'],
      ['sessions', 'ls', '-o=json'],
      ['sessions', 'ls', '-oj'],
      ['sessions', 'ls', '--home'],
      ['sessions', 'ls', '--home', '--json'],
      ['sessions', 'ls', '--home='],
      ['sessions', 'ls', '--color'],
      ['sessions', 'ls', '--sim'],
      ['sessions', 'ls', '--'],
      ['sessions', 'ls', '-qj'],
    ];
    for (const args of others) expect(prescan(args), args.join(' ')).toBeUndefined();
  });
});
