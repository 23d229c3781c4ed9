import { usageError, type NsedError } from '../../errors.js';
import { AGENT_NAME, commaList } from '../../protocol/council-names.js';
import { bounds, keepsRule, ruleText, type NumberRule } from '../../protocol/number-rule.js';
import type { Setting } from '../../run/settings.js';

/**
 * What a value must be, wherever it comes from: the part of a flag's definition (FlagDef extends
 * it) that checkSettingValue reads. A flag, its environment variable, its config key and an MCP
 * argument standing in for it are all checked by this one rule, so each is refused with the same
 * line, naming where the value came from (`--max-cost`, `NSED_MAX_COST`, `max_cost`).
 */
export interface ValueRule extends NumberRule {
  /** The long name, kebab-case (`idle-timeout`). */
  name: string;
  /** A one-letter spelling (`o` for `-o`). */
  alias?: string;
  type: 'string' | 'number' | 'boolean' | 'count';
  /** The values a string takes; any other is refused. */
  choices?: readonly string[];
  /** A string given empty or blank is refused (`--NAME is empty`) with this hint. */
  emptyHint?: string;
  /** The environment variable that stands in for the flag when it is not given. */
  env?: string;
  /** The config file key that stands in for the flag when neither it nor `env` is given. */
  configKey?: string;
  /**
   * What a string must look like beyond not being blank: `url` an http(s) URL (its trailing
   * slashes dropped), `agents` a comma list of two or more agent names (read as a list), `path`
   * a file path (resolved where it is read: a config file's is relative to the file).
   */
  form?: 'url' | 'agents' | 'path';
}

/**
 * Where a value came from, as its refusal names it: the flag as typed, the environment
 * variable, the config file's key, or an MCP tool's argument (`{kind: 'mcp', name: 'max_cost'}`).
 */
export type ValueSource = { kind: 'flag' } | { kind: 'env' } | { kind: 'config' } | { kind: 'mcp'; name: string };

/** The name a refusal gives the value: `-o/--output`, `NSED_PROGRESS`, `on_exit`, `max_cost`. */
export function sourceLabel(def: ValueRule, source: ValueSource): string {
  switch (source.kind) {
    case 'flag':
      return def.alias !== undefined && def.alias.length === 1 ? `-${def.alias}/--${def.name}` : `--${def.name}`;
    case 'env':
      return def.env ?? `--${def.name}`;
    case 'config':
      return def.configKey ?? def.name.replace(/-/g, '_');
    case 'mcp':
      return source.name;
  }
}

/** Text as the environment gives a number: `'0.5'`, `' 3 '`; blank is no number. */
function numberOf(raw: unknown, source: ValueSource): unknown {
  // Only the environment holds text: a flag is typed by yargs, a config file and an MCP argument
  // are JSON, where a number written as a string is a string, and refused.
  if (typeof raw !== 'string' || source.kind !== 'env') return raw;
  return raw.trim() === '' ? Number.NaN : Number(raw);
}

/**
 * One value checked against its rule, from any source, and returned in its type: a number
 * against the number rule (text from the environment read as a number), a choice against the
 * choices, a string against being blank and its form, a boolean as a boolean. A value outside
 * the rule is a usage error whose line is the same for every source but the name it gives.
 * This is what an MCP tool's argument goes through: `checkSettingValue(def, args.max_cost,
 * {kind: 'mcp', name: 'max_cost'})`.
 */
export function checkSettingValue(def: ValueRule, raw: unknown, source: ValueSource): unknown {
  const label = sourceLabel(def, source);
  switch (def.type) {
    case 'number':
    case 'count': {
      const n = numberOf(raw, source);
      if (bounds(def) ? !keepsRule(def, n) : typeof n !== 'number' || !Number.isFinite(n))
        throw usageError(`${label} must be ${ruleText(def)}`);
      return n;
    }
    case 'boolean':
      if (typeof raw !== 'boolean') throw usageError(`${label} must be true or false`);
      return raw;
    case 'string':
      return checkString(def, raw, label);
  }
}

