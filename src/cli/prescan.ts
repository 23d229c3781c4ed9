import type { ParsedArgv } from '../commands/command.js';
import { OUTPUT_MODES } from '../output/modes.js';
import { SESSION_STATES } from '../session/store.js';

/** The subcommands of `nsed sessions` the prescan reads (the words a shell loop or a completion runs). */
export type PrescannedCommand = 'ls' | 'show';

/**
 * The words of `nsed sessions ls` and `nsed sessions show ID|--last` as yargs would parse them,
 * for the plain shapes a shell completion or a CI loop runs; anything else (another command,
 * another flag, a repeated flag, `--help`) gives undefined and goes to yargs. Loading and
 * building the yargs parser was a third of an empty `sessions ls` (bench/RESULTS.md).
 * test/cli/prescan.test.ts holds this to the yargs definitions: for every shape accepted here,
 * the typed options equal those of the yargs parse.
 */
export function prescan(args: readonly string[]): ParsedArgv | undefined {
  const command = prescannedCommand(args);
  if (command === undefined) return undefined;
  // The defaults yargs fills in: the global options' and the command's. Output and the idle
  // timeout have none, so that the config file can supply them when no flag does.
  const argv: Record<string, unknown> = {
    _: ['sessions', args[1]],
    quiet: false,
    verbose: false,
    color: true,
    sim: false,
    json: false,
    ...(command === 'ls' ? { ids: false } : { rounds: false }),
  };
  const seen = new Set<string>();
  const once = (key: string): boolean => {
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  for (let i = 2; i < args.length; i++) {
    const arg = args[i] ?? '';
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const next = (): string | undefined => {
      if (eq !== -1) return arg.slice(eq + 1);
      const v = args[i + 1];
      if (v === undefined || v === '' || v.startsWith('-')) return undefined;
      i++;
      return v;
    };
    const key = FLAGS[command][flag];
    if (key === undefined) {
      // The one positional of `show [id]`; a second one, or one that could be a flag or the
      // stdin marker, is yargs' to judge.
      if (command !== 'show' || arg === '' || arg.startsWith('-') || arg.startsWith('\u0000') || !once('id'))
        return undefined;
      argv['id'] = arg;
      continue;
    }
    if (!once(key)) return undefined;
    if (BOOLEANS.has(key)) {
      if (eq !== -1) return undefined;
      argv[key] = key !== 'color';
      continue;
    }
    const v = next();
    if (v === undefined || VALUES[key]?.(v) !== true) return undefined;
    argv[key] = key === 'limit' ? Number(v) : v;
  }
  return argv;
}

/** `ls` or `show` when the words start with that subcommand, else undefined. */
export function prescannedCommand(args: readonly string[]): PrescannedCommand | undefined {
  if (args[0] !== 'sessions') return undefined;
  if (args[1] === 'ls' || args[1] === 'list') return 'ls';
  return args[1] === 'show' ? 'show' : undefined;
}

const GLOBAL_FLAGS: Record<string, string> = {
  '-q': 'quiet',
  '--quiet': 'quiet',
  '--no-color': 'color',
  '--home': 'home',
  '-o': 'output',
  '--output': 'output',
};

/** Each accepted spelling and the argv key it sets; `--no-color` sets color to false. */
const FLAGS: Record<PrescannedCommand, Record<string, string>> = {
  ls: {
    ...GLOBAL_FLAGS,
    '--json': 'json',
    '--ids': 'ids',
    '-n': 'limit',
    '--limit': 'limit',
    '--state': 'state',
    '-p': 'policy',
    '--policy': 'policy',
  },
  show: { ...GLOBAL_FLAGS, '--json': 'json', '--rounds': 'rounds', '--last': 'last' },
};

const BOOLEANS = new Set(['quiet', 'color', 'json', 'ids', 'rounds', 'last']);

// Only values yargs reads as they are written: a plain decimal count (yargs would turn `1e3`
// or `0x10` into numbers too, and `abc` into NaN), a state or output mode from its list.
const VALUES: Record<string, (v: string) => boolean> = {
  home: (v) => v !== '',
  output: (v) => OUTPUT_MODES.some((m) => m === v),
  limit: (v) => /^[1-9][0-9]{0,8}$/.test(v),
  state: (v) => SESSION_STATES.some((s) => s === v),
  policy: (v) => v !== '' && !v.startsWith('-'),
};
