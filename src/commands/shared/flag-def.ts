import type { Argv, Options } from 'yargs';
import { usageError } from '../../errors.js';
import { checkNumber, type NumberRule } from '../../protocol/number-rule.js';

/** What yargs hands over once the words are parsed: untyped until read through the flag tables (flagValues). */
export type ParsedArgv = Readonly<Record<string, unknown>>;

/**
 * One flag, declared once: yargs is built from it (applyFlags), and so are the fast path's
 * reading of the words (cli/prescan.ts), the help, the man page, the completions, the config
 * keys and the environment list (docs/architecture.md, "Adding a flag").
 */
export interface FlagDef extends NumberRule {
  /** The long name, kebab-case (`idle-timeout`); the argv key the parse steps read. */
  name: string;
  /** A one-letter spelling (`o` for `-o`). */
  alias?: string;
  type: 'string' | 'number' | 'boolean' | 'count';
  /**
   * The values a string flag takes: yargs refuses any other; flagValues reads one outside them
   * (a parse step called directly) as the default, else absent.
   */
  choices?: readonly string[];
  /** A string flag given empty or blank is refused (`--NAME is empty`) with this hint. */
  emptyHint?: string;
  // A number flag's bounds (`integer`, `min`, `max`: NumberRule) are checked once, by flagValues,
  // with one wording (`--rounds must be a whole number from 1 to 100`).
  /** What yargs fills in when the flag is absent; leave it out where env or config may supply one. */
  default?: unknown;
  /** The default as help shows it, for a flag whose default comes later (env, config, a constant). */
  defaultDescription?: string;
  /**
   * Every occurrence is kept (`--tool A --tool B`), one value per occurrence. Otherwise the flag
   * is single-valued and the last occurrence wins, as in gh, git and curl.
   */
  repeatable?: boolean;
  /** The environment variable that stands in for the flag when it is not given. */
  env?: string;
  /** The config file key that stands in for the flag when neither it nor `env` is given. */
  configKey?: string;
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
  return def.alias !== undefined && def.alias.length === 1 ? `-${def.alias}/--${def.name}` : `--${def.name}`;
}

/** A string flag as given, or undefined when absent (yargs leaves absent flags out). */
export function stringFlag(argv: ParsedArgv, key: string): string | undefined {
  const v = argv[key];
  return typeof v === 'string' ? v : undefined;
}

/** A repeatable or variadic flag as a list of strings. */
export function stringList(argv: ParsedArgv, key: string): string[] {
  const v = argv[key];
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
 * The flags of one table read from the parsed words, checked against the table: a number
 * outside its bounds is a usage error in the one wording of protocol/number-rule.ts; a value of
 * another type than the table's (a parse step called directly) reads as absent. yargs has
 * already refused unknown choices and typed the values; this is what turns them into types.
 */
export function flagValues<const F extends readonly FlagDef[]>(defs: F, argv: ParsedArgv): FlagValues<F> {
  const out: Record<string, unknown> = {};
  for (const def of defs) out[def.name] = flagValue(def, argv);
  return out as FlagValues<F>;
}

function flagValue(def: FlagDef, argv: ParsedArgv): unknown {
  const raw = argv[def.name];
  switch (def.type) {
    case 'boolean':
      // A default of true stays unless --no-NAME said false; of false, unless --NAME said true.
      if (def.default === true) return raw !== false;
      if (def.default === false) return raw === true;
      return typeof raw === 'boolean' ? raw : undefined;
    case 'count':
      return typeof raw === 'number' ? raw : 0;
    case 'number': {
      if (raw === undefined) return def.default;
      const bounded = def.integer !== undefined || def.min !== undefined || def.max !== undefined;
      if (bounded) return checkNumber(def, raw, flagLabel(def));
      return typeof raw === 'number' ? raw : def.default;
    }
    case 'string': {
      if (def.repeatable === true) {
        const list = stringList(argv, def.name);
        for (const v of list) refuseBlank(def, v);
        return list;
      }
      if (def.choices !== undefined) return def.choices.find((c) => c === raw) ?? def.default;
      if (typeof raw !== 'string') return def.default;
      refuseBlank(def, raw);
      return raw;
    }
  }
}

function refuseBlank(def: FlagDef, v: string): void {
  if (def.emptyHint !== undefined && v.trim() === '') throw usageError(`${flagLabel(def)} is empty`, def.emptyHint);
}
