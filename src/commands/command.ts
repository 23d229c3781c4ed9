import type { Argv } from 'yargs';
import type { Context } from '../context.js';

/** What yargs hands over once the words are parsed: untyped until a command's parse step reads it. */
export type ParsedArgv = Readonly<Record<string, unknown>>;

/**
 * One command, in the shape of gh's `NewCmdX(f, runF)`: the builder declares the flags, `parse`
 * turns the parsed words into the command's own typed options (pure, so tests call it without
 * any I/O; a bad value throws NsedError 'usage'), and `run` executes them against the Context.
 * Heavy modules are imported inside `run`, so registering every command costs nothing at start-up.
 */
export interface CommandDef<O = unknown> {
  command: string;
  describe: string;
  aliases?: string[];
  builder: (y: Argv) => Argv;
  parse(argv: ParsedArgv): O;
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
}

export type CommandEntry = CommandDef | CommandGroup;

export function isGroup(entry: CommandEntry): entry is CommandGroup {
  return 'subcommands' in entry;
}

/** A string flag as given, or undefined when absent (yargs leaves absent flags out). */
export function stringFlag(argv: ParsedArgv, key: string): string | undefined {
  const v = argv[key];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable or variadic flag as a list of strings. */
export function stringList(argv: ParsedArgv, key: string): string[] {
  const v = argv[key];
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
}
