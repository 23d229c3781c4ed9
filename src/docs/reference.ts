import { withGlobalOptions } from '../commands/global-options.js';
import { VERSION } from '../version.js';
import { isGroup, type CommandDef, type CommandEntry, type CommandGroup } from '../commands/command.js';
import { recordBuilder, type RecordedOption } from './record-builder.js';

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
}

export interface CliReference {
  version: string;
  globalOptions: OptionRef[];
  /** Top-level entries in `nsed --help` order. */
  entries: Array<{ kind: 'command'; command: CommandRef } | { kind: 'group'; group: GroupRef }>;
  /** Every runnable command, groups flattened. */
  commands: CommandRef[];
}

/** Arguments whose values complete from the file system or the store; the rest complete nothing. */
export const VALUE_COMPLETION: Record<string, Completion> = {
  'token-file': 'file',
  tools: 'file',
  file: 'file',
  out: 'file',
  schema: 'file',
  template: 'file',
  vars: 'file',
  policy: 'policy',
  home: 'dir',
  session: 'session',
  source: 'session',
  id: 'session',
  ids: 'session',
};

const VALUE_NAMES: Record<string, string> = {
  url: 'URL',
  'token-file': 'FILE',
  home: 'DIR',
  output: 'MODE',
  policy: 'POLICY',
  session: 'ID',
  at: 'TURN',
  agents: 'A,B,C',
  tools: 'FILE',
  tool: 'NAME=PROGRAM',
  'tool-result': 'CALL_ID=FILE',
  'max-tool-calls': 'N',
  'tool-wait-ms': 'N',
  out: 'FILE',
  fault: 'SPEC',
  system: 'TEXT',
  title: 'TEXT',
  timeout: 'S',
  'idle-timeout': 'S',
  file: 'PATH',
  schema: 'FILE|JSON',
  'schema-name': 'NAME',
  'schema-retries': 'N',
  template: 'FILE',
  var: 'NAME=VALUE',
  vars: 'FILE',
};

/** The flags yargs itself adds in cli/run-cli.ts. */
const BUILT_IN: OptionRef[] = [
  optionRef({
    name: 'help',
    aliases: ['h'],
    type: 'boolean',
    choices: [],
    default: undefined,
    describe: 'show help (also after a command: nsed ask --help)',
    array: false,
    hidden: false,
  }),
  optionRef({
    name: 'version',
    aliases: ['V'],
    type: 'boolean',
    choices: [],
    default: undefined,
    describe: 'print the version',
    array: false,
    hidden: false,
  }),
];

/** The whole command line, read from the same builders the parser runs (`commands` is commands/index.ts's table). */
export function cliReference(commands: readonly CommandEntry[]): CliReference {
  const globals = [
    ...recordBuilder(withGlobalOptions)
      .options.filter((o) => !o.hidden)
      .map(optionRef),
    ...BUILT_IN,
  ];
  const entries: CliReference['entries'] = commands.map((entry) =>
    isGroup(entry) ? { kind: 'group', group: groupRef(entry) } : { kind: 'command', command: commandRef(entry, []) },
  );
  const flat = entries.flatMap((e) => (e.kind === 'command' ? [e.command] : e.group.subcommands));
  return { version: VERSION, globalOptions: globals, entries, commands: flat };
}

function groupRef(group: CommandGroup): GroupRef {
  return {
    name: group.command,
    describe: group.describe,
    subcommands: group.subcommands.map((d) => commandRef(d, [group.command])),
  };
}

function commandRef(def: CommandDef, parents: string[]): CommandRef {
  const [name = '', ...args] = def.command.split(/\s+/);
  const recorded = recordBuilder(def.builder);
  const positionals = args.map((arg): PositionalRef => {
    const argName = arg.replace(/^[<[]|[>\]]$/g, '').replace(/\.\.$/, '');
    const declared = recorded.positionals.find((p) => p.name === argName);
    const choices = declared?.choices ?? [];
    return {
      name: argName,
      required: arg.startsWith('<'),
      variadic: arg.includes('..'),
      describe: declared?.describe ?? '',
      choices,
      complete: choices.length > 0 ? 'choices' : (VALUE_COMPLETION[argName] ?? 'none'),
    };
  });
  return {
    words: [...parents, name],
    aliases: def.aliases ?? [],
    describe: def.describe,
    positionals,
    options: recorded.options.filter((o) => !o.hidden).map(optionRef),
    examples: recorded.examples,
    clientOptions: !recorded.options.some((o) => o.hidden && o.name === 'url'),
  };
}

function optionRef(o: RecordedOption): OptionRef {
  const flags = [
    ...o.aliases.filter((a) => a.length === 1).map((a) => `-${a}`),
    `--${o.name}`,
    ...o.aliases.filter((a) => a.length > 1).map((a) => `--${a}`),
  ];
  const takesValue = o.type !== 'boolean';
  const choices = o.choices;
  return {
    name: o.name,
    flags,
    takesValue,
    negatable: o.type === 'boolean' && o.default === true,
    valueName:
      VALUE_NAMES[o.name] ??
      (choices.length > 0 || o.type !== 'number' ? o.name.toUpperCase().replaceAll('-', '_') : 'N'),
    choices,
    defaultText: o.default === undefined || o.type === 'boolean' ? undefined : String(o.default),
    describe: o.describe,
    repeatable: o.array,
    complete: choices.length > 0 ? 'choices' : (VALUE_COMPLETION[o.name] ?? 'none'),
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
