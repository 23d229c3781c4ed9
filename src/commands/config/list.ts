import type { CommandDef } from '../command.js';
import { CONFIGURABLE, readable, showValue } from './shared.js';

/** `nsed config list`: every value set, `key=value` a line (like `git config --list`), or JSON. */
export const list: CommandDef<Record<string, never>> = {
  command: 'list',
  describe: 'print every value set in the config file',
  aliases: ['ls'],
  configFile: 'own',
  examples: [['nsed config list', 'key=value, one a line']],
  parse: () => ({}),
  run: async (_opts, ctx) => {
    const { isConfigKey } = await import('../../run/config-file.js');
    const keys = CONFIGURABLE.flatMap((f) =>
      f.configKey !== undefined && isConfigKey(f.configKey) ? [f.configKey] : [],
    );
    const values = readable(ctx);
    const set = keys.filter((k) => values[k] !== undefined);
    let text: string;
    if (ctx.globals.settings.output.value === 'json') text = `${JSON.stringify(values, null, 2)}\n`;
    else if (ctx.globals.settings.output.value === 'ndjson')
      text = set.map((k) => `${JSON.stringify({ key: k, value: values[k] })}\n`).join('');
    else text = set.map((k) => `${k}=${showValue(k, values)}\n`).join('');
    if (set.length === 0 && ctx.io.stdoutIsTTY && !ctx.io.quiet) {
      ctx.io.stderr.write(`nothing set in ${ctx.globals.config.path ?? 'the config file'}; keys: ${keys.join(', ')}\n`);
    }
    ctx.io.stdout.write(text);
    return 0;
  },
};
