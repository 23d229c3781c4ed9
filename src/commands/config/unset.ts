import type { CommandDef } from '../command.js';
import { positionalValues } from '../shared/flag-def.js';
import { CONFIG_KEY_POSITIONAL, requirePath } from './shared.js';

/** `nsed config unset KEY`: the built-in default (or the environment) applies again. */
export const unset: CommandDef<{ key: string }> = {
  command: 'unset <key>',
  describe: 'remove one value from the config file',
  configFile: 'own',
  positionals: [CONFIG_KEY_POSITIONAL],
  examples: [['nsed config unset policy', "back to the orchestrator's first policy"]],
  parse: (argv) => ({ key: positionalValues([CONFIG_KEY_POSITIONAL], argv).key ?? '' }),
  run: async (opts, ctx) => {
    const { isConfigKey, unknownKeyError, editConfig } = await import('../../run/config-file.js');
    if (!isConfigKey(opts.key)) throw unknownKeyError(opts.key);
    const { config } = ctx.globals;
    // Nothing to remove from a file that does not exist: creating an empty one would be noise.
    if (!config.exists) return 0;
    await editConfig(requirePath(config), opts.key, undefined);
    return 0;
  },
};
