import type { Argv, Options } from 'yargs';
import { usageError } from '../../errors.js';
import { checkSettingValue, sourceLabel, type ValueRule } from './setting-rule.js';

export type { ValueRule, ValueSource } from './setting-rule.js';
export { checkSettingValue, resolveSetting } from './setting-rule.js';

// The flag tables, and the one reader of the parsed words.
//
// A command declares its flags and positionals as data and reads them only through this file:
//
//   const FLAGS = [
//     { name: 'out', type: 'string', describe: '...' },
//     { name: 'force', type: 'boolean', describe: '...' },
//   ] as const satisfies readonly FlagDef[];
//   const POSITIONALS = [{ name: 'id', describe: '...' }] as const satisfies readonly PositionalDef[];
//
//   parse(argv) {
//     const f = flagValues(FLAGS, argv);             // f.out: string | undefined, f.force: boolean | undefined
//     const p = positionalValues(POSITIONALS, argv); // p.id: string | undefined, p['--']: the words after --
//     ...
//   }
//
// `as const satisfies` keeps each entry's literal name and type, so a read of a flag the table
// lacks, or as the wrong type, does not compile. A shared group of flags (the turn flags, the
// gate flags) is its own `as const` table, read by its own parse step. No code outside this file
// indexes the parsed words (`argv['out']`): test/commands/typed-parse.test.ts fails on one. A
// value's rule (choices, the number rule, a form) is the entry's, checked by setting-rule.ts the
// same way for a flag, its environment variable, its config key and an MCP argument; a parse
// step adds only rules between flags (two that exclude each other).

/** What yargs hands over once the words are parsed: untyped until read through the flag tables (flagValues). */
export type ParsedArgv = Readonly<Record<string, unknown>>;

/**
 * One flag, declared once: yargs is built from it (applyFlags), and so are the fast path's
 * reading of the words (cli/prescan.ts), the help, the man page, the completions, the config
 * keys and the environment list (docs/architecture.md, "Adding a flag"). Its value's rule
 * (ValueRule: the choices, the number rule, emptiness, a form) is checked by one function for
 * every place the value comes from: the flag, its environment variable, its config key, an MCP
 * argument (setting-rule.ts: checkSettingValue, resolveSetting).
 */
export interface FlagDef extends ValueRule {
  /** What yargs fills in when the flag is absent; leave it out where env or config may supply one. */
  default?: unknown;
  /** The default as help shows it, for a flag whose default comes later (env, config, a constant). */
  defaultDescription?: string;
  /**
   * Every occurrence is kept (`--tool A --tool B`), one value per occurrence. Otherwise the flag
   * is single-valued and the last occurrence wins, as in gh, git and curl.
   */
  repeatable?: boolean;
  describe: string;
  /** More than a help line holds, for the man page and the manual's option tables (docs/). */
  details?: string;
  /** The help section, when not the command's own `Options:`. */
  group?: string;
  /** Accepted, never shown (help, man page, completions). */
  hidden?: boolean;
  /**
   * false: words holding this flag go to yargs rather than the fast path, for a flag the
   * prescan cannot read as yargs would. A command opts in as a whole (CommandDef.fast).
   */
  fast?: false;
  /** The value's name in help and the man page (`URL`, `FILE`); default: from the name. */
  valueName?: string;
  /** What a shell completes for the value; default: the choices, else nothing. */
  complete?: 'file' | 'dir' | 'session' | 'policy';
  /** A value the generated parser tests give the flag (default: from its choices or type). */
  sample?: string;
  /**
   * The flag changes what a turn asks (src/turn/idempotency/request-identity.ts): two runs that differ in it
   * are not "the same request" for --idempotency-key and `batch --resume`. A test fails when a
   * flag so marked leaves the identity unchanged, or one not marked changes it.
   */
  shapesRequest?: true;
}

/** A positional argument of a command, in the order of its `command` words. */
export interface PositionalDef {
  name: string;
  describe: string;
  /** Several words (`[prompt..]`). */
  array?: boolean;
  choices?: readonly string[];
  complete?: 'file' | 'dir' | 'session' | 'policy';
}

