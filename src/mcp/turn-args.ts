// The arguments of the turn tools (deliberate, continue, fork) that stand for CLI flags, made
// from the flags' own entries (FlagDef): the argument's name is the flag's in snake_case, its
// type, choices, bounds and description are the entry's, and its value becomes the word the
// command's own parse reads. So a renamed or re-ruled flag changes the tool when nsed is built,
// and a bad value is refused by the flag's rule, in its words, naming the argument.
//
// Where a JSON value says more naturally what the flag spells as text, the argument's shape
// differs and the mapping says how: a comma list is an array, a repeatable flag a plural array,
// a JSON-or-file flag the JSON itself.

import { usageError } from '../errors.js';
import type { FlagDef } from '../commands/shared/flag-def.js';
import { checkSettingValue } from '../commands/shared/setting-rule.js';
import { GATE_FLAGS, gateFlagOf } from '../commands/shared/gate-flags.js';
import { IDEMPOTENCY_FLAGS } from '../commands/shared/idempotency-flags.js';
import { FILE_FLAGS, SCHEMA_FLAGS } from '../commands/shared/input-flags.js';
import { CORE_TURN_FLAGS } from '../commands/shared/turn-flags.js';
import { fork } from '../commands/fork.js';
import { gateEntry } from '../input/gates-file.js';
import { GATE_NAMES, type GateName } from '../council/verdict.js';

type Schema = Record<string, unknown>;
type Argv = Record<string, unknown>;

/**
 * How an argument's JSON stands for its flag's words:
 * - `value`: the flag's own type (a string, a number, a boolean), as given;
 * - `list`: an array for a comma list (`--agents A,B`), joined;
 * - `each`: a plural array for a repeatable flag (`-f a -f b` is `files: [a, b]`);
 * - `json`: the JSON itself for a flag that takes a file or the JSON text (`--schema`);
 * - `gates`: one object for the gate flags, each key a gate's name (the --gates file's keys);
 * - `tools`: the tools file's entries themselves, which the server writes to a file for `--tools`.
 */
export type ArgShape = 'value' | 'list' | 'each' | 'json' | 'gates' | 'tools';

export interface TurnArg {
  /** The argument's name: the flag's in snake_case (`max-cost` is `max_cost`); a plural for `each`. */
  name: string;
  flag: FlagDef;
  shape: ArgShape;
  /** Only deliberate takes it (a key names a new request, not a follow-up). */
  deliberateOnly?: true;
}

/** The MCP argument of a flag name: snake_case, as MCP tool arguments are spelled. */
export const argName = (flag: string): string => flag.replaceAll('-', '_');

const byName = (defs: readonly FlagDef[], name: string): FlagDef => {
  const def = defs.find((d) => d.name === name);
  // Caught by every test that loads the tools: a flag this table names was renamed or removed.
  if (def === undefined) throw new Error(`the turn tools stand for --${name}, which no flag table defines`);
  return def;
};

const arg = (defs: readonly FlagDef[], flag: string, shape: ArgShape, more: Partial<TurnArg> = {}): TurnArg => {
  const def = byName(defs, flag);
  return { name: shape === 'each' ? `${argName(flag)}s` : argName(flag), flag: def, shape, ...more };
};

/** The turn flags a tool call may set, in the order tools/list shows them. */
export const TURN_ARGS: readonly TurnArg[] = [
  arg(CORE_TURN_FLAGS, 'policy', 'value'),
  arg(CORE_TURN_FLAGS, 'agents', 'list'),
  arg(CORE_TURN_FLAGS, 'rounds', 'value'),
  arg(FILE_FLAGS, 'file', 'each'),
  arg(SCHEMA_FLAGS, 'schema', 'json'),
  arg(GATE_FLAGS, 'gates', 'gates'),
  arg(CORE_TURN_FLAGS, 'max-cost', 'value'),
  arg(CORE_TURN_FLAGS, 'max-tokens', 'value'),
  arg(CORE_TURN_FLAGS, 'allow-unmetered', 'value'),
  arg(CORE_TURN_FLAGS, 'tools', 'tools'),
  arg(CORE_TURN_FLAGS, 'ask-user', 'value'),
  arg(IDEMPOTENCY_FLAGS, 'idempotency-key', 'value', { deliberateOnly: true }),
];

/** fork's `at`: the last turn the branch keeps. */
export const AT_ARG: TurnArg = arg(fork.flags ?? [], 'at', 'value');

/** A number flag's bounds as JSON Schema says them (a positive cap is `exclusiveMinimum: 0`). */
function numberSchema(def: FlagDef): Schema {
  return {
    type: def.integer === true ? 'integer' : 'number',
    ...(def.min === undefined ? {} : { minimum: def.min }),
    ...(def.max === undefined ? {} : { maximum: def.max }),
    ...(def.exclusiveMin === undefined ? {} : { exclusiveMinimum: def.exclusiveMin }),
  };
}

/** Each gate's value as the --gates file holds it: one entry per gate the CLI knows (the compiler checks). */
const GATE_TYPES: Record<GateName, 'number' | 'integer'> = {
  'min-convergence': 'number',
  'max-wrong': 'integer',
  'max-contested': 'integer',
  'min-score': 'number',
  'min-margin': 'number',
  'min-agreement': 'number',
  'min-endorse': 'integer',
  'min-endorse-share': 'number',
  'max-synthetic': 'number',
  'max-cost': 'number',
};