function checkString(def: ValueRule, raw: unknown, label: string): unknown {
  if (def.form === 'agents' && Array.isArray(raw)) return checkAgents(raw, label);
  if (typeof raw !== 'string') throw usageError(`${label} must be ${stringWhat(def)}`);
  if (def.choices !== undefined) {
    const text = raw.trim();
    const choice = def.choices.find((c) => c === text);
    if (choice === undefined)
      throw usageError(`${label} must be one of ${def.choices.join(', ')}, not '${text.slice(0, 40)}'`);
    return choice;
  }
  if (raw.trim() === '' && (def.emptyHint !== undefined || def.form !== undefined))
    throw usageError(`${label} is empty`, def.emptyHint ?? `give ${stringWhat(def)}`);
  switch (def.form) {
    case 'agents':
      return checkAgents(commaList(raw), label);
    case 'url':
      return checkUrl(raw, label);
    case 'path':
      return raw;
    case undefined:
      // A word (a policy) is a word: the spaces around it, as an environment file leaves them, are not part of it.
      return def.emptyHint === undefined ? raw : raw.trim();
  }
}

/** What a string rule asks for, in the words of a refusal. */
function stringWhat(def: ValueRule): string {
  if (def.choices !== undefined) return `one of ${def.choices.join(', ')}`;
  if (def.form === 'url') return 'an http:// or https:// URL';
  if (def.form === 'agents') return 'at least two agent names, e.g. CortexA,CortexB';
  if (def.form === 'path') return 'a file path';
  return 'text';
}

function checkAgents(list: readonly unknown[], label: string): string[] {
  const bad = list.find((a) => typeof a !== 'string' || !AGENT_NAME.test(a));
  if (bad !== undefined)
    throw usageError(
      `invalid agent name '${String(bad).slice(0, 40)}' in ${label}`,
      "agent names use letters, digits, '-' and '_'",
    );
  if (list.length < 2) throw usageError(`${label} needs at least two agent names`, 'e.g. CortexA,CortexB,CortexC');
  return list as string[];
}

function checkUrl(raw: string, label: string): string {
  const bad = (): NsedError => usageError(`${label} must be an http:// or https:// URL`);
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw bad();
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad();
  return raw.trim().replace(/\/+$/, '');
}

type Env = Readonly<Record<string, string | undefined>>;

/** The layers a setting may come from, each unchecked; absent (undefined) ones are skipped. */
export interface SettingLayers<T> {
  /** The flag's value as the command's parse read it (flagValues), when given. */
  flag?: unknown;
  /** The environment: the rule's `env` variable is read from it; blank is not set. */
  env?: Env;
  /** The config file's value of the rule's `configKey`. */
  config?: unknown;
  /** What the session recorded, where the setting has no other source. */
  session?: T | undefined;
  default: T;
}

/**
 * A setting resolved from its layers in the order they win (flag > env > config > session >
 * default), the rule applied to whichever layer gives it (checkSettingValue), so that a bad
 * value is refused with the same line wherever it came from, naming it. Returns the value with
 * its source and the name it was given under (`--url`, `NSED_URL`, `url`).
 */
export function resolveSetting<T>(def: ValueRule, layers: SettingLayers<T>): Setting<T> {
  if (layers.flag !== undefined)
    return { value: checkSettingValue(def, layers.flag, { kind: 'flag' }) as T, source: 'flag', from: `--${def.name}` };
  const envText = def.env === undefined ? undefined : layers.env?.[def.env];
  if (def.env !== undefined && envText !== undefined && envText.trim() !== '')
    return { value: checkSettingValue(def, envText, { kind: 'env' }) as T, source: 'env', from: def.env };
  if (def.configKey !== undefined && layers.config !== undefined)
    return {
      value: checkSettingValue(def, layers.config, { kind: 'config' }) as T,
      source: 'config',
      from: def.configKey,
    };
  if (layers.session !== undefined) return { value: layers.session, source: 'session', from: 'session' };
  return { value: layers.default, source: 'default', from: 'default' };
}
