import type { CommandDef } from '../command.js';
import { CONFIG_KEY_POSITIONAL, requirePath } from './shared.js';

export interface SetOptions {
  key: string;
  value: string;
}

/** `nsed config set KEY VALUE`: checked like the flag it stands for, written atomically, mode 0600. */
export const set: CommandDef<SetOptions> = {
  command: 'set <key> <value>',
  describe: 'set one value in the config file',
  configFile: 'own',
  positionals: [CONFIG_KEY_POSITIONAL, { name: 'value', describe: 'the value, as you would give the flag' }],
  examples: [
    [
      'nsed config set url https://nsed.example.com',
      'the orchestrator to use when neither --url nor NSED_URL is given',
    ],
    ['nsed config set token_file ~/.config/nsed/token', 'where the bearer token is read from (never the token itself)'],
  ],
  parse: (argv) => ({ key: String(argv['key'] ?? ''), value: String(argv['value'] ?? '') }),
  run: async (opts, ctx) => {
    const { isConfigKey, unknownKeyError, valueFromText, checkValue, editConfig } =
      await import('../../config-file.js');
    if (!isConfigKey(opts.key)) throw unknownKeyError(opts.key);
    const file = requirePath(ctx.globals.config);
    const path = await import('node:path');
    // A relative token_file on the command line means relative to where the user stands.
    const value = checkValue(
      opts.key,
      valueFromText(opts.key, opts.value),
      opts.key === 'token_file' ? process.cwd() : path.dirname(file),
      ctx.env['HOME'],
    );
    await editConfig(file, opts.key, value);
    return 0;
  },
};