/** The tools file's entry as a host gives it: a name, and what the council reads of it. */
const TOOL_ENTRY: Schema = {
  type: 'object',
  properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } },
  required: ['name'],
};

/** The argument's JSON Schema, without its description. */
function bareSchema(a: TurnArg): Schema {
  const def = a.flag;
  switch (a.shape) {
    case 'value':
      if (def.type === 'number') return numberSchema(def);
      if (def.choices !== undefined) return { enum: [...def.choices] };
      return { type: def.type === 'boolean' ? 'boolean' : 'string' };
    case 'list':
    case 'each':
      return { type: 'array', items: { type: 'string' } };
    case 'json':
      return { type: 'object' };
    case 'gates':
      return {
        type: 'object',
        properties: Object.fromEntries(GATE_NAMES.map((n) => [n, { type: GATE_TYPES[n] }])),
        additionalProperties: false,
      };
    case 'tools':
      return { type: 'array', items: TOOL_ENTRY };
  }
}

/**
 * What a tool says of the argument where its JSON is not the flag's text: the flag's own line
 * speaks of a file or a comma list, which would mislead a model that gives an array or an object.
 */
const SHAPE_DESCRIPTIONS: Partial<Record<ArgShape, string>> = {
  each: 'workspace files or globs to attach',
  json: 'a JSON Schema the answer must match',
  gates: 'thresholds the answer must pass, by gate name',
  tools: 'tools the council may call; you answer them with answer_tool_call',
};

/**
 * The argument's JSON Schema as tools/list carries it: the flag's bounds, choices and help line,
 * the flags that line names said by `say` (in the tools' terms, tool-terms.ts); where the JSON
 * is not the flag's text, what the JSON is.
 */
export function argSchema(a: TurnArg, say: (text: string) => string): Schema {
  return { ...bareSchema(a), description: say(SHAPE_DESCRIPTIONS[a.shape] ?? helpLine(a.flag)) };
}

/**
 * A flag's help line without its parentheses, which say what a terminal adds (a default from the
 * config, the path a flag takes): the tool list is read on every request a host makes, so it
 * carries what a model needs to choose a value and no more.
 */
export const helpLine = (def: FlagDef): string => def.describe.replace(/ \([^()]*\)/g, '');

/**
 * Refuses a value its flag's rule refuses, in the words the CLI uses for the flag, naming the
 * argument (`rounds must be a whole number from 1 to 100`); before the schema's own checks, so
 * the rule speaks rather than the validator.
 */
export function checkTurnArgs(args: Readonly<Record<string, unknown>>): void {
  for (const a of TURN_ARGS) {
    const v = args[a.name];
    if (a.shape === 'gates') checkGates(v);
    if (v === undefined || a.shape !== 'value' || a.flag.type !== 'number') continue;
    checkSettingValue(a.flag, v, { kind: 'mcp', name: a.name });
  }
}

/**
 * The arguments as the command's parse reads its flags: the argv entries of the turn flags given.
 * `files` and `tools` are left to the caller, which confines the files to the workspace and
 * writes the tools file first; their argv entries are those of `each` and a file name.
 */
export function turnArgv(args: Readonly<Record<string, unknown>>): Argv {
  const argv: Argv = {};
  for (const a of TURN_ARGS) {
    const v = args[a.name];
    if (v === undefined) continue;
    switch (a.shape) {
      case 'value':
        // A boolean flag given false is the flag left out, as on a command line.
        if (v !== false) argv[a.flag.name] = v;
        break;
      case 'list':
        if (Array.isArray(v)) argv[a.flag.name] = v.map(String).join(',');
        break;
      case 'json':
        argv[a.flag.name] = JSON.stringify(v);
        break;
      case 'gates':
        Object.assign(argv, gateArgv(v));
        break;
      case 'each':
      case 'tools':
        break;
    }
  }
  return argv;
}

/** Each gate's value by the rule its flag and the --gates file keep (gateEntry), naming it `gates.NAME`. */
function checkGates(gates: unknown): void {
  if (typeof gates !== 'object' || gates === null) return;
  for (const [k, v] of Object.entries(gates))
    if (GATE_NAMES.includes(k as GateName) && (typeof v === 'number' || typeof v === 'string'))
      gateEntry(k as GateName, v, gateArg(k as GateName));
}

/** A gate as the tools name it: its key in `gates`. */
export const gateArg = (name: GateName): string => `gates.${name}`;

/** The gates object as the gate flags; a share of endorsements is --min-endorse as a percentage (docs/ndjson.md §4c). */
function gateArgv(gates: unknown): Argv {
  const argv: Argv = {};
  if (typeof gates !== 'object' || gates === null) return argv;
  for (const [k, v] of Object.entries(gates)) {
    if (!GATE_NAMES.includes(k as GateName)) throw usageError(`gates: no gate is named '${k.slice(0, 40)}'`);
    if (k === 'min-endorse-share') argv['min-endorse'] = `${Number(v) * 100}%`;
    else argv[gateFlagOf(k as GateName)] = String(v);
  }
  return argv;
}

/** The argument that stands for a flag, if one does: for errors that name the flag. */
export const argOfFlag = (flag: string): TurnArg | undefined => TURN_ARGS.find((a) => a.flag.name === flag);
