import { GLOBAL_FLAGS } from '../commands/global-options.js';
import { flagHelp, type FlagDef } from '../commands/shared/flag-def.js';
import { VERSION } from '../version.js';
import { isGroup, type CommandDef, type CommandEntry, type CommandGroup } from '../commands/command.js';

export type Completion = 'none' | 'file' | 'dir' | 'session' | 'policy' | 'choices';

export interface OptionRef {
  name: string;
  /** `-o`, `--output`: short flags first. */
  flags: string[];
  takesValue: boolean;
  /** A boolean that defaults to on, spelled `--no-NAME` to turn off. */
  negatable: boolean;
  valueName: string;
  choices: string[];
  defaultText: string | undefined;
  describe: string;
  repeatable: boolean;
  complete: Completion;
}

export interface PositionalRef {
  name: string;
  required: boolean;
  variadic: boolean;
  describe: string;
  choices: string[];
  complete: Completion;
}

export interface CommandRef {
  /** `['sessions', 'ls']` */
  words: string[];
  aliases: string[];
  describe: string;
  positionals: PositionalRef[];
  options: OptionRef[];
  examples: Array<{ command: string; describe: string }>;
  /** false for a command that hides the client's options (`nsed sim`: they mean nothing there). */
  clientOptions: boolean;
}

export interface GroupRef {
  name: string;
  describe: string;
  subcommands: CommandRef[];
  /** What the group's word alone runs (`nsed mcp`), if anything. */
  bare?: CommandRef;
}

export interface CliReference {
  version: string;
  globalOptions: OptionRef[];
  /** Top-level entries in `nsed --help` order. */
  entries: Array<{ kind: 'command'; command: CommandRef } | { kind: 'group'; group: GroupRef }>;
  /** Every runnable command, groups flattened. */
  commands: CommandRef[];
}

/** The flags yargs itself adds in cli/run-cli.ts. */
const BUILT_IN: OptionRef[] = [
  optionRef({
    name: 'help',
    alias: 'h',
    type: 'boolean',
    describe: 'show help (also after a command: nsed ask --help)',
  }),
  optionRef({ name: 'version', alias: 'V', type: 'boolean', describe: 'print the version' }),
];

/** The whole command line, read from the same tables the parser is built from (`commands` is commands/index.ts's). */
export function cliReference(commands: readonly CommandEntry[]): CliReference {
  const globals = [...GLOBAL_FLAGS.filter((o) => o.hidden !== true).map(optionRef), ...BUILT_IN];
  const entries: CliReference['entries'] = commands.map((entry) =>
    isGroup(entry) ? { kind: 'group', group: groupRef(entry) } : { kind: 'command', command: commandRef(entry, []) },
  );
  const flat = entries.flatMap((e) =>
    e.kind === 'command'
      ? [e.command]
      : [...(e.group.bare === undefined ? [] : [e.group.bare]), ...e.group.subcommands],
  );
  return { version: VERSION, globalOptions: globals, entries, commands: flat };
}

function groupRef(group: CommandGroup): GroupRef {
  return {
    name: group.command,
    describe: group.describe,
    subcommands: group.subcommands.map((d) => commandRef(d, [group.command])),
    ...(group.bare === undefined ? {} : { bare: commandRef(group.bare, []) }),
  };
}

function commandRef(def: CommandDef, parents: string[]): CommandRef {
  const [name = '', ...args] = def.command.split(/\s+/);
  const positionals = args.map((arg): PositionalRef => {
    const argName = arg.replace(/^[<[]|[>\]]$/g, '').replace(/\.\.$/, '');
    const declared = def.positionals?.find((p) => p.name === argName);
    const choices = [...(declared?.choices ?? [])];
    return {
      name: argName,
      required: arg.startsWith('<'),
      variadic: arg.includes('..'),
      describe: declared?.describe ?? '',
      choices,
      complete: choices.length > 0 ? 'choices' : (declared?.complete ?? 'none'),
    };
  });
  return {
    words: [...parents, name],
    aliases: def.aliases ?? [],
    describe: def.describe,
    positionals,
    options: (def.flags ?? []).filter((o) => o.hidden !== true).map(optionRef),
    examples: (def.examples ?? []).map(([command, describe]) => ({ command, describe })),
    clientOptions: def.clientOptions !== false,
  };
}

function optionRef(o: FlagDef): OptionRef {
  const aliases = o.alias === undefined ? [] : [o.alias];
  const flags = [
    ...aliases.filter((a) => a.length === 1).map((a) => `-${a}`),
    `--${o.name}`,
    ...aliases.filter((a) => a.length > 1).map((a) => `--${a}`),
  ];
  const takesValue = o.type !== 'boolean';
  const choices = [...(o.choices ?? [])];
  const shownDefault = o.default ?? o.defaultDescription;
  return {
    name: o.name,
    flags,
    takesValue,
    negatable: o.type === 'boolean' && o.default === true,
    valueName:
      o.valueName ?? (choices.length > 0 || o.type !== 'number' ? o.name.toUpperCase().replaceAll('-', '_') : 'N'),
    choices,
    defaultText: shownDefault === undefined || o.type === 'boolean' ? undefined : String(shownDefault),
    describe: o.details === undefined ? flagHelp(o) : `${flagHelp(o)}; ${o.details}`,
    repeatable: o.repeatable === true,
    complete: choices.length > 0 ? 'choices' : (o.complete ?? 'none'),
  };
}

/** `nsed sessions export <id> [options]` */
export function usageLine(c: CommandRef): string {
  const args = c.positionals.map((p) => {
    const core = `${p.name.toUpperCase()}${p.variadic ? '...' : ''}`;
    return p.required ? core : `[${core}]`;
  });
  return ['nsed', ...c.words, ...args, '[options]'].join(' ');
}
