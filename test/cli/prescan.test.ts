// The prescan answers `sessions ls`, `sessions show` and `ask` without yargs; it must never read
// the words differently from the yargs definitions. Every shape it accepts is parsed both ways
// here and the typed options (global and the command's own) compared, the config file's
// defaults and the usage errors of the parse steps included.
import { describe, expect, it } from 'vitest';
import { prescan } from '../../src/cli/prescan.js';
import { parseWords } from '../../src/cli/run-cli.js';
import { parseGlobalOptions } from '../../src/commands/global-options.js';
import type { ParsedArgv } from '../../src/commands/command.js';
import type { LoadedConfig } from '../../src/config-file.js';
import { ask } from '../../src/commands/ask.js';
import { STDIN_MARKER } from '../../src/commands/shared/prompt.js';
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
  return { command: selected.def.command, ...typedAll(selected.argv, selected.def.parse) };
}

/** What the run gets from these words: the global options, with and without a config file, and the command's. */
function typedAll(argv: ParsedArgv, parse: (argv: ParsedArgv) => unknown) {
  return {
    globals: typed((a) => parseGlobalOptions(a), argv),
    configured: typed((a) => parseGlobalOptions(a, CONFIGURED), argv),
    options: typed(parse, argv),
  };
}

/** runCli's first step: a lone `-` becomes the stdin marker before either parser sees the words. */
function words(args: string[]): string[] {
  return args.map((a) => (a === '-' ? STDIN_MARKER : a));
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
      expect(typedAll(quick, def.parse), args.join(' ')).toEqual({
        globals: yargsView.globals,
        configured: yargsView.configured,
        options: yargsView.options,
      });
    }
    // Repeats of one flag (e.g. -q --quiet, -n 5 --limit 1, two ids) are left to yargs; every
    // other shape is taken.
    expect(accepted).toBeGreaterThan(250);
  });

  it('leaves everything else to yargs', () => {
    const others = [
      ['sessions'],
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
      // yargs takes the word after a boolean flag as its value when it is `true` or `false`.
      ['sessions', 'show', '--json', 'false'],
      ['sessions', 'show', '--last', 'true'],
      ['sessions', 'show', 'a', '--rounds', 'false'],
      ['sessions', 'ls', '--ids', 'true'],
      ['sessions', 'ls', '-q', 'false'],
      ['sessions', 'show', 'constructor', 'toString'],
      ['sessions', 'ls', 'constructor'],
      ['sessions', 'ls', '__proto__'],
      ['sessions', 'show', 'help'],
      ['sessions', 'show', 'help', '--json'],
    ];
    for (const args of others) expect(prescan(args), args.join(' ')).toBeUndefined();
  });
});

/** Each flag of `ask` the prescan reads, in every spelling, and values its parse step refuses. */
const ASK_GROUPS: string[][] = [
  ['-q'],
  ['--quiet'],
  ['--verbose'],
  ['--no-color'],
  ['--sim'],
  ['--home', '/tmp/nsed home'],
  ['--home=/tmp/h=1'],
  ['-o', 'final'],
  ['-o', 'ndjson'],
  ['--output', 'json'],
  ['--output=text'],
  ['--url', 'http://127.0.0.1:8080/v1'],
  ['--url=http://h/?a=b'],
  ['--token-file', '/run/secrets/nsed token'],
  ['--timeout', '300'],
  ['--timeout=1'],
  ['--idle-timeout', '30'],
  ['-p', 'deep'],
  ['--policy', 'nsed:fast'],
  [`--policy=${'a1'.repeat(32)}`],
  ['-p', '5'],
  ['-p', 'true'],
  ['-p', ' '],
  ['-m', 'llama3.2'],
  ['--model=gpt-4o-mini'],
  ['--system', 'Answer in three bullet points'],
  ['--title', 'cache review'],
  ['--title=a=b'],
  ['--no-save'],
  ['--no-stream'],
  ['--agents', 'CortexA,CortexB'],
  ['--agents', 'OnlyOne'],
  ['--agents=A, B ,C'],
  ['--rounds', '2'],
  ['--rounds', '101'],
  ['--tools', 'tools.json'],
  ['--tool', 'calculator=./calc.js'],
  ['--ask-user'],
  ['--max-tool-calls', '5'],
  ['--max-tool-calls=1001'],
];

