import type { CommandDef, ParsedArgv } from '../commands/command.js';
import { GLOBAL_FLAGS } from '../commands/global-options.js';
import type { FlagDef } from '../commands/shared/flag-def.js';
import { STDIN_MARKER } from '../input/prompt.js';
import { missingValue } from './missing-value.js';

/** A command the fast path may read, by the words that name it (`['sessions', 'ls']`). */
export interface FastEntry {
  words: readonly string[];
  def: CommandDef;
}

/** The entries of a command that opted in (CommandDef.fast): one per name and alias. */
export function fastEntries(parents: readonly string[], def: CommandDef): FastEntry[] {
  if (def.fast === undefined) return [];
  const name = def.command.split(' ')[0] ?? '';
  return [name, ...(def.aliases ?? [])].map((n) => ({ words: [...parents, n], def }));
}

/**
 * The words of an opted-in command (`nsed sessions ls`, `nsed sessions show ID|--last`,
 * `nsed ask [WORDS…]`) as yargs would parse them, for their plain shapes, read from the same
 * flag tables yargs is built from; anything else (another command, an unknown flag, `--help`, a
 * value that yargs would read in a way of its own) gives undefined and goes to yargs. Loading
 * and building the yargs parser was a third of an empty `sessions ls` and the largest single
 * item of a one-shot `ask` (docs/performance.md). test/cli/prescan.test.ts generates its cases
 * from the tables: every flag in every spelling, with a good and a bad value, both parsers,
 * the same typed options.
 */
export function prescan(
  args: readonly string[],
  entries: readonly FastEntry[],
  globals: readonly FlagDef[] = GLOBAL_FLAGS,
): { def: CommandDef; argv: ParsedArgv } | undefined {
  const entry = entries.find((e) => e.words.every((w, i) => args[i] === w));
  const shape = entry?.def.fast;
  if (entry === undefined || shape === undefined) return undefined;
  const { def } = entry;
  const flags = [...globals, ...(def.flags ?? [])];
  // A flag without its value is refused, by runCli's check before yargs: declined here, so the
  // fast entry's words reach it too.
  if (missingValue(args, flags) !== undefined) return undefined;
  const spellings = spellingsOf(flags);
  const start = entry.words.length;
  // The defaults yargs fills in. A flag without one stays unset, so env and config can supply it.
  const argv: Record<string, unknown> = { _: args.slice(0, start) };
  for (const f of flags) if (f.default !== undefined) argv[f.name] = f.default;
  const positionals: string[] = [];
  const seen = new Set<string>();
  for (let i = start; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      // Every word after it is the prompt's, as it is (yargs keeps them apart under '--').
      if (shape.positional !== 'prompt') return undefined;
      const rest = args.slice(i + 1);
      if (rest.length > 0) argv['--'] = rest;
      break;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    // Own keys only: a prompt word such as `constructor` is no flag.
    const spelling = Object.hasOwn(spellings, name) ? spellings[name] : undefined;
    if (spelling === undefined) {
      // A positional. One that could be a flag, the stdin marker as an id, or an empty word is yargs' to judge.
      if (arg === '' || arg.startsWith('-')) return undefined;
      if (shape.positional === 'none') return undefined;
      if (shape.positional === 'id' && (positionals.length > 0 || arg.startsWith('\u0000'))) return undefined;
      positionals.push(arg);
      continue;
    }
    const { flag, negated } = spelling;
    seen.add(flag.name);
    if (flag.type === 'boolean') {
      // yargs takes a `true` or `false` after a boolean flag as its value (`--json false`).
      const after = args[i + 1];
      if (eq !== -1 || after === 'true' || after === 'false') return undefined;
      argv[flag.name] = !negated;
      continue;
    }
    let v: string | undefined;
    if (eq !== -1) v = arg.slice(eq + 1);
    else if ((v = args[i + 1]) !== undefined) i++;
    if (v === undefined || !readsAsWritten(flag, v)) return undefined;
    const value = flag.type === 'number' ? Number(v) : v;
    const before = argv[flag.name];
    // A repeatable flag keeps every value (yargs: a string, then an array); any other, the last.
    argv[flag.name] =
      flag.repeatable === true && before !== undefined
        ? [...(Array.isArray(before) ? before : [before]), value]
        : value;
  }
  // yargs refuses both of a conflicting pair; its message is the one to print.
  if ((def.conflicts ?? []).some(([a, b]) => seen.has(a) && seen.has(b))) return undefined;
  // yargs reads a last positional `help` as --help (`nsed ask why help`, `sessions show help`).
  if (positionals[positionals.length - 1] === 'help') return undefined;
  const positional = def.positionals?.[0]?.name;
  if (positional !== undefined && shape.positional === 'prompt') argv[positional] = positionals;
  else if (positional !== undefined && positionals[0] !== undefined) argv[positional] = positionals[0];
  return { def, argv };
}

interface Spelling {
  flag: FlagDef;
  negated: boolean;
}

/**
 * Every way a flag the fast path reads is written: `--name`, its alias, and `--no-name` for a
 * boolean. A `count` flag, one marked `fast: false`, and yargs' camelCase spellings are left out.
 */
function spellingsOf(flags: readonly FlagDef[]): Record<string, Spelling> {
  const out: Record<string, Spelling> = {};
  for (const flag of flags) {
    if (flag.fast === false || flag.type === 'count') continue;
    out[`--${flag.name}`] = { flag, negated: false };
    if (flag.alias !== undefined)
      out[`${flag.alias.length === 1 ? '-' : '--'}${flag.alias}`] = { flag, negated: false };
    if (flag.type === 'boolean') out[`--no-${flag.name}`] = { flag, negated: true };
  }
  return out;
}

/**
 * Only values yargs reads as they are written: a choice from the list, a plain decimal count
 * (yargs would turn `1e3`, `05` or `0x10` into numbers too, and `abc` into NaN), a string that
 * cannot be taken for a flag or the stdin marker.
 */
function readsAsWritten(flag: FlagDef, v: string): boolean {
  if (flag.choices !== undefined) return flag.choices.includes(v);
  if (flag.type === 'number') return /^[1-9][0-9]{0,8}$/.test(v);
  return v !== '' && !v.startsWith('-') && !v.startsWith(STDIN_MARKER);
}
