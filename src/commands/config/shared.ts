import type { ConfigKey, ConfigValues, LoadedConfig } from '../../run/config-file.js';
import { NsedError } from '../../errors.js';
import type { Context } from '../../run/context.js';
import { GLOBAL_FLAGS } from '../global-options.js';
import type { FlagDef, PositionalDef } from '../shared/flag-def.js';
import { TURN_FLAGS } from '../shared/turn-flags.js';

/** The config file's path, or the reason there is none (no HOME and no NSED_CONFIG). */
export function requirePath(config: LoadedConfig): string {
  if (config.path !== undefined) return config.path;
  throw new NsedError('store', 'cannot find a place for the config file: HOME is not set', {
    hint: 'set NSED_CONFIG (or XDG_CONFIG_HOME) to choose one',
  });
}

/** The parsed file; a file that cannot be read or parsed stops here, naming it (exit 8). */
export function readable(ctx: Context): ConfigValues {
  const { config } = ctx.globals;
  if (config.error !== undefined) throw config.error;
  return config.values;
}

/** A value as `config get` and `config list` print it: agents as A,B, everything else as text. */
export function showValue(key: ConfigKey, values: ConfigValues): string {
  const v = values[key];
  return Array.isArray(v) ? v.join(',') : String(v);
}

/** Every flag that a config file key stands in for, in the order of the tables. */
export const CONFIGURABLE: readonly FlagDef[] = [...GLOBAL_FLAGS, ...TURN_FLAGS].filter(
  (f) => f.configKey !== undefined,
);

/** The KEY positional of get, set and unset, naming the keys the flag tables declare. */
export const CONFIG_KEY_POSITIONAL = {
  name: 'key',
  describe: `${CONFIGURABLE.map((f) => f.configKey)
    .join(', ')
    .replace(/, ([^,]*)$/, ' or $1')}`,
} as const satisfies PositionalDef;
