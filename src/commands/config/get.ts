import type { ConfigKey } from '../../run/config-file.js';
import { notFound } from '../../errors.js';
import type { CommandDef } from '../command.js';
import { positionalValues } from '../shared/flag-def.js';
import { CONFIG_KEY_POSITIONAL, readable, showValue } from './shared.js';

/** `nsed config get KEY`: one value; a key that is not set exits 3, so a script can fall back. */
export const get: CommandDef<{ key: string }> = {
  command: 'get <key>',
  describe: 'print one value of the config file',
  configFile: 'own',
  positionals: [CONFIG_KEY_POSITIONAL],
  examples: [['nsed config get url', 'the orchestrator the config file names']],
  parse: (argv) => ({ key: positionalValues([CONFIG_KEY_POSITIONAL], argv).key ?? '' }),
  run: async (opts, ctx) => {
    const { isConfigKey, unknownKeyError } = await import('../../run/config-file.js');
    if (!isConfigKey(opts.key)) throw unknownKeyError(opts.key);
    const key: ConfigKey = opts.key;
    const values = readable(ctx);
    if (values[key] === undefined)
      throw notFound(
        `${key} is not set in ${ctx.globals.config.path ?? 'the config file'}`,
        `set it with: nsed config set ${key} VALUE`,
      );
    const text =
      ctx.globals.settings.output.value === 'json' || ctx.globals.settings.output.value === 'ndjson'
        ? `${JSON.stringify(values[key])}\n`
        : `${showValue(key, values)}\n`;
    ctx.io.stdout.write(text);
    return 0;
  },
};
