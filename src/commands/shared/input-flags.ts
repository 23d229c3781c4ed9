import { usageError } from '../../errors.js';
import { STDIN_MARKER } from '../../input/prompt.js';
import type { InputOptions } from '../../input/turn-input.js';
import type { ParsedArgv } from '../command.js';
import { flagValues, type FlagDef } from './flag-def.js';

export const DEFAULT_SCHEMA_RETRIES = 1;
const MAX_SCHEMA_RETRIES = 5;

// Every input flag is `fast: false`: dist/ask.cjs is built without the glob expander and the JSON
// Schema validator (scripts/build.mjs), so a turn with any of them runs from dist/main.js.

/** Files as context (-f). Repeatable flags are strings, not yargs arrays, which would swallow the prompt words. */
const FILE = [
  {
    name: 'file',
    shapesRequest: true,
    fast: false,
    valueName: 'PATH',
    complete: 'file',
    sample: 'notes.md',
    alias: 'f',
    type: 'string',
    repeatable: true,
    describe:
      "attach a file after the question, fenced, its path as the info string: PATH, a glob ('src/**/*.ts') or - for stdin; repeatable",
    emptyHint: "e.g. -f notes.txt or -f 'src/**/*.ts'",
    group: 'Input:',
  },
] as const satisfies readonly FlagDef[];

/** Answers that match a JSON Schema (--schema). */
const SCHEMA = [
  {
    name: 'schema',
    shapesRequest: true,
    fast: false,
    valueName: 'FILE|JSON',
    complete: 'file',
    sample: 'answer.schema.json',
    type: 'string',
    describe:
      'the answer must be JSON matching this JSON Schema (a file, or the JSON itself); checked here, exit 14 if not',
    emptyHint: 'give a JSON Schema file, or the schema as JSON',
    group: 'Input:',
  },
  {
    name: 'schema-name',
    shapesRequest: true,
    fast: false,
    valueName: 'NAME',
    sample: 'answer',
    type: 'string',
    describe: 'the name sent with the schema (default: its title, else answer)',
    group: 'Input:',
  },
  {
    name: 'schema-retries',
    fast: false,
    valueName: 'N',
    type: 'number',
    integer: true,
    min: 0,
    max: MAX_SCHEMA_RETRIES,
    describe: `corrective turns after an answer that does not match --schema (default ${DEFAULT_SCHEMA_RETRIES}, at most ${MAX_SCHEMA_RETRIES})`,
    group: 'Input:',
  },
] as const satisfies readonly FlagDef[];

/** Prompt templates (--template). */
const TEMPLATE = [
  {
    name: 'template',
    shapesRequest: true,
    fast: false,
    valueName: 'FILE',
    complete: 'file',
    sample: 'review.md',
    type: 'string',
    describe: 'the prompt from a template file with {{name}} placeholders and front matter',
    group: 'Input:',
  },
  {
    name: 'var',
    shapesRequest: true,
    fast: false,
    valueName: 'NAME=VALUE',
    sample: 'lang=ts',
    type: 'string',
    repeatable: true,
    describe: 'a template variable: NAME=VALUE, repeatable',
    group: 'Input:',
  },
  {
    name: 'vars',
    shapesRequest: true,
    fast: false,
    valueName: 'FILE',
    complete: 'file',
    sample: 'vars.json',
    type: 'string',
    describe: 'template variables from a JSON file of {"NAME": "VALUE"}',
    group: 'Input:',
  },
] as const satisfies readonly FlagDef[];

export const FILE_FLAGS: readonly FlagDef[] = FILE;
export const SCHEMA_FLAGS: readonly FlagDef[] = SCHEMA;
export const TEMPLATE_FLAGS: readonly FlagDef[] = TEMPLATE;
export const INPUT_FLAGS: readonly FlagDef[] = [...FILE_FLAGS, ...SCHEMA_FLAGS, ...TEMPLATE_FLAGS];

/** The input flags, checked; a bad value is a usage error. */
export function parseInputOptions(argv: ParsedArgv): InputOptions {
  const f = flagValues([...FILE, ...SCHEMA, ...TEMPLATE] as const, argv);
  const opts: InputOptions = {
    // run-cli hands a lone `-` over as the marker, also after -f.
    files: f.file.map((file) => (file === STDIN_MARKER ? '-' : file)),
    schema: f.schema,
    schemaName: f['schema-name'],
    schemaRetries: f['schema-retries'] ?? DEFAULT_SCHEMA_RETRIES,
    template: f.template,
    vars: f.var,
    varsFile: f.vars,
  };
  if (opts.files.filter((file) => file === '-').length > 1) throw usageError('only one -f - can read standard input');
  if (opts.template === undefined && (opts.vars.length > 0 || opts.varsFile !== undefined))
    throw usageError('--var and --vars fill a --template', 'add --template FILE');
  return opts;
}
