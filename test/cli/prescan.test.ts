// The prescan answers the commands that opted in (`sessions ls`, `sessions show`, `ask`) without
// yargs; it must never read the words differently from yargs. The cases are generated from the
// same flag tables both parsers read: every flag of the command and every global one, in every
// spelling, with sample values and bad ones, once and repeated (the last one wins), around the
// command's positionals. Each is parsed both ways and the typed options compared (global and
// the command's own, with and without a config file, the parse steps' usage errors included),
// so a flag added to a table is held to yargs without anyone writing a list.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fastEntries, prescan, type FastEntry } from '../../src/cli/prescan.js';
import { FAST_ENTRIES, parseWords } from '../../src/cli/run-cli.js';
import type { CommandDef, ParsedArgv } from '../../src/commands/command.js';
import { GLOBAL_FLAGS, parseGlobalOptions } from '../../src/commands/global-options.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import { ask } from '../../src/commands/ask.js';
import type { FlagDef } from '../../src/commands/shared/flag-def.js';
import { STDIN_MARKER } from '../../src/input/prompt.js';
import type { LoadedConfig } from '../../src/run/config-file.js';

/** A config file's output and idle timeout apply only where no flag gave one, with either parser. */
const CONFIGURED: LoadedConfig = {
  path: '/c.json',
  exists: true,
  values: { output: 'json', idle_timeout: 30 },
  unknown: [],
  error: undefined,
};

