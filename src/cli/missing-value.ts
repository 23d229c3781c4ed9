import { isGroup, type CommandDef, type CommandEntry } from '../commands/command.js';
import { camelKey, flagLabel, type FlagDef } from '../commands/shared/flag-def.js';
import { usageError, type NsedError } from '../errors.js';

/** A word yargs reads as a value although it starts with `-`: a negative number (`--min-margin -0.5`). */
const NEGATIVE_NUMBER = /^-(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)$/;

/**
 * The first value-taking flag among `args` that was given no value, as a usage error naming it;
 * undefined when every one has one. yargs reads such a flag as absent (a number), as empty (a
 * string) or takes the value of the flag after it (`--output -o json`), so `--max-cost -o json q`
 * or `--max-cost "$CAP"` with CAP unset would run without a ceiling. A value is missing when the
 * flag is the last word, when the next word is `--` or another flag (a word starting with `-`
 * that is not a negative number), or when a number or a choice is given blank (`--max-cost=`,
 * `--max-cost ''`). Both parsers refuse through this one check: runCli before either runs, the
 * prescan by declining. `flags` are those the words may hold: the global ones, and the command's.
 */
export function missingValue(args: readonly string[], flags: readonly FlagDef[]): NsedError | undefined {
  const spellings = valueSpellings(flags);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') return undefined;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const flag = Object.hasOwn(spellings, name) ? spellings[name] : undefined;
    if (flag === undefined) continue;
    if (eq !== -1) {
      if (blankRefused(flag, arg.slice(eq + 1))) return refusal(flag);
      continue;
    }
    const next = args[i + 1];
    if (next === undefined || next === '--' || (next.startsWith('-') && !NEGATIVE_NUMBER.test(next)))
      return refusal(flag);
    if (blankRefused(flag, next)) return refusal(flag);
    i++;
  }
  return undefined;
}

/**
 * The flags the words may hold: the global ones, and those of the command the words name
 * (`ask`, `sessions ls`), found as yargs finds it, past the global flags and their values; only
 * the global ones when no command is named (yargs then refuses the words its own way).
 */
export function flagsOfWords(
  args: readonly string[],
  commands: readonly CommandEntry[],
  globals: readonly FlagDef[],
): readonly FlagDef[] {
  const globalValues = valueSpellings(globals);
  let group: CommandEntry | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && Object.hasOwn(globalValues, arg)) i++;
      continue;
    }
    const entries: readonly CommandEntry[] = group !== undefined && isGroup(group) ? group.subcommands : commands;
    const found = entries.find((c) => namesOf(c).includes(arg));
    if (found === undefined) break;
    if (!isGroup(found)) return [...globals, ...((found as CommandDef).flags ?? [])];
    group = found;
  }
  // A group's word with no subcommand's after it is its bare command (`batch items.jsonl`, `mcp`).
  const bare = group !== undefined && isGroup(group) ? group.bare : undefined;
  return bare === undefined ? globals : [...globals, ...(bare.flags ?? [])];
}

function namesOf(entry: CommandEntry): string[] {
  return [entry.command.split(' ')[0] ?? '', ...('aliases' in entry ? (entry.aliases ?? []) : [])];
}

/** Every spelling of the flags that take a value: `--name`, `--camelName`, the alias. */
function valueSpellings(flags: readonly FlagDef[]): Record<string, FlagDef> {
  const out: Record<string, FlagDef> = {};
  for (const flag of flags) {
    if (flag.type === 'boolean' || flag.type === 'count') continue;
    out[`--${flag.name}`] = flag;
    out[`--${camelKey(flag.name)}`] = flag;
    if (flag.alias !== undefined) out[`${flag.alias.length === 1 ? '-' : '--'}${flag.alias}`] = flag;
  }
  return out;
}

/**
 * A blank number is no number (yargs would read `--max-cost ''` as 0) and a blank choice no
 * choice; a blank string is the flag's own to judge (FlagDef.emptyHint).
 */
function blankRefused(flag: FlagDef, value: string): boolean {
  return value.trim() === '' && (flag.type === 'number' || flag.choices !== undefined);
}

function refusal(flag: FlagDef): NsedError {
  const example = flag.choices?.[0] ?? flag.sample ?? (flag.type === 'number' ? '1' : 'VALUE');
  return usageError(
    `${flagLabel(flag)} needs a value`,
    `e.g. --${flag.name}=${example} (a value that starts with '-' goes after the '=')`,
  );
}
