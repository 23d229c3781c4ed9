import type { ParsedArgv } from '../commands/command.js';
import { OUTPUT_MODES } from '../output/modes.js';
import { SESSION_STATES } from '../session/index.js';

/** The commands whose plain shapes the prescan reads: what a shell loop, a completion or a CI step runs. */
export type PrescannedCommand = 'ls' | 'show' | 'ask';

/**
 * The words of `nsed sessions ls`, `nsed sessions show ID|--last` and `nsed ask [WORDS…]` as
 * yargs would parse them, for their plain shapes; anything else (another command, another flag,
 * a repeated flag, `--help`, a value that yargs would read in a way of its own) gives undefined
 * and goes to yargs. Loading and building the yargs parser was a third of an empty `sessions ls`
 * and the largest single item of a one-shot `ask` (bench/RESULTS.md).
 * test/cli/prescan.test.ts holds this to the yargs definitions: for every shape accepted here,
 * the typed options equal those of the yargs parse.
 */
export function prescan(args: readonly string[]): ParsedArgv | undefined {
  const command = prescannedCommand(args);
  if (command === undefined) return undefined;
  const spec = SPECS[command];
  // The defaults yargs fills in: the global options' and the command's. Output and the idle
  // timeout have none, so that the config file can supply them when no flag does.
  const argv: Record<string, unknown> = { _: args.slice(0, spec.words), ...GLOBAL_DEFAULTS, ...spec.defaults };
  const prompt: string[] = [];
  const seen = new Set<string>();
  const once = (key: string): boolean => {
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  for (let i = spec.words; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      // Every word after it is the prompt's, as it is (yargs keeps them apart under '--'); `show`
      // takes none.
      if (spec.positional !== 'prompt') return undefined;
      const rest = args.slice(i + 1);
      if (rest.length > 0) argv['--'] = rest;
      break;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    // Own keys only: a prompt word such as `constructor` is no flag.
    const flag = Object.hasOwn(spec.flags, name) ? spec.flags[name] : undefined;
    if (flag === undefined) {
      // A positional: the one id of `show`, the words of `ask`. One that could be a flag, a
      // second id, the stdin marker as an id, or an empty word is yargs' to judge.
      if (arg === '' || arg.startsWith('-')) return undefined;
      if (spec.positional === 'prompt') prompt.push(arg);
      else if (spec.positional === 'id' && !arg.startsWith('\u0000') && once('id')) argv['id'] = arg;
      else return undefined;
      continue;
    }
    const [key, kind] = flag;
    if (!once(key)) return undefined;
    if (kind === 'true' || kind === 'false') {
      // yargs takes a `true` or `false` after a boolean flag as its value (`--json false`).
      const after = args[i + 1];
      if (eq !== -1 || after === 'true' || after === 'false') return undefined;
      argv[key] = kind === 'true';
      continue;
    }
    let v: string | undefined;
    if (eq !== -1) v = arg.slice(eq + 1);
    else if ((v = args[i + 1]) !== undefined) i++;
    if (v === undefined || !VALUES[kind](v)) return undefined;
    argv[key] = kind === 'count' ? Number(v) : v;
  }
  // yargs refuses both (`.conflicts`); its message is the one to print.
  if (seen.has('model') && seen.has('policy')) return undefined;
  // yargs reads a last positional `help` as --help (`nsed ask why help`, `sessions show help`).
  if (prompt[prompt.length - 1] === 'help' || argv['id'] === 'help') return undefined;
  if (spec.positional === 'prompt') argv['prompt'] = prompt;
  return argv;
}

/** The command the words start with, when the prescan knows it, else undefined. */
export function prescannedCommand(args: readonly string[]): PrescannedCommand | undefined {
  if (args[0] === 'ask') return 'ask';
  if (args[0] !== 'sessions') return undefined;
  if (args[1] === 'ls' || args[1] === 'list') return 'ls';
  return args[1] === 'show' ? 'show' : undefined;
}

/**
 * What a flag does: `true` and `false` set a boolean (`--no-color` sets color to false); the
 * others take a value, in the next word or after `=`, checked by VALUES.
 */
type Kind = 'true' | 'false' | 'string' | 'output' | 'state' | 'count';

interface Spec {
  /** How many words name the command (`ask`, `sessions ls`). */
  words: number;
  positional: 'none' | 'id' | 'prompt';
  defaults: Record<string, unknown>;
  flags: Record<string, readonly [key: string, kind: Kind]>;
}

const GLOBAL_DEFAULTS = { quiet: false, verbose: false, color: true, sim: false };

const GLOBAL_FLAGS: Spec['flags'] = {
  '-q': ['quiet', 'true'],
  '--quiet': ['quiet', 'true'],
  '--no-color': ['color', 'false'],
  '--home': ['home', 'string'],
  '-o': ['output', 'output'],
  '--output': ['output', 'output'],
};

/** Each accepted spelling and the argv key it sets. */
const SPECS: Record<PrescannedCommand, Spec> = {
  ls: {
    words: 2,
    positional: 'none',
    defaults: { json: false, ids: false },
    flags: {
      ...GLOBAL_FLAGS,
      '--json': ['json', 'true'],
      '--ids': ['ids', 'true'],
      '-n': ['limit', 'count'],
      '--limit': ['limit', 'count'],
      '--state': ['state', 'state'],
      '-p': ['policy', 'string'],
      '--policy': ['policy', 'string'],
    },
  },
  show: {
    words: 2,
    positional: 'id',
    defaults: { json: false, rounds: false },
    flags: { ...GLOBAL_FLAGS, '--json': ['json', 'true'], '--rounds': ['rounds', 'true'], '--last': ['last', 'true'] },
  },
  // The flags of README's examples and of scripts: the global ones and the turn flags, each in
  // its documented spelling; `--color`, `--save`, `--no-sim` and the like are left to yargs.
  ask: {
    words: 1,
    positional: 'prompt',
    defaults: { save: true, stream: true },
    flags: {
      ...GLOBAL_FLAGS,
      '--verbose': ['verbose', 'true'],
      '--sim': ['sim', 'true'],
      '--url': ['url', 'string'],
      '--token-file': ['token-file', 'string'],
      '--timeout': ['timeout', 'count'],
      '--idle-timeout': ['idle-timeout', 'count'],
      '-p': ['policy', 'string'],
      '--policy': ['policy', 'string'],
      '-m': ['model', 'string'],
      '--model': ['model', 'string'],
      '--system': ['system', 'string'],
      '--title': ['title', 'string'],
      '--no-save': ['save', 'false'],
      '--no-stream': ['stream', 'false'],
      '--agents': ['agents', 'string'],
      '--rounds': ['rounds', 'count'],
      '--tools': ['tools', 'string'],
      '--tool': ['tool', 'string'],
      '--ask-user': ['ask-user', 'true'],
      '--max-tool-calls': ['max-tool-calls', 'count'],
    },
  },
};

// Only values yargs reads as they are written: a plain decimal count (yargs would turn `1e3`,
// `05` or `0x10` into numbers too, and `abc` into NaN), a state or output mode from its list, a
// string that cannot be taken for a flag or the stdin marker.
const VALUES: Record<Exclude<Kind, 'true' | 'false'>, (v: string) => boolean> = {
  string: (v) => v !== '' && !v.startsWith('-') && !v.startsWith('\u0000'),
  output: (v) => OUTPUT_MODES.some((m) => m === v),
  state: (v) => SESSION_STATES.some((s) => s === v),
  count: (v) => /^[1-9][0-9]{0,8}$/.test(v),
};
