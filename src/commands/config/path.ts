import type { CommandDef } from '../command.js';
import { requirePath } from './shared.js';

/** `nsed config path`: where the config file is (whether or not it exists yet). */
export const pathCommand: CommandDef<Record<string, never>> = {
  command: 'path',
  describe: 'print where the config file is (NSED_CONFIG, XDG_CONFIG_HOME or ~/.config)',
  configFile: 'own',
  examples: [['$EDITOR "$(nsed config path)"', 'edit it by hand']],
  parse: () => ({}),
  run: async (_opts, ctx) => {
    ctx.io.stdout.write(`${requirePath(ctx.globals.config)}\n`);
    return 0;
  },
};