/** Prompt words, among them ones yargs might read as something else (numbers, commands, keys of an object). */
const PROMPTS: string[][] = [
  [],
  ['q'],
  ['What is the answer?'],
  ['review', 'this:', '-'],
  ['-'],
  ['-', '-'],
  ['42', '1e3', '0x10', 'NaN'],
  ['true'],
  ['false', 'x'],
  ['constructor', '__proto__', 'toString', 'hasOwnProperty'],
  ['help', 'me'],
  ['please', 'help', 'x'],
  ['version', 'completion'],
  ['h'],
  ['sessions', 'ls'],
  ['ask'],
  ['a.b', 'c=d', 'ü ✓', 'x-y'],
  ['line one\nline two'],
  [' '],
];

function askShapes(): string[][] {
  const out: string[][] = PROMPTS.map((w) => ['ask', ...w]);
  for (const w of PROMPTS) out.push(['ask', '-q', '-o', 'final', '--url', 'http://127.0.0.1:1/v1', ...w]);
  ASK_GROUPS.forEach((a, i) => {
    out.push(['ask', ...a], ['ask', ...a, 'q'], ['ask', 'Design a cache', ...a]);
    // Each pair once, with a prompt word between them and one after.
    ASK_GROUPS.forEach((b, j) => {
      if (j > i) out.push(['ask', ...a, 'Design', ...b, 'a cache']);
    });
  });
  // Everything after `--` is the prompt's, also what looks like a flag.
  out.push(
    ['ask', '-p', 'fast', '--', '-x', 'is', 'a', 'flag?'],
    ['ask', '--', '-q'],
    ['ask', 'a', '--'],
    ['ask', '--'],
    ['ask', '--', '--'],
    ['ask', 'a', '--', 'b', '--', 'c'],
    ['ask', 'a', '--', '-'],
    ['ask', '-q', '--', ''],
    ['ask', '--', 'true', '--help', '-p', 'x'],
    ['ask', '--no-save', '--', 'false'],
    ['ask', 'a', '--', 'help'],
  );
  return out;
}

