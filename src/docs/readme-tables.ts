import type { CommandEntry } from '../commands/command.js';
import { runnableDefs } from '../commands/command.js';
import { GLOBAL_FLAGS } from '../commands/global-options.js';
import type { FlagDef } from '../commands/shared/flag-def.js';

/** The manual's option tables, each between `<!-- options: NAME -->` and `<!-- /options -->`. */
const REGION = /(<!-- options: ([a-z-]+) -->\n)[\s\S]*?(<!-- \/options -->)/g;

/**
 * A page of the manual with its option tables written from the flag tables: `global` (every
 * command's) and one per command by its name (`sim`, or a subcommand's own: `ls`, `install`).
 * scripts/gen-docs.mjs writes them into README.md and docs/*.md; a test compares them with the
 * committed pages, so a flag changed in a table without regenerating fails CI.
 */
export function withOptionTables(markdown: string, commands: readonly CommandEntry[]): string {
  const defs = commands.flatMap(runnableDefs);
  return markdown.replace(REGION, (_all, open: string, name: string, close: string) => {
    const flags = name === 'global' ? GLOBAL_FLAGS : defs.find((d) => d.command.split(' ')[0] === name)?.flags;
    if (flags === undefined) throw new Error(`the manual names an option table for no command: ${name}`);
    return `${open}${optionTable(flags.filter((f) => f.hidden !== true))}\n${close}`;
  });
}

function optionTable(flags: readonly FlagDef[]): string {
  const rows = flags.map((f) => {
    const valueName =
      f.valueName ?? (f.choices !== undefined || f.type !== 'number' ? f.name.toUpperCase().replaceAll('-', '_') : 'N');
    // A one-letter alias is a short option (-p); a longer one is another long name (--out, --file).
    const spelled =
      f.alias === undefined
        ? `--${f.name}`
        : f.alias.length === 1
          ? `-${f.alias}, --${f.name}`
          : `--${f.name}, --${f.alias}`;
    const option =
      f.type === 'boolean'
        ? f.default === true
          ? `\`--no-${f.name}\``
          : f.default === undefined
            ? `\`--${f.name}\` / \`--no-${f.name}\``
            : `\`${spelled}\``
        : `\`${spelled} ${valueName}\``;
    const layers = [
      ...(f.env === undefined ? [] : [`\`${f.env}\``]),
      ...(f.configKey === undefined ? [] : [`config \`${f.configKey}\``]),
    ];
    const last =
      f.defaultDescription ??
      (f.default === undefined
        ? f.type === 'boolean'
          ? 'off'
          : 'none'
        : f.type === 'boolean'
          ? f.default === true
            ? 'on'
            : 'off'
          : `\`${String(f.default)}\``);
    const fallback = [...layers, last].join(', else ');
    const choices = f.choices === undefined ? '' : `: ${f.choices.map((c) => `\`${c}\``).join(', ')}`;
    const meaning = `${f.describe}${choices}${f.details === undefined ? '' : `; ${f.details}`}${f.repeatable === true && !f.describe.includes('repeatable') ? ' (repeatable)' : ''}`;
    return `| ${option} | ${fallback} | ${meaning.replaceAll('|', '\\|')} |`;
  });
  return ['| option | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
