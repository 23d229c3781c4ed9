import type { Context } from '../run/context.js';
import type { RunSettings } from '../run/settings.js';
import type { FlagDef, ParsedArgv, PositionalDef } from './shared/flag-def.js';

export type { ParsedArgv } from './shared/flag-def.js';

/**
 * One command, in the shape of gh's `NewCmdX(f, runF)`, its command line declared as data: yargs
 * is built from `flags`, `positionals`, `conflicts`, `examples` and `epilog`
 * (shared/build-command.ts), and so are the fast path, the help, the man page and the
 * completions. `parse` turns the parsed words into the command's own typed options (pure, so
 * tests call it without any I/O; a bad value throws NsedError 'usage'), and `run` executes them
 * against the Context. Heavy modules are imported inside `run`, so registering every command
 * costs nothing at start-up.
 */
export interface CommandDef<O = unknown> {
  command: string;
  describe: string;
  aliases?: string[];
  /** The command's own flags, shared groups (the turn flags) spread in; the global ones apart. */
  flags?: readonly FlagDef[];
  /** The positionals of `command`, described. */
  positionals?: readonly PositionalDef[];
  /** Pairs of flags that exclude each other (yargs refuses both with its own message). */
  conflicts?: ReadonlyArray<readonly [string, string]>;
  examples?: ReadonlyArray<readonly [command: string, describe: string]>;
  epilog?: string;
  /** false: the global client flags mean nothing here and are hidden from its help (`nsed sim`). */
  clientOptions?: false;
  /**
   * The fast path reads this command's plain shapes (cli/prescan.ts) without loading yargs:
   * which positional it takes. Every flag of the command and the global ones are read from the
   * same tables, except those marked `fast: false`.
   */
  fast?: { positional: 'none' | 'id' | 'prompt' };
  /**
   * `settings`: the run's, resolved from these words first (parseCommandLine): a setting flag the
   * command declares (-p, --agents, --rounds, the caps) was read there, once, and the parse step
   * takes it from them (givenByFlag) rather than from the words.
   */
  parse(argv: ParsedArgv, settings: RunSettings): O;
  run(options: O, ctx: Context): Promise<number>;
  /**
   * How the command treats the config file: read it and fail on a broken one (the default),
   * `own` (read it, but a broken file is the command's to report: config, doctor), or `ignore`
   * (never read: the simulator and the completion scripts take nothing from it).
   */
  configFile?: 'own' | 'ignore';
}

/** A command with subcommands (`nsed sessions ls`). */
export interface CommandGroup {
  command: string;
  describe: string;
  subcommands: CommandDef[];
  /**
   * What the group's word alone runs (`nsed mcp` serves, `nsed mcp install` installs), its
   * `command` the group's word; without it a subcommand must be named.
   */
  bare?: CommandDef;
}

export type CommandEntry = CommandDef | CommandGroup;

export function isGroup(entry: CommandEntry): entry is CommandGroup {
  return 'subcommands' in entry;
}

/** Every command an entry runs: itself, or a group's bare command and its subcommands. */
export function runnableDefs(entry: CommandEntry): CommandDef[] {
  if (!isGroup(entry)) return [entry];
  return entry.bare === undefined ? entry.subcommands : [entry.bare, ...entry.subcommands];
}
