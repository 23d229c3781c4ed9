import type { Argv } from 'yargs';
import { usageError } from '../../errors.js';
import { stringFlag, stringList, type ParsedArgv } from '../command.js';
import { STDIN_MARKER } from './prompt.js';

/** One flag as data (the shape the command table of the flags work uses; unified there). */
export interface FlagDef {
  name: string;
  alias?: string;
  type: 'string' | 'number' | 'boolean' | 'count';
  choices?: readonly string[];
  default?: unknown;
  repeatable?: boolean;
  env?: string;
  configKey?: string;
  describe: string;
  group?: string;
}

export const DEFAULT_SCHEMA_RETRIES = 1;
const MAX_SCHEMA_RETRIES = 5;

/** Files as context (-f). Repeatable flags are strings, not yargs arrays, which would swallow the prompt words. */
export const FILE_FLAGS: FlagDef[] = [
  {
    name: 'file',
    alias: 'f',
    type: 'string',
    repeatable: true,
    describe:
      "attach a file after the question, fenced, its path as the info string: PATH, a glob ('src/**/*.ts') or - for stdin; repeatable",
    group: 'Input:',
  },
];

/** Answers that match a JSON Schema (--schema). */
export const SCHEMA_FLAGS: FlagDef[] = [
  {
    name: 'schema',
    type: 'string',
    describe:
      'the answer must be JSON matching this JSON Schema (a file, or the JSON itself); checked here, exit 14 if not',
    group: 'Input:',
  },
  {
    name: 'schema-name',
    type: 'string',
    describe: 'the name sent with the schema (default: its title, else answer)',
    group: 'Input:',
  },
  {
    name: 'schema-retries',
    type: 'number',
    describe: `corrective turns after an answer that does not match --schema (default ${DEFAULT_SCHEMA_RETRIES}, at most ${MAX_SCHEMA_RETRIES})`,
    group: 'Input:',
  },
];

/** Prompt templates (--template). */
export const TEMPLATE_FLAGS: FlagDef[] = [
  {
    name: 'template',
    type: 'string',
    describe: 'the prompt from a template file with {{name}} placeholders and front matter',
    group: 'Input:',
  },
  {
    name: 'var',
    type: 'string',
    repeatable: true,
    describe: 'a template variable: NAME=VALUE, repeatable',
    group: 'Input:',
  },
  {
    name: 'vars',
    type: 'string',
    describe: 'template variables from a JSON file of {"NAME": "VALUE"}',
    group: 'Input:',
  },
];

export const INPUT_FLAGS: FlagDef[] = [...FILE_FLAGS, ...SCHEMA_FLAGS, ...TEMPLATE_FLAGS];

/** What a turn is made of beyond its words (ask, continue, fork): files, a schema, a template. */
export interface InputOptions {
  files: string[];
  schema: string | undefined;
  schemaName: string | undefined;
  schemaRetries: number;
  template: string | undefined;
  /** `--var NAME=VALUE` as given. */
  vars: string[];
  varsFile: string | undefined;
}

/** Adds the input flags to a command (a sibling of withTurnOptions). */
export function withInputOptions(y: Argv, flags: readonly FlagDef[] = INPUT_FLAGS): Argv {
  let out = y;
  for (const def of flags) {
    out = out.option(def.name, {
      type: def.type,
      describe: def.describe,
      ...(def.alias === undefined ? {} : { alias: def.alias }),
      ...(def.choices === undefined ? {} : { choices: def.choices }),
      ...(def.default === undefined ? {} : { default: def.default }),
      ...(def.group === undefined ? {} : { group: def.group }),
    });
  }
  return out;
}

/** The input flags, checked; a bad value is a usage error. */
export function parseInputOptions(argv: ParsedArgv): InputOptions {
  const retries = argv['schema-retries'];
  let schemaRetries = DEFAULT_SCHEMA_RETRIES;
  if (retries !== undefined) {
    if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0 || retries > MAX_SCHEMA_RETRIES)
      throw usageError(`--schema-retries must be a whole number from 0 to ${MAX_SCHEMA_RETRIES}`);
    schemaRetries = retries;
  }
  const opts: InputOptions = {
    // run-cli hands a lone `-` over as the marker, also after -f.
    files: stringList(argv, 'file').map((f) => (f === STDIN_MARKER ? '-' : f)),
    schema: stringFlag(argv, 'schema'),
    schemaName: stringFlag(argv, 'schema-name'),
    schemaRetries,
    template: stringFlag(argv, 'template'),
    vars: stringList(argv, 'var'),
    varsFile: stringFlag(argv, 'vars'),
  };
  if (opts.files.some((f) => f.trim() === ''))
    throw usageError('-f/--file is empty', "e.g. -f notes.txt or -f 'src/**/*.ts'");
  if (opts.files.filter((f) => f === '-').length > 1) throw usageError('only one -f - can read standard input');
  if (opts.schema !== undefined && opts.schema.trim() === '')
    throw usageError('--schema is empty', 'give a JSON Schema file, or the schema as JSON');
  if (opts.template === undefined && (opts.vars.length > 0 || opts.varsFile !== undefined))
    throw usageError('--var and --vars fill a --template', 'add --template FILE');
  return opts;
}