/** The key yargs also sets for a kebab-case name (`idle-timeout` -> `idleTimeout`). */
export function camelKey(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The last of a repeated single-valued flag; yargs collects repeats into an array. */
function lastValue(v: unknown): unknown {
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/**
 * A flag's help line: its description, then the settings that stand in for it, written from the
 * table so that help, the man page and the completions name them alike (`(env NSED_URL, config url)`).
 */
export function flagHelp(def: FlagDef): string {
  const also = [
    ...(def.env === undefined ? [] : [`env ${def.env}`]),
    ...(def.configKey === undefined ? [] : [`config ${def.configKey}`]),
  ];
  return also.length === 0 ? def.describe : `${def.describe} (${also.join(', ')})`;
}

/** The yargs options of one definition. */
export function yargsOptions(def: FlagDef, global = false): Options {
  const o: Options = { describe: flagHelp(def) };
  if (def.type === 'count') o.count = true;
  else o.type = def.type;
  if (def.alias !== undefined) o.alias = def.alias;
  if (def.choices !== undefined) o.choices = [...def.choices];
  if (def.default !== undefined) o.default = def.default;
  if (def.defaultDescription !== undefined) o.defaultDescription = def.defaultDescription;
  if (def.hidden === true) o.hidden = true;
  if (global) o.global = true;
  // yargs validates the choices after coercion, so only the value that counts is checked.
  if (def.repeatable !== true && (def.type === 'string' || def.type === 'number')) o.coerce = lastValue;
  return o;
}

/** Declares every flag of a list to yargs. */
export function applyFlags<T>(y: Argv<T>, defs: readonly FlagDef[], global = false): Argv<T> {
  let out = y;
  for (const def of defs) out = out.option(def.name, yargsOptions(def, global));
  return out;
}

/** A flag as messages name it: `-j/--jobs`, `--rounds`. */
export function flagLabel(def: Pick<FlagDef, 'name' | 'alias'>): string {
  return sourceLabel({ ...def, type: 'string' }, { kind: 'flag' });
}

/** A repeatable flag or a variadic positional as a list of strings (one word: a list of one). */
function listOf(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];
}

type HasDefault<D, T> = D extends { default: T } ? never : undefined;

/**
 * The type of one flag's value as its parse step reads it, from its definition (as wrangler
 * infers a handler's arguments from its `args`): a boolean, a count, a repeatable flag's list,
 * one of its choices, a number, a string; `undefined` when absent and no default stands in.
 */
export type FlagValue<D extends FlagDef> = D extends { type: 'boolean' }
  ? boolean | HasDefault<D, boolean>
  : D extends { type: 'count' }
    ? number
    : D extends { repeatable: true }
      ? string[]
      : D extends { choices: readonly (infer C)[] }
        ? C | HasDefault<D, string>
        : D extends { type: 'number' }
          ? number | HasDefault<D, number>
          : string | HasDefault<D, string>;

/**
 * The values of a flag table, by flag name, typed from the table. Declare a table
 * `[...] as const satisfies readonly FlagDef[]` so its names and types are known to the compiler:
 * a flag read that the table lacks, or read as the wrong type, then fails to compile.
 */
export type FlagValues<F extends readonly FlagDef[]> = {
  readonly [D in F[number] as D['name']]: FlagValue<D>;
};

/**
 * The flags of one table read from the parsed words, checked against the table: a value outside
 * its rule (a number out of bounds, a string not among the choices) is a usage error in the
 * rule's one wording (setting-rule.ts); a value of another type than the table's (a parse step
 * called directly) reads as absent. yargs has already refused
 * unknown choices and typed the values; this is what turns them into types.
 */
export function flagValues<const F extends readonly FlagDef[]>(defs: F, argv: ParsedArgv): FlagValues<F> {
  const out: Record<string, unknown> = {};
  for (const def of defs) out[def.name] = flagValue(def, argv);
  return out as FlagValues<F>;
}

function flagValue(def: FlagDef, argv: ParsedArgv): unknown {
  const raw = argv[def.name];
  // yargs keeps the last of a repeated single-valued flag (yargsOptions): a list here was handed
  // over by a parse step's caller (an MCP tool), which must say which one it means.
  if (Array.isArray(raw) && def.repeatable !== true && (def.type === 'string' || def.type === 'number'))
    throw usageError(`${flagLabel(def)} is given more than once`);
  switch (def.type) {
    case 'boolean':
      // A default of true stays unless --no-NAME said false; of false, unless --NAME said true.
      if (def.default === true) return raw !== false;
      if (def.default === false) return raw === true;
      return typeof raw === 'boolean' ? raw : undefined;
    case 'count':
      return typeof raw === 'number' ? raw : 0;
    case 'number':
      return raw === undefined ? def.default : checkSettingValue(def, raw, { kind: 'flag' });
    case 'string': {
      if (def.repeatable === true) {
        const list = listOf(raw);
        for (const v of list) refuseBlank(def, v);
        return list;
      }
      if (typeof raw !== 'string') return def.default;
      // yargs refuses another choice; a parse step's caller (an MCP tool) gets the rule's own line.
      if (def.choices !== undefined) return checkSettingValue(def, raw, { kind: 'flag' });
      // A form (a URL, a list of agents) is the setting's to read (resolveSetting); the flag stays as typed.
      refuseBlank(def, raw);
      return raw;
    }
  }
}

function refuseBlank(def: FlagDef, v: string): void {
  if (def.emptyHint !== undefined && v.trim() === '') throw usageError(`${flagLabel(def)} is empty`, def.emptyHint);
}

/** The command's words as yargs read them (`sessions`, `ls`): what names the command to run. */
export function commandWords(argv: ParsedArgv): string[] {
  return listOf(argv['_']);
}

/** The type of one positional's value: a variadic one's words, one of its choices, a word. */
export type PositionalValue<D extends PositionalDef> = D extends { array: true }
  ? string[]
  : D extends { choices: readonly (infer C)[] }
    ? C | undefined
    : string | undefined;

/**
 * The positionals of a command, by name, typed from their table, and the words after `--`
 * (`nsed ask -- -starts-with-a-dash`), which yargs keeps apart.
 */
export type PositionalValues<P extends readonly PositionalDef[]> = {
  readonly [D in P[number] as D['name']]: PositionalValue<D>;
} & { readonly '--': string[] };

/**
 * The positionals of one table read from the parsed words: a variadic one as its list of words,
 * a choice as one of its choices (another is a usage error, in the words of a setting's choices),
 * a word as a string; absent when not given. Declare the table `[...] as const satisfies readonly PositionalDef[]`.
 */
export function positionalValues<const P extends readonly PositionalDef[]>(
  defs: P,
  argv: ParsedArgv,
): PositionalValues<P> {
  const out: Record<string, unknown> = { '--': listOf(argv['--']) };
  for (const def of defs) {
    const raw = argv[def.name];
    if (def.array === true) out[def.name] = listOf(raw);
    else if (def.choices !== undefined && raw !== undefined) {
      const choice = def.choices.find((c) => c === raw);
      if (choice === undefined)
        throw usageError(`${def.name} must be one of ${def.choices.join(', ')}, not '${String(raw).slice(0, 40)}'`);
      out[def.name] = choice;
    } else out[def.name] = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
  }
  return out as PositionalValues<P>;
}
