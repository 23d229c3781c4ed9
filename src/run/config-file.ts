import { closeSync, constants as fsConstants, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { NsedError, storeError, usageError } from '../errors.js';
import { commaList } from '../protocol/council-names.js';
import type { OnExit, OutputMode, ProgressChoice } from '../output/modes.js';
import { checkSettingValue } from '../commands/shared/setting-rule.js';
import { CONFIG_FLAGS } from '../commands/shared/setting-flags.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The defaults a user may keep in the config file, typed. */
export interface ConfigValues {
  url?: string;
  policy?: string;
  agents?: string[];
  rounds?: number;
  idle_timeout?: number;
  output?: OutputMode;
  color?: boolean;
  token_file?: string;
  progress?: ProgressChoice;
  on_exit?: OnExit;
  /** The spend cap of every turn (src/council/spend-cap.ts). */
  max_cost?: number;
  max_tokens?: number;
}

export type ConfigKey = keyof ConfigValues;

/**
 * The keys the file may hold, each checked by checkValue. What a key means, and the flag it
 * stands in for, is declared once in the flag tables (FlagDef.configKey), from which `config
 * list`, help and the man page take it; test/commands/settings.test.ts holds the two together.
 */
const KEY_SET = {
  url: true,
  policy: true,
  agents: true,
  rounds: true,
  idle_timeout: true,
  output: true,
  color: true,
  token_file: true,
  progress: true,
  on_exit: true,
  max_cost: true,
  max_tokens: true,
} as const satisfies Record<ConfigKey, true>;

const KNOWN = Object.keys(KEY_SET) as ConfigKey[];

export function isConfigKey(key: string): key is ConfigKey {
  return (KNOWN as string[]).includes(key);
}

/** `NSED_CONFIG`, else `$XDG_CONFIG_HOME/nsed/config.json`, else `~/.config/nsed/config.json`. */
export function configPath(env: Env): string | undefined {
  if (env['NSED_CONFIG'] !== undefined && env['NSED_CONFIG'] !== '') return path.resolve(env['NSED_CONFIG']);
  // The XDG spec says relative values are invalid and must be ignored.
  const xdg = env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'nsed', 'config.json');
  const home = env['HOME'] || (process.platform === 'win32' ? env['USERPROFILE'] : undefined);
  return home ? path.join(path.resolve(home), '.config', 'nsed', 'config.json') : undefined;
}

/** What reading the config file found; `error` is set instead of throwing so doctor can show it. */
export interface LoadedConfig {
  path: string | undefined;
  exists: boolean;
  values: ConfigValues;
  /** Keys the file has that nsed does not know (ignored, and warned about). */
  unknown: string[];
  error: NsedError | undefined;
}

/**
 * The file's text. Synchronous: every command reads this small file first thing, and
 * node:fs/promises (with readline and the file watchers it loads) costs an empty `sessions ls`
 * a few ms. Opened without blocking, so a FIFO in its place reads as empty
 * instead of waiting forever for a writer (docs/reliability.md #83); read at most
 * MAX_CONFIG_BYTES + 1 bytes, so `NSED_CONFIG=/dev/zero` is an error (EFBIG), not a memory leak
 * without end (docs/reliability.md #179).
 */
