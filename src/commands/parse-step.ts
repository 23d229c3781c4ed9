import type { LoadedConfig } from '../run/config-file.js';
import type { GlobalOptions } from '../run/context.js';
import type { OutputMode } from '../output/modes.js';
import type { CommandDef, ParsedArgv } from './command.js';
import { parseGlobalOptions } from './global-options.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A command line's parse step, whole: the run's settings first (parseGlobalOptions reads each
 * setting flag the command declares, once, and weighs it against the environment, the config
 * file and the defaults), then the command's own options, which take a turn's -p, --agents,
 * --rounds and caps from those settings, never from the words again. The CLI and the MCP tools
 * parse through it, so each refuses a bad value with the same line (the promptfoo provider
 * resolves its settings once and parses each call's words over them, the same two steps).
 * Pure: no I/O beyond what `config` and `env` already hold.
 */
export function parseCommandLine<O>(
  def: CommandDef<O>,
  argv: ParsedArgv,
  config?: LoadedConfig,
  env: Env = {},
  outputKnown?: (output: OutputMode) => void,
): { globals: GlobalOptions; options: O } {
  const globals = parseGlobalOptions(argv, config, env, def.flags ?? [], outputKnown);
  return { globals, options: def.parse(argv, globals.settings) };
}
