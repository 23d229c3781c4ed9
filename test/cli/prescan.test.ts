// The prescan answers `sessions ls` and `sessions show` without yargs; it must never read the
// words differently from the yargs definitions. Every shape it accepts is parsed both ways here
// and the typed options (global and the command's own) compared.
import { describe, expect, it } from 'vitest';
import { prescan } from '../../src/cli/prescan.js';
import { parseWords } from '../../src/cli/run-cli.js';
import { parseGlobalOptions } from '../../src/commands/global-options.js';
import type { ParsedArgv } from '../../src/commands/command.js';
import type { LoadedConfig } from '../../src/config-file.js';
import { ls } from '../../src/commands/sessions/ls.js';
import { show } from '../../src/commands/sessions/show.js';

const GLOBAL: string[][] = [
  ['--json'],
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

const GROUPS: Record<'ls' | 'show', string[][]> = {
  ls: [
    ...GLOBAL,
    ['--ids'],
    ['-n', '5'],
    ['--limit', '1'],
    ['--limit=20'],
    ['--state', 'interrupted'],
    ['--state=ok'],
    ['-p', 'deep'],
    ['--policy', 'nsed:deep'],
    ['--policy=nsed:fast'],
  ],
  show: [...GLOBAL, ['--rounds'], ['--last'], ['20261130-3f9a2c1b'], ['2026']],
};

function shapes(): string[][] {
  const out: string[][] = [];
  for (const verb of ['ls', 'list', 'show']) {
    const groups = GROUPS[verb === 'show' ? 'show' : 'ls'];
    out.push(['sessions', verb]);
    groups.forEach((a, i) => {
      out.push(['sessions', verb, ...a]);
      // `list` is `ls` by another name: its flags once each are enough. Each pair once, in
      // both orders only for the id and --last of show (a positional before or after a flag).
      if (verb === 'list') return;
      groups.forEach((b, j) => {
        const order = verb === 'show' && (a[0] === '--last' || b[0] === '--last' || !a[0]?.startsWith('-'));
        if (j > i || (j < i && order)) out.push(['sessions', verb, ...a, ...b]);
      });
    });
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
    options: typed((argv) => selected.def.parse(argv), selected.argv),
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

/** The typed options, or the usage error the command's parse gives (both parsers must agree on it too). */
function typed<O>(parse: (argv: ParsedArgv) => O, argv: ParsedArgv): O | { error: string } {
  try {
    return parse(argv);
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

describe('prescan of sessions ls and show', () => {
  it('reads every shape it accepts exactly as the yargs definitions do', async () => {
    const all = shapes();
    let accepted = 0;
    for (const args of all) {
      const quick: ParsedArgv | undefined = prescan(args);
      if (quick === undefined) continue;
      accepted++;
      const yargsView = await viaYargs(args);
      const def = args[1] === 'show' ? show : ls;
      expect(yargsView.command, args.join(' ')).toBe(def.command);
      expect(
        {
          globals: parseGlobalOptions(quick),
          configured: parseGlobalOptions(quick, CONFIGURED),
          options: typed((argv) => def.parse(argv), quick),
        },
        args.join(' '),
      ).toEqual({ globals: yargsView.globals, configured: yargsView.configured, options: yargsView.options });
    }
    // Repeats of one flag (e.g. -q --quiet, -n 5 --limit 1, two ids) are left to yargs; every
    // other shape is taken.
    expect(accepted).toBeGreaterThan(250);
  });

  it('leaves everything else to yargs', () => {
    const others = [
      ['sessions'],
      ['ask', 'q'],
      ['--home', '/h', 'sessions', 'ls'],
      ['sessions', 'ls', 'extra'],
      ['sessions', 'ls', '--limit', '0'],
      ['sessions', 'ls', '-n', '05'],
      ['sessions', 'ls', '-n', '1e3'],
      ['sessions', 'ls', '-n', '0x10'],
      ['sessions', 'ls', '-n', 'abc'],
      ['sessions', 'ls', '-n', '-1'],
      ['sessions', 'ls', '-n'],
      ['sessions', 'ls', '-n5'],
      ['sessions', 'ls', '--limit=1234567890'],
      ['sessions', 'ls', '--state', 'bogus'],
      ['sessions', 'ls', '--state'],
      ['sessions', 'ls', '-p'],
      ['sessions', 'ls', '-p', '--json'],
      ['sessions', 'ls', '--policy='],
      ['sessions', 'ls', '-n', '5', '--limit', '6'],
      ['sessions', 'ls', '--last'],
      ['sessions', 'ls', '--rounds'],
      ['sessions', 'show', 'a', 'b'],
      ['sessions', 'show', 'a', '--last', '--last'],
      ['sessions', 'show', '-'],
      ['sessions', 'show', '\u0000nsed-stdin'],
      ['sessions', 'show', ''],
      ['sessions', 'show', '--help'],
      ['sessions', 'show', 'a', '-h'],
      ['sessions', 'show', '--ids'],
      ['sessions', 'show', '-n', '5'],
      ['sessions', 'show', '--last=true'],
      ['sessions', 'show', '--', 'a'],
      ['sessions', 'show', '-x'],
      ['sessions', 'export', 'a'],
      ['sessions', 'rm', 'a'],
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