/** The typed options, or the usage error the parse step gives (both parsers must agree on it too). */
function typed<O>(parse: (argv: ParsedArgv) => O, argv: ParsedArgv): O | { error: string } {
  try {
    return parse(argv);
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
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
function words(args: readonly string[]): string[] {
  return args.map((a) => (a === '-' ? STDIN_MARKER : a));
}

/** How yargs reads the words: the command it chose and the typed options, or its usage error. */
async function viaYargs(args: string[]): Promise<{ command: string; view: ReturnType<typeof typedAll> } | string> {
  const parsed = await parseWords(args, 100);
  if (parsed.error !== undefined) return `yargs: ${parsed.error.message}`;
  const selected = parsed.selected;
  if (selected === undefined) return 'yargs chose no command';
  return {
    command: selected.def.command,
    view: typedAll(selected.argv, (a) => parseCommandLine(selected.def, a).options),
  };
}

/**
 * Every disagreement between the prescan (reading `entries` and `globals`) and yargs (built from
 * the real tables) over `shapes`; `mustTake` are shapes the prescan has to accept.
 */
async function mismatches(
  shapes: readonly (readonly string[])[],
  mustTake: ReadonlySet<string>,
  entries: readonly FastEntry[] = FAST_ENTRIES,
  globals: readonly FlagDef[] = GLOBAL_FLAGS,
): Promise<{ found: string[]; accepted: number }> {
  const found: string[] = [];
  let accepted = 0;
  for (const shape of shapes) {
    const args = words(shape);
    const quick = prescan(args, entries, globals);
    const label = shape.join(' ');
    if (quick === undefined) {
      if (mustTake.has(label)) found.push(`${label}: left to yargs`);
      continue;
    }
    accepted++;
    const reference = await viaYargs(args);
    if (typeof reference === 'string') {
      found.push(`${label}: the prescan took it, ${reference}`);
      continue;
    }
    if (reference.command !== quick.def.command) {
      found.push(`${label}: the prescan chose ${quick.def.command}, yargs ${reference.command}`);
      continue;
    }
    try {
      expect(typedAll(quick.argv, (a) => parseCommandLine(quick.def, a).options)).toEqual(reference.view);
    } catch (err) {
      found.push(`${label}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  return { found, accepted };
}

/** The values the generated cases give a flag: two good ones (for a repeat) and bad ones. */
function samples(f: FlagDef): { good: [string, string]; bad: string[] } {
  if (f.choices !== undefined) {
    const [first = '', second = first] = [f.choices[f.choices.length - 1], f.choices[0]];
    return { good: [first, second], bad: ['bogus', ''] };
  }
  if (f.type === 'number') return { good: ['5', '12'], bad: ['0', 'abc', '1.5', '-1', '05', '1e3'] };
  const sample = f.sample ?? 'some value';
  return { good: [sample, `${sample}-2`], bad: ['', '-x', ' '] };
}

/** Each way to write one flag with one value, as separate words. */
function spellings(f: FlagDef, value: string | boolean): string[][] {
  const names = [
    `--${f.name}`,
    ...(f.alias === undefined ? [] : [f.alias.length === 1 ? `-${f.alias}` : `--${f.alias}`]),
  ];
  if (typeof value === 'boolean') return value ? names.map((n) => [n]) : [[`--no-${f.name}`]];
  return [...names.map((n) => [n, value]), [`--${f.name}=${value}`]];
}

interface Generated {
  shapes: string[][];
  /** The shapes every flag the fast path reads must be taken in: good values, every spelling. */
  mustTake: Set<string>;
}

/** The generated cases of one opted-in command, from the flag tables (`flags`: what yargs knows). */
function generate(entry: FastEntry, flags: readonly FlagDef[]): Generated {
  const shapes: string[][] = [];
  const mustTake = new Set<string>();
  const { words: head, def } = entry;
  const positional = def.fast?.positional ?? 'none';
  // The flag words alone, and around a positional, as the command takes them.
  const around = (flagWords: string[]): string[][] =>
    positional === 'prompt'
      ? [flagWords, [...flagWords, 'q'], ['Design a cache', ...flagWords, 'x']]
      : positional === 'id'
        ? [flagWords, ['20261130-3f9a2c1b', ...flagWords], [...flagWords, '2026']]
        : [flagWords];
  const add = (flagWords: string[], take: boolean): void => {
    for (const w of around(flagWords)) {
      const shape = [...head, ...w];
      shapes.push(shape);
      if (take) mustTake.add(shape.join(' '));
    }
  };
  for (const f of flags) {
    if (f.hidden === true || f.type === 'count') continue;
    const read = f.fast !== false;
    if (f.type === 'boolean') {
      for (const on of [true, false]) for (const w of spellings(f, on)) add(w, read);
      // Repeated: the last one wins.
      add([`--${f.name}`, `--no-${f.name}`], read);
      add([`--no-${f.name}`, `--${f.name}`], read);
      // yargs takes a `true` or `false` after a boolean as its value: the prescan leaves that to it.
      add([`--${f.name}`, 'false'], false);
      continue;
    }
    const { good, bad } = samples(f);
    for (const v of good) for (const w of spellings(f, v)) add(w, read);
    for (const v of bad) for (const w of spellings(f, v)) add(w, false);
    // Twice: a single-valued flag keeps the last value, a repeatable one both.
    const [first, second] = good;
    for (const a of spellings(f, first)) for (const b of spellings(f, second)) add([...a, ...b], read);
    add([`--${f.name}`], false);
  }
  return { shapes, mustTake };
}

function flagsOf(def: CommandDef, globals: readonly FlagDef[] = GLOBAL_FLAGS): FlagDef[] {
  return [...globals, ...(def.flags ?? [])];
}

describe('the prescan against yargs, cases generated from the flag tables', () => {
  it('opts in sessions ls, show, search and stats and ask, and nothing else', () => {
    expect(FAST_ENTRIES.map((e) => e.words.join(' '))).toEqual([
      'ask',
      'sessions ls',
      'sessions list',
      'sessions show',
      'sessions search',
      'sessions stats',
    ]);
  });

  for (const entry of FAST_ENTRIES) {
    const label = entry.words.join(' ');
    it(`${label}: every flag in every spelling, good and bad values, once and twice, read as yargs reads it`, async () => {
      const { shapes, mustTake } = generate(entry, flagsOf(entry.def));
      const { found, accepted } = await mismatches(shapes, mustTake);
      expect(found).toEqual([]);
      expect(accepted).toBeGreaterThanOrEqual(mustTake.size);
    });
  }

  // A flag the prescan read under a wrong key once passed the whole suite: the generated cases
  // must catch it. The mutated tables are run against yargs only on the shapes the mutation can
  // change (see `touching`), and the rest is shown, without yargs, to read exactly as before.
  it('fails when the prescan reads a table with a wrong key (a typo) or without a flag', async () => {
    const typo = {
      ...ask,
      flags: (ask.flags ?? []).map((f) => (f.name === 'max-tool-calls' ? { ...f, name: 'max-tool-call' } : f)),
    };
    const changed = changedFlags(flagsOf(ask), flagsOf(typo));
    expect(changed.map((f) => f.name).sort()).toEqual(['max-tool-call', 'max-tool-calls']);

    const generated = generate(fastEntries([], ask)[0] as FastEntry, flagsOf(ask));
    const touched = touching(generated.shapes, changed);
    expect(touched.length).toBeGreaterThan(0);
    expect(touched.length).toBeLessThan(generated.shapes.length / 10);
    expect(readsAlike(generated.shapes, changed, fastEntries([], typo))).toEqual([]);
    const withTypo = await mismatches(touched, generated.mustTake, fastEntries([], typo));
    expect(withTypo.found.length).toBeGreaterThan(0);
    expect(withTypo.found.every((m) => m.includes('--max-tool-calls'))).toBe(true);

    // The typo'd table's own cases: the prescan takes a spelling yargs refuses.
    const own = generate(fastEntries([], typo)[0] as FastEntry, flagsOf(typo));
    expect(readsAlike(own.shapes, changed, fastEntries([], typo))).toEqual([]);
    const fromTypo = await mismatches(touching(own.shapes, changed), new Set(), fastEntries([], typo));
    expect(fromTypo.found.some((m) => /max-tool-call\b.*Unknown argument/.test(m))).toBe(true);

    const globalTypo = GLOBAL_FLAGS.map((f) => (f.name === 'idle-timeout' ? { ...f, alias: 'i' } : f));
    const aliased = await mismatches([['ask', '-i', '5', 'q']], new Set(), FAST_ENTRIES, globalTypo);
    expect(aliased.found).toEqual([expect.stringContaining('Unknown argument')]);
  });

  it('counts a shape as touched by a changed flag when it writes the flag, or always when the flag has a default', () => {
    const flag: FlagDef = { name: 'max-tool-calls', type: 'number', describe: 'x' };
    const shapes = [
      ['ask', '--max-tool-calls', '5', 'q'],
      ['ask', '--max-tool-calls=5'],
      ['ask', '--no-save', 'q'],
      ['ask', 'q', '--max-tool-callsx'],
    ];
    expect(touching(shapes, [flag])).toEqual(shapes.slice(0, 2));
    expect(
      touching(shapes, [
        { ...flag, alias: 'k' },
        { ...flag, name: 'save', type: 'boolean' },
      ]),
    ).toEqual(shapes.slice(0, 3));
    expect(touching(shapes, [{ ...flag, default: 8 }])).toEqual(shapes);
    // A conflict names flags by name: a changed flag that is half of one touches the other's shapes too.
    expect(touching([['ask', '-p', 'x']], [flag], [['max-tool-calls', 'policy']])).toHaveLength(1);
  });
});

/**
 * The flags whose definitions differ between two tables (by name): a renamed flag is both its
 * old and its new definition.
 */
function changedFlags(before: readonly FlagDef[], after: readonly FlagDef[]): FlagDef[] {
  const differs = (f: FlagDef, other: readonly FlagDef[]) => !other.some((g) => isDeepStrictEqual(f, g));
  return [...before.filter((f) => differs(f, after)), ...after.filter((f) => differs(f, before))];
}

/**
 * The shapes whose reading a change to `changed` can alter. The prescan reads a table through
 * three doors (src/cli/prescan.ts): the spellings of the flags a shape writes, the defaults it
 * fills into every reading, and the command's conflicting pairs. So a shape is touched when it
 * writes a spelling of a changed flag (`--name`, `--name=…`, `--no-name`, the alias) or of the
 * other half of a conflict with one, and every shape is touched by a changed flag with a default.
 * `readsAlike` checks the claim on every shape left out, so a fourth door would fail the test
 * rather than hide a mutation.
 */
function touching(
  shapes: readonly (readonly string[])[],
  changed: readonly FlagDef[],
  conflicts: readonly (readonly [string, string])[] = ask.conflicts ?? [],
): string[][] {
  if (changed.some((f) => f.default !== undefined)) return shapes.map((s) => [...s]);
  const names = new Set(changed.map((f) => f.name));
  for (const [a, b] of conflicts) {
    if (names.has(a)) names.add(b);
    if (names.has(b)) names.add(a);
  }
  const all = [...GLOBAL_FLAGS, ...(ask.flags ?? []), ...changed].filter((f) => names.has(f.name));
  const spelled = new Set<string>();
  for (const f of all) {
    spelled.add(`--${f.name}`);
    spelled.add(`--no-${f.name}`);
    if (f.alias !== undefined) spelled.add(f.alias.length === 1 ? `-${f.alias}` : `--${f.alias}`);
  }
  const writes = (w: string) => spelled.has(w.startsWith('--') && w.includes('=') ? w.slice(0, w.indexOf('=')) : w);
  return shapes.filter((s) => s.some(writes)).map((s) => [...s]);
}

/**
 * The shapes `touching` leaves out that the prescan reads differently under `mutated` than under
 * the real tables (which the generated matrix above holds to yargs): none, or the filter is unsound.
 */
function readsAlike(
  shapes: readonly (readonly string[])[],
  changed: readonly FlagDef[],
  mutated: readonly FastEntry[],
): string[] {
  const touched = new Set(touching(shapes, changed).map((s) => s.join('\u0001')));
  const differ: string[] = [];
  for (const shape of shapes) {
    if (touched.has(shape.join('\u0001'))) continue;
    const args = words(shape);
    const real = prescan(args, FAST_ENTRIES);
    const other = prescan(args, mutated);
    if (!isDeepStrictEqual(real?.argv, other?.argv) || real?.def.parse !== other?.def.parse) {
      differ.push(shape.join(' '));
    }
  }
  return differ;
}

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

describe('the prescan of words that are not flags', () => {
  it('reads prompt words, ids and what follows -- as yargs does', async () => {
    const shapes: string[][] = [
      ...PROMPTS.map((w) => ['ask', ...w]),
      ...PROMPTS.map((w) => ['ask', '-q', '-o', 'final', '--url', 'http://127.0.0.1:1/v1', ...w]),
      // Everything after `--` is the prompt's, also what looks like a flag.
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
      ['sessions', 'show', '2026'],
      ['sessions', 'show', '--last'],
      ['sessions', 'show', '2026', '--last'],
      ['sessions', 'show', '-s', '2026', '--json'],
      ['sessions', 'show', '2026', '-s', '2027'],
      ['sessions', 'show', '-s', 'a', '--last'],
      ['sessions', 'ls', '-n', '5', '--limit', '6'],
      ['ask', '-m', 'a', '-m', 'b', 'q'],
      ['ask', '--tool', 'a=b', '--tool', 'c=d', 'q'],
    ];
    const { found, accepted } = await mismatches(shapes, new Set());
    expect(found).toEqual([]);
    expect(accepted).toBeGreaterThan(50);
  });

  it("takes the shapes of README's examples and of the one-shot benchmark", () => {
    const taken = [
      ['sessions', 'ls'],
      ['sessions', 'list', '--json'],
      ['sessions', 'show', '--last', '--rounds'],
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
      ['ask', '-o', 'final', 'x', '-o', 'json'],
      ['ask', '-p', 'fast', '-p', 'deep', 'x'],
    ];
    for (const args of taken) expect(prescan(words(args), FAST_ENTRIES), args.join(' ')).toBeDefined();
  });

  it('leaves everything else to yargs', () => {
    const others = [
      ['sessions'],
      ['--home', '/h', 'sessions', 'ls'],
      ['sessions', 'ls', 'extra'],
      ['sessions', 'ls', '-n5'],
      ['sessions', 'ls', '--limit=1234567890'],
      ['sessions', 'ls', '-p', '--json'],
      ['sessions', 'ls', '--last'],
      ['sessions', 'ls', '--rounds'],
      ['sessions', 'show', 'a', 'b'],
      ['sessions', 'show', '-'],
      ['sessions', 'show', '\u0000nsed-stdin'],
      ['sessions', 'show', ''],
      ['sessions', 'show', '--help'],
      ['sessions', 'show', 'a', '-h'],
      ['sessions', 'show', '--ids'],
      ['sessions', 'show', '--', 'a'],
      ['sessions', 'show', '-x'],
      ['sessions', 'export', 'a'],
      ['sessions', 'rm', 'a'],
      ['sessions', 'ls', '--help'],
      ['sessions', 'ls', '-h'],
      ['sessions', 'ls', '--json=false'],
      ['sessions', 'ls', '-o=json'],
      ['sessions', 'ls', '-oj'],
      ['sessions', 'ls', '--'],
      ['sessions', 'ls', '-qj'],
      ['sessions', 'show', 'constructor', 'toString'],
      ['sessions', 'ls', 'constructor'],
      ['sessions', 'ls', '__proto__'],
      ['sessions', 'show', 'help'],
      ['sessions', 'show', 'help', '--json'],
      ['ask', '--help'],
      ['ask', 'q', '-h'],
      ['ask', '-V'],
      ['ask', '--version'],
      ['-q', 'ask', 'q'],
      ['--sim', 'ask', 'q'],
      ['ASK', 'q'],
      ['ask', '-p', 'a', '-m', 'b', 'q'],
      ['ask', '--model', 'b', '--policy', 'a'],
      ['ask', '--bogus'],
      ['ask', '--bogus-flag', 'q'],
      ['ask', '-x'],
      ['ask', '-5'],
      ['ask', 'q', '-1.5'],
      ['ask', ''],
      ['ask', 'q', ''],
      ['ask', '--sim', 'true', 'q'],
      ['ask', '--ask-user=true'],
      ['ask', '--sim=1'],
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
      ['ask', '-qo', 'final'],
      // yargs reads a last positional `help` as --help.
      ['ask', 'help'],
      ['ask', 'why', 'help'],
      ['ask', '-q', 'help', '--', 'x'],
      ['ask', 'help', '-p', 'fast'],
      ['continue', '--last', 'q'],
      ['sim'],
    ];
    for (const args of others) expect(prescan(words(args), FAST_ENTRIES), args.join(' ')).toBeUndefined();
  });

  it('leaves a flag marked fast: false to yargs in every spelling', () => {
    const marked = {
      ...ask,
      flags: (ask.flags ?? []).map((f) => (f.name === 'title' ? { ...f, fast: false as const } : f)),
    };
    const entries = fastEntries([], marked);
    expect(prescan(['ask', '--title', 't', 'q'], entries)).toBeUndefined();
    expect(prescan(['ask', '--title=t', 'q'], entries)).toBeUndefined();
    expect(prescan(['ask', '--system', 't', 'q'], entries)).toBeDefined();
  });
});
