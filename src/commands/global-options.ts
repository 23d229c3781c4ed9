import type { Argv } from 'yargs';
import type { LoadedConfig } from '../run/config-file.js';
import type { GlobalOptions } from '../run/context.js';
import { usageError } from '../errors.js';
import type { OnExit, OutputMode, ProgressChoice } from '../output/modes.js';
import {
  councilOfSettings,
  DEFAULT_URL,
  TOKEN_ENV,
  type RunSettings,
  type Setting,
  type TokenSource,
} from '../run/settings.js';
import type { ParsedArgv } from './command.js';
import { applyFlags, checkSettingValue, flagValues, resolveSetting, type FlagDef } from './shared/flag-def.js';
import type { SettingLayers } from './shared/setting-rule.js';
import {
  AGENTS_FLAG,
  COLOR_FLAG,
  HOME_FLAG,
  IDLE_TIMEOUT_FLAG,
  MAX_COST_FLAG,
  MAX_TOKENS_FLAG,
  ON_EXIT_FLAG,
  OUTPUT_FLAG,
  POLICY_FLAG,
  PROGRESS_FLAG,
  ROUNDS_FLAG,
  SIM_PROFILE_FLAG,
  SIM_TOKEN_FLAG,
  TIMEOUT_FLAG,
  TOKEN_FILE_FLAG,
  URL_FLAG,
} from './shared/setting-flags.js';
// Declared `as const` so that parseGlobalOptions reads each flag typed from its entry (FlagValues).
const GLOBAL = [
  URL_FLAG,
  TOKEN_FILE_FLAG,
  HOME_FLAG,
  OUTPUT_FLAG,
  {
    name: 'quiet',
    alias: 'q',
    type: 'boolean',
    default: false,
    describe: 'no progress, notes or hints on stderr (errors and warnings stay)',
  },
  {
    name: 'verbose',
    type: 'boolean',
    default: false,
    describe: 'say more on stderr: every setting and where it came from, each request, the store',
    details: 'and what stdin added',
  },
  TIMEOUT_FLAG,
  IDLE_TIMEOUT_FLAG,
  COLOR_FLAG,
  { name: 'sim', type: 'boolean', default: false, describe: 'use a built-in simulator on a loopback port' },
  PROGRESS_FLAG,
  ON_EXIT_FLAG,
] as const satisfies readonly FlagDef[];

/** The flags every command accepts. The token itself is never a flag: it would show in `ps`. */
export const GLOBAL_FLAGS: readonly FlagDef[] = GLOBAL;

/** The global flags but -o, which is read first and on its own (parseGlobalOptions), and once. */
const AFTER_OUTPUT = GLOBAL.filter((f): f is Exclude<(typeof GLOBAL)[number], typeof OUTPUT_FLAG> => f !== OUTPUT_FLAG);

/** Names of the flags every command accepts, shown apart from a command's own in its --help. */
export const GLOBAL_OPTION_NAMES = [...GLOBAL_FLAGS.map((f) => f.name), 'help', 'version'];

/** The flags every command accepts, declared to yargs. */
export function withGlobalOptions<T>(y: Argv<T>): Argv<T> {
  return applyFlags(y, GLOBAL_FLAGS, true);
}

/**
 * The settings a command's own flags give (a turn's council and cap, the simulator's profile and
 * token), by their key in RunSettings: what parseGlobalOptions resolves from a command's setting
 * flags, and where a parse step finds the one it needs by its flag (settingOfFlag).
 */
const COMMAND_SETTINGS = {
  policy: POLICY_FLAG,
  agents: AGENTS_FLAG,
  rounds: ROUNDS_FLAG,
  maxCostUsd: MAX_COST_FLAG,
  maxTokens: MAX_TOKENS_FLAG,
  simProfile: SIM_PROFILE_FLAG,
  simToken: SIM_TOKEN_FLAG,
} as const satisfies Partial<Record<keyof RunSettings, FlagDef>>;

type CommandSetting = keyof typeof COMMAND_SETTINGS;

const COMMAND_SETTING_FLAGS: readonly FlagDef[] = Object.values(COMMAND_SETTINGS);

/** The setting a command's setting flag gives, with its source (`-p`'s is RunSettings.policy); undefined for another flag. */
export function settingOfFlag(settings: RunSettings, def: FlagDef): Setting<unknown> | undefined {
  const key = (Object.keys(COMMAND_SETTINGS) as CommandSetting[]).find((k) => COMMAND_SETTINGS[k] === def);
  return key === undefined ? undefined : settings[key];
}

const NO_CONFIG: LoadedConfig = { path: undefined, exists: false, values: {}, unknown: [], error: undefined };

type Env = Readonly<Record<string, string | undefined>>;

export { SIM_PROFILE_FLAG, SIM_TOKEN_FLAG };

/** The in-process simulator's pace (no flag: a demo knob of --sim). */
const SIM_ROUND_MS_ENV = 'NSED_SIM_ROUND_MS';

/**
 * The global flags, checked, and every setting of the run resolved once (RunSettings): a flag
 * the command has, else its environment variable, else the config file, else the built-in
 * default, each through its flag's rule (resolveSetting); a bad value is a usage error naming
 * where it came from. `commandFlags` are the chosen command's own, so that `sessions ls -p` (a
 * filter) is not taken for the policy of a turn: a setting's flag counts only where the command
 * declares that very entry. `outputKnown` learns the output mode first, before any other
 * setting is checked. Each flag is read from the words once, here; a command's parse step is
 * handed the settings (parseCommandLine).
 */
