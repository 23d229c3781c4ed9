import type { Argv, Options } from 'yargs';

/**
 * One flag, declared once: yargs is built from it (applyFlags), and so are the fast path's
 * reading of the words (cli/prescan.ts), the help, the man page, the completions, the config
 * keys and the environment list (docs/architecture.md, "Adding a flag").
 */
export interface FlagDef {
  /** The long name, kebab-case (`idle-timeout`); the argv key the parse steps read. */
  name: string;
  /** A one-letter spelling (`o` for `-o`). */
  alias?: string;
  type: 'string' | 'number' | 'boolean' | 'count';
  choices?: readonly string[];
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
  /** More than a help line holds, for the man page and README's option tables. */
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
