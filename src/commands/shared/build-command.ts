import type { Argv } from 'yargs';
import type { CommandDef } from '../command.js';
import { applyFlags } from './flag-def.js';

/**
 * A command's yargs builder, made from its data: the positionals, the flags (its own under
 * `Options:`, a flag with a `group` under that heading), the conflicts, the examples and the
 * epilog. `globalNames` are the global flags, shown apart; a command without client options
 * hides them.
 */
export function commandBuilder(def: CommandDef, globalNames: readonly string[]): (y: Argv) => Argv {
  return (sub) => {
    let y = sub;
    for (const p of def.positionals ?? []) {
      y = y.positional(p.name, {
        type: 'string',
        describe: p.describe,
        ...(p.array === true ? { array: true } : {}),
        ...(p.choices === undefined ? {} : { choices: [...p.choices] }),
      });
    }
    const flags = def.flags ?? [];
    y = applyFlags(y, flags);
    for (const [a, b] of def.conflicts ?? []) y = y.conflicts(a, b);
    for (const [command, describe] of def.examples ?? []) y = y.example(command, describe);
    if (def.epilog !== undefined) y = y.epilog(def.epilog);
    const shown = flags.filter((f) => f.hidden !== true);
    const groups = new Map<string, string[]>([['Options:', []]]);
    for (const f of shown) {
      const heading = f.group ?? 'Options:';
      groups.set(heading, [...(groups.get(heading) ?? []), f.name]);
    }
    for (const [heading, names] of groups) y = y.group(names, heading);
    if (def.clientOptions === false)
      for (const name of globalNames) if (name !== 'help' && name !== 'version') y = y.option(name, { hidden: true });
    return y.group([...globalNames], 'Global options:');
  };
}