export function parseGlobalOptions(
  argv: ParsedArgv,
  config: LoadedConfig = NO_CONFIG,
  env: Env = {},
  commandFlags: readonly FlagDef[] = [],
  outputKnown?: (output: OutputMode) => void,
): GlobalOptions {
  const file = config.values;
  const output = resolveSetting<OutputMode>(OUTPUT_FLAG, {
    flag: flagValues([OUTPUT_FLAG], argv).output,
    config: file.output,
    default: 'text',
  });
  outputKnown?.(output.value);
  const g = flagValues(AFTER_OUTPUT, argv);
  if (g.quiet && g.verbose) throw usageError('--quiet and --verbose are exclusive', 'pick one');
  // The setting flags of the command, read here and only here: its parse step takes a turn's
  // own -p, --agents, --rounds and caps from the settings (givenByFlag), not from the words.
  const given: Readonly<Record<string, unknown>> = flagValues(
    commandFlags.filter((f) => COMMAND_SETTING_FLAGS.includes(f)),
    argv,
  );
  // A command's setting, from its flag where the command declares it, else from the other layers.
  const commandSetting = <T>(key: CommandSetting, layers: Omit<SettingLayers<T>, 'flag'>): Setting<T> =>
    resolveSetting<T>(COMMAND_SETTINGS[key], { ...layers, flag: given[COMMAND_SETTINGS[key].name] });
  const resolved: Omit<RunSettings, 'council'> = {
    // The URL's rule drops its trailing slashes, wherever it came from.
    url: resolveSetting<string>(URL_FLAG, { flag: g.url, env, config: file.url, default: DEFAULT_URL }),
    // An empty --home is the store's to refuse; an empty NSED_HOME is not set.
    home: resolveSetting<string | undefined>(HOME_FLAG, { flag: g.home, env, default: undefined }),
    token: resolveToken(g['token-file'], env, file.token_file),
    output,
    idleTimeoutS: resolveSetting<number>(IDLE_TIMEOUT_FLAG, {
      flag: g['idle-timeout'],
      config: file.idle_timeout,
      default: 90,
    }),
    timeoutS: resolveSetting<number | undefined>(TIMEOUT_FLAG, { flag: g.timeout, default: undefined }),
    // yargs fills in the default (true): only --no-color is known to be the user's.
    color: resolveSetting<boolean>(COLOR_FLAG, {
      flag: g.color ? undefined : false,
      config: file.color,
      default: true,
    }),
    // README "CI": a bad NSED_PROGRESS is refused rather than ignored, as a bad flag is.
    progress: resolveSetting<ProgressChoice>(PROGRESS_FLAG, {
      flag: g.progress,
      env,
      config: file.progress,
      default: 'auto',
    }),
    onExit: resolveSetting<OnExit>(ON_EXIT_FLAG, { flag: g['on-exit'], env, config: file.on_exit, default: 'detach' }),
    policy: commandSetting<string>('policy', {
      env,
      config: file.policy,
      default: '*',
    }),
    agents: commandSetting<string[] | undefined>('agents', {
      config: file.agents,
      default: undefined,
    }),
    rounds: commandSetting<number | undefined>('rounds', {
      config: file.rounds,
      default: undefined,
    }),
    maxCostUsd: commandSetting<number | undefined>('maxCostUsd', {
      env,
      config: file.max_cost,
      default: undefined,
    }),
    maxTokens: commandSetting<number | undefined>('maxTokens', {
      env,
      config: file.max_tokens,
      default: undefined,
    }),
    simProfile: commandSetting<string>('simProfile', {
      env,
      default: 'default',
    }),
    simToken: commandSetting<string | undefined>('simToken', {
      env,
      default: undefined,
    }),
    simRoundMs: simRoundMs(env),
  };
  // The council is decided here, once, from the three settings that choose it (councilOfSettings).
  const { policy, agents, rounds } = resolved;
  const settings: RunSettings = { ...resolved, council: councilOfSettings(policy, agents, rounds) };
  return { quiet: g.quiet, verbose: g.verbose, sim: g.sim, config, settings };
}

/** NSED_SIM_ROUND_MS, a demo knob with no flag: a pace it cannot read is the default pace. */
function simRoundMs(env: Env): Setting<number> {
  const roundMs = Number(env[SIM_ROUND_MS_ENV]);
  return env[SIM_ROUND_MS_ENV] !== undefined && Number.isFinite(roundMs) && roundMs >= 0
    ? { value: roundMs, source: 'env', from: SIM_ROUND_MS_ENV }
    : { value: 120, source: 'default', from: 'default' };
}

/**
 * The bearer token's source: --token-file, else NSED_TOKEN, else the config file's token_file.
 * The file is read when a connection opens; the token is never a flag (docs/reliability.md #73).
 */
function resolveToken(flag: string | undefined, env: Env, configured: string | undefined): Setting<TokenSource> {
  if (flag !== undefined) {
    const file = checkSettingValue(TOKEN_FILE_FLAG, flag, { kind: 'flag' }) as string;
    return { value: { kind: 'file', file }, source: 'flag', from: '--token-file' };
  }
  const fromEnv = env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '')
    return { value: { kind: 'env', name: TOKEN_ENV }, source: 'env', from: TOKEN_ENV };
  if (configured !== undefined)
    return { value: { kind: 'file', file: configured }, source: 'config', from: 'token_file' };
  return { value: { kind: 'none' }, source: 'default', from: 'default' };
}
