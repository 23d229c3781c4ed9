import type { CommandDef } from '../command.js';
import { positionalValues, type PositionalDef } from '../shared/flag-def.js';
import { CONFIG_KEY_POSITIONAL, requirePath } from './shared.js';

const POSITIONALS = [
  CONFIG_KEY_POSITIONAL,
  { name: 'value', describe: 'the value, as you would give the flag' },
] as const satisfies readonly PositionalDef[];

export interface SetOptions {
  key: string;
  value: string;
}

/** `nsed config set KEY VALUE`: checked like the flag it stands for, written atomically, mode 0600. */
export const set: CommandDef<SetOptions> = {
  command: 'set <key> <value>',
  describe: 'set one value in the config file',
  configFile: 'own',
  positionals: POSITIONALS,
  examples: [
    [
      'nsed config set url https://nsed.example.com',
      'the orchestrator to use when neither --url nor NSED_URL is given',
    ],
    ['nsed config set token_file ~/.config/nsed/token', 'where the bearer token is read from (never the token itself)'],
  ],
  parse: (argv) => {
    const p = positionalValues(POSITIONALS, argv);
    return { key: p.key ?? '', value: p.value ?? '' };
  },
  run: async (opts, ctx) => {
    const { isConfigKey, unknownKeyError, valueFromText, checkValue, editConfig } =
      await import('../../run/config-file.js');
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