function readConfigText(file: string): string {
  const fd = openSync(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_CONFIG_BYTES) throw Object.assign(new Error('config file too large'), { code: 'EFBIG' });
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Far past any config file nsed writes; short of filling memory from a device. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** One small JSON read; a missing file is an empty config, an unreadable one an error (exit 8). */
export async function loadConfig(env: Env): Promise<LoadedConfig> {
  const file = configPath(env);
  const empty: LoadedConfig = { path: file, exists: false, values: {}, unknown: [], error: undefined };
  if (file === undefined) return empty;
  let text: string;
  try {
    text = readConfigText(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return empty;
    return {
      ...empty,
      exists: true,
      error: storeError(`cannot read the config file ${file}: ${code ?? 'error'}`, { hint: 'check its permissions' }),
    };
  }
  try {
    const { values, unknown } = parseConfigText(text, file, env['HOME']);
    return { path: file, exists: true, values, unknown, error: undefined };
  } catch (err) {
    return { ...empty, exists: true, error: err instanceof NsedError ? err : storeError(String(err)) };
  }
}

/**
 * The file's JSON object, unchecked. A UTF-8 byte-order mark (as Windows editors write) is
 * skipped (docs/reliability.md #87); anything but an object is an error naming the file.
 */
function parseConfigObject(text: string, file: string): Record<string, unknown> {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let raw: unknown;
  try {
    raw = body.trim() === '' ? {} : JSON.parse(body);
  } catch (err) {
    throw storeError(`the config file ${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, {
      hint: `fix it by hand or remove it; nsed never overwrites a config file it cannot parse`,
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw storeError(`the config file ${file} is not a JSON object`, {
      hint: 'it holds {"key": value, ...}; see nsed config list',
    });
  }
  return raw as Record<string, unknown>;
}

/** The file's JSON, checked key by key; a wrong value names the key and the file. */
export function parseConfigText(
  text: string,
  file: string,
  home?: string,
): { values: ConfigValues; unknown: string[] } {
  const raw = parseConfigObject(text, file);
  const values: ConfigValues = {};
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (!isConfigKey(key)) {
      unknown.push(key);
      continue;
    }
    try {
      setValue(values, key, checkValue(key, value, path.dirname(file), home));
    } catch (err) {
      const msg = err instanceof NsedError ? err.message : String(err);
      throw storeError(`the config file ${file}: ${msg}`, {
        hint: `fix it with 'nsed config set ${key} VALUE' or 'nsed config unset ${key}'`,
      });
    }
  }
  return { values, unknown };
}

function setValue<K extends ConfigKey>(values: ConfigValues, key: K, value: ConfigValues[K]): void {
  values[key] = value;
}

/** A key's value from the command line (`nsed config set rounds 3`), as the JSON it is stored as, by its flag's type. */
export function valueFromText(key: ConfigKey, text: string): unknown {
  const def = CONFIG_FLAGS.find((f) => f.configKey === key);
  if (def?.type === 'number') return text.trim() === '' ? NaN : Number(text);
  if (def?.type === 'boolean') {
    if (['true', 'on', 'yes', '1'].includes(text)) return true;
    if (['false', 'off', 'no', '0'].includes(text)) return false;
    return text;
  }
  return def?.form === 'agents' ? commaList(text) : text;
}

const hasCredentials = (url: string): boolean => {
  const u = new URL(url);
  return u.username !== '' || u.password !== '';
};

/**
 * Checks one value by the rule of the flag whose config key it is (setting-rule.ts), the same
 * rule and the same line as the flag's and its environment variable's. `base` resolves a
 * relative token_file against the config file's folder, and `home` (the Context's HOME, never
 * process.env's) a `~/` one.
 */
export function checkValue(key: ConfigKey, value: unknown, base: string, home?: string): ConfigValues[ConfigKey] {
  const def = CONFIG_FLAGS.find((f) => f.configKey === key);
  if (def === undefined) throw unknownKeyError(key);
  const checked = checkSettingValue(def, value, { kind: 'config' }) as ConfigValues[ConfigKey];
  // A file on disk is read by more than nsed: the token stays in a file of its own (docs/reliability.md #88).
  if (def.form === 'url' && typeof checked === 'string' && hasCredentials(checked))
    throw usageError(`${key} must not carry credentials`, 'keep the token in a file and set token_file');
  if (def.form === 'path' && typeof checked === 'string') {
    const p = checked.startsWith('~/') && home !== undefined ? path.join(home, checked.slice(2)) : checked;
    return path.resolve(base, p);
  }
  return checked;
}

/** The refusal of a key nsed does not know; the token gets its own reason. */
export function unknownKeyError(key: string): NsedError {
  if (key === 'token') {
    return usageError(
      'the token is never kept in the config file',
      'put it in a file of its own (chmod 600) and run: nsed config set token_file PATH',
    );
  }
  return usageError(`unknown config key '${key.slice(0, 60)}'`, `known keys: ${KNOWN.join(', ')}`);
}

/**
 * Reads the raw JSON object for an edit. A file that cannot be parsed is never overwritten: the
 * edit fails naming it, so a hand-written file with one typo is not lost. Its values are not
 * checked: `config set url …` and `config unset url` are how a wrong value is repaired
 * (docs/reliability.md #86), and the other keys are written back as they were.
 */
function readForEdit(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readConfigText(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A folder in its place is refused by the write itself, naming it (exit 2).
    if (code === 'ENOENT' || code === 'EISDIR') return {};
    throw storeError(`cannot read the config file ${file}: ${code ?? 'error'}`);
  }
  return parseConfigObject(text, file);
}

/**
 * Sets or (value undefined) removes one key, written as every file outside the store is
 * (files/outside-file.ts): a regular file replaced atomically with mode 0600, its folder made if
 * missing; a device or FIFO written directly, never replaced.
 */
export async function editConfig(file: string, key: ConfigKey, value: unknown): Promise<void> {
  const doc = readForEdit(file);
  if (value === undefined) delete doc[key];
  else doc[key] = value;
  const { writeOutsideFile } = await import('../files/outside-file.js');
  await writeOutsideFile(file, `${JSON.stringify(doc, null, 2)}\n`, { label: 'the config file', makeDirs: true });
}
