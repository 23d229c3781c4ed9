import type { Argv } from 'yargs';
import type { GlobalOptions } from '../cli/global-options.js';
import type { Context } from '../context.js';

/** What a command's run function receives: the outside world and the global options. */
export interface CommandEnv {
  ctx: Context;
  globals: GlobalOptions;
}

/**
 * One command (gh's pkg/cmd/<noun>/<verb>): the builder declares its flags, `run` turns argv
 * into the command's own options and executes. Heavy modules are imported inside `run`, so
 * registering every command costs nothing at start-up.
 */
export interface CommandDef {
  command: string;
  describe: string;
  aliases?: string[];
  builder: (y: Argv) => Argv;
  run: (env: CommandEnv, argv: Record<string, unknown>) => Promise<number>;
}

/** A command with subcommands (`nsed sessions ls`). */
export interface CommandGroup {
  command: string;
  describe: string;
  subcommands: CommandDef[];
}