describe('prescan of ask', () => {
  it('reads every shape it accepts exactly as the yargs definitions do', async () => {
    let accepted = 0;
    for (const shape of askShapes()) {
      const args = words(shape);
      const quick = prescan(args);
      if (quick === undefined) continue;
      accepted++;
      const yargsView = await viaYargs(args);
      expect(yargsView.command, shape.join(' ')).toBe(ask.command);
      expect(typedAll(quick, ask.parse), shape.join(' ')).toEqual({
        globals: yargsView.globals,
        configured: yargsView.configured,
        options: yargsView.options,
      });
    }
    // Left to yargs here: a flag given twice (in two spellings or with two values), -m with -p, a
    // last word `help`.
    expect(accepted).toBeGreaterThan(850);
  });

  it("takes the shapes of README's examples and of the one-shot benchmark", () => {
    const taken = [
      ['ask', '-q', '-o', 'final', '--url', 'http://127.0.0.1:1/v1', 'What is the answer?'],
      ['ask', '--sim', 'Design a cache for a read-heavy API'],
      ['ask', '-p', 'deep', '-o', 'final', 'Design a cache for a read-heavy API'],
      ['ask', '-p', 'fast', '-o', 'final'],
      ['ask', '-o', 'final', '-p', 'fast', 'What should we check first, given:', '-'],
      ['ask', '-p', 'fast', '--system', 'Answer in three bullet points', '--title', 'cache review', '-o', 'final', 'x'],
      ['ask', '-p', 'fast', '--', '-x', 'is', 'a', 'flag?'],
      ['ask', 'review this:', '-'],
      ['ask', '-p', 'fast', '--tools', 'tools.json', '-o', 'final', 'Use the calculator to compute 2+2'],
      ['ask', '-p', 'fast', '--tool', 'calculator=./calc.js', 'Use the calculator to compute 2+2'],
      ['ask', '--agents', 'CortexA,CortexB', '--rounds', '2', '--tools', 'offer.json', '-o', 'ndjson', 'x'],
      ['ask', '--no-save', '-q', '-p', 'fast', '-o', 'final', 'Summarise the release notes'],
      ['ask', '--no-save', '--verbose', '-p', 'fast', '-o', 'final', 'ping'],
      ['ask', '--token-file', 'token.txt', '-p', 'fast', '-o', 'final', 'Which token file am I using?'],
      ['ask', '-m', 'llama3.2', '--url', 'http://localhost:11434', 'hello'],
      ['ask', '--url', 'http://127.0.0.1:1', '-o', 'ndjson', '-p', 'fast', 'Test the reconnect path'],
    ];
    for (const args of taken) expect(prescan(words(args)), args.join(' ')).toBeDefined();
  });

  it('leaves everything else to yargs', () => {
    const others = [
      ['ask', '--help'],
      ['ask', 'q', '-h'],
      ['ask', '-V'],
      ['ask', '--version'],
      ['-q', 'ask', 'q'],
      ['--sim', 'ask', 'q'],
      ['ASK', 'q'],
      ['ask', '-p', 'a', '-m', 'b', 'q'],
      ['ask', '--model', 'b', '--policy', 'a'],
      ['ask', '-p', 'a', '--policy', 'b'],
      ['ask', '--tool', 'a=b', '--tool', 'c=d', 'q'],
      ['ask', '-q', '-q'],
      ['ask', '-q', '--quiet'],
      ['ask', '--no-save', '--no-save'],
      ['ask', '--sim', '--sim'],
      ['ask', '--bogus'],
      ['ask', '--bogus-flag', 'q'],
      ['ask', '-x'],
      ['ask', '-5'],
      ['ask', 'q', '-1.5'],
      ['ask', ''],
      ['ask', 'q', ''],
      ['ask', '--sim', 'true', 'q'],
      ['ask', '-q', 'false', 'q'],
      ['ask', '--no-save', 'true'],
      ['ask', '--ask-user', 'false'],
      ['ask', '--ask-user=true'],
      ['ask', '--no-color=false'],
      ['ask', '--sim=1'],
      ['ask', '--timeout', '0'],
      ['ask', '--timeout', '1.5'],
      ['ask', '--timeout', '05'],
      ['ask', '--timeout', '1e3'],
      ['ask', '--timeout', '0x10'],
      ['ask', '--timeout', 'abc'],
      ['ask', '--timeout', '-1'],
      ['ask', '--idle-timeout', '1234567890'],
      ['ask', '--rounds'],
      ['ask', '--max-tool-calls', '0'],
      ['ask', '-p'],
      ['ask', '-p', '--sim'],
      ['ask', '-p', ''],
      ['ask', '-p', '-'],
      ['ask', '--policy='],
      ['ask', '--policy=-x'],
      ['ask', '--url', '-x'],
      ['ask', '--url=', 'q'],
      ['ask', '--system'],
      ['ask', '--home', '--sim'],
      ['ask', '-o', 'bogus'],
      ['ask', '-o'],
      ['ask', '-o=final'],
      ['ask', '-qo', 'final'],
      ['ask', '-o', 'final', '--output', 'json'],
      ['ask', '--color'],
      ['ask', '--save'],
      ['ask', '--stream'],
      ['ask', '--no-sim'],
      ['ask', '--no-quiet'],
      ['ask', '--no-ask-user'],
      ['ask', '--no-policy'],
      ['ask', '--json'],
      ['ask', '--ids'],
      ['ask', '-n', '5'],
      ['ask', '--last'],
      ['ask', '-s'],
      ['ask', '--Policy', 'x'],
      ['ask', '--idle_timeout', '30'],
      ['ask', '--idleTimeout', '30'],
      ['ask', '--tool-result', 'x'],
      ['ask', '--agents'],
      // yargs reads a last positional `help` as --help.
      ['ask', 'help'],
      ['ask', 'why', 'help'],
      ['ask', '-q', 'help', '--', 'x'],
      ['ask', 'help', '-p', 'fast'],
    ];
    for (const args of others) expect(prescan(words(args)), args.join(' ')).toBeUndefined();
  });
});
