import type { OnExit, OutputMode, ProgressChoice } from '../output/modes.js';

/** The orchestrator when no flag, environment, config file or session names one. */
export const DEFAULT_URL = 'http://localhost:8080';

/** The environment variable that holds the bearer token itself (there is no flag for it). */
export const TOKEN_ENV = 'NSED_TOKEN';

/** Where a setting's value came from, in the order they win: flag > env > config > session > default. */
export type SettingSource = 'flag' | 'env' | 'config' | 'session' | 'default';

/** One resolved value, with its source and the name it was given under (`--url`, `NSED_URL`, `url`). */
export interface Setting<T> {
  value: T;
  source: SettingSource;
  from: string;
}

/**
 * The council a turn gets from the settings where it names none itself (-p, --agents, --rounds
 * of the turn win over it). `policy`: the policy's own council, because a policy was named for
 * this run (-p, NSED_POLICY), which outranks the config file's agents, or because no agents are
 * configured. `agents`: the config file's agents. `rounds`: the config file's rounds, for either.
 */
export type SettingsCouncil =
  { kind: 'policy'; rounds: number | undefined } | { kind: 'agents'; agents: string[]; rounds: number | undefined };

/**
 * The one place the council's precedence among the settings is said. Only the config file's
 * agents and rounds stand in for a turn's own: a flag's are the turn's (TurnOptions, givenByFlag).
 * A policy from the config file names no policy for this run, so the file's agents keep the
 * council; one from -p or NSED_POLICY brings its own council, so they give way to it.
 */
export function councilOfSettings(
  policy: Setting<string>,
  agents: Setting<string[] | undefined>,
  rounds: Setting<number | undefined>,
): Setting<SettingsCouncil> {
  const configRounds = rounds.source === 'config' ? rounds.value : undefined;
  const policyNamed = policy.source === 'flag' || policy.source === 'env';
  if (!policyNamed && agents.source === 'config' && agents.value !== undefined)
    return {
      value: { kind: 'agents', agents: agents.value, rounds: configRounds },
      source: 'config',
      from: agents.from,
    };
  return { value: { kind: 'policy', rounds: configRounds }, source: policy.source, from: policy.from };
}

/**
 * A setting's value where this command line's own flag gave it, else undefined: a turn's -p,
 * --agents, --rounds, --max-cost and --max-tokens, which its parse step takes from the settings
 * (commands/shared/turn-flags.ts) instead of reading the words a second time. What the
 * environment or the config file gave is a setting of the run, which the turn weighs apart
 * (RunSettings.council, turn/spend-watch.ts turnCapOf), never the turn's own choice.
 */
export const givenByFlag = <T>(s: Setting<T>): T | undefined => (s.source === 'flag' ? s.value : undefined);

/**
 * Whether what a session recorded (its orchestrator, policy, council) applies in place of this
 * setting: it ranks between the config file and the default, so only where none of flag,
 * environment and config file gave the setting.
 */
export const sessionMayStandIn = (s: Setting<unknown>): boolean => s.source === 'default';

/**
 * The colour setting as the terminal weighs it (terminal/io.ts, createIO): --no-color outranks
 * NO_COLOR and FORCE_COLOR, the config file's `color` ranks below them, and the default leaves
 * the choice to the terminal. (yargs fills in the flag's default, so only --no-color is the flag's.)
 */
export function colorOfSettings(color: Setting<boolean>): { noColor: boolean; configColor?: boolean } {
  return {
    noColor: color.source === 'flag' && !color.value,
    ...(color.source === 'config' ? { configColor: color.value } : {}),
  };
}

/** Where the bearer token is read from; the token itself is never held here. */
export type TokenSource = { kind: 'file'; file: string } | { kind: 'env'; name: string } | { kind: 'none' };

/**
 * Every setting of a run, resolved once at the edge (commands/global-options.ts) from the flags,
 * the environment, the config file and the built-in defaults, each with its source; the code
 * below the commands reads these, never the environment or the config file for a setting. A
 * session's recorded orchestrator, policy and council rank between config and default: the
 * turn applies them where a setting's source is `default` (docs/architecture.md, "Settings").
 */
export interface RunSettings {
  url: Setting<string>;
  /** The store root as given (--home, NSED_HOME); undefined: XDG_DATA_HOME or ~/.local/share. */
  home: Setting<string | undefined>;
  token: Setting<TokenSource>;
  output: Setting<OutputMode>;
  idleTimeoutS: Setting<number>;
  timeoutS: Setting<number | undefined>;
  /** false: no colour on stderr (NO_COLOR, FORCE_COLOR and TERM are the terminal's to weigh). */
  color: Setting<boolean>;
  /** Progress on stderr: auto, plain or none (output/progress-mode.ts turns auto into one of the others). */
  progress: Setting<ProgressChoice>;
  /** What a signal or --timeout does to a running deliberation: detach, or cancel it (docs/reliability.md #130). */
  onExit: Setting<OnExit>;
  /** The policy a new session starts with when -p and -m are not given. */
  policy: Setting<string>;
  agents: Setting<string[] | undefined>;
  rounds: Setting<number | undefined>;
  /**
   * The council these settings give a turn, decided once from policy, agents and rounds where
   * they are resolved (councilOfSettings), with the source of the setting that decided it: the
   * turn reads this value (turn/turn-options.ts, councilChoice), never the sources themselves.
   */
  council: Setting<SettingsCouncil>;
  /** The spend cap of a turn (src/council/spend-cap.ts): dollars, and tokens in plus out. */
  maxCostUsd: Setting<number | undefined>;
  maxTokens: Setting<number | undefined>;
  /** The in-process simulator of --sim (and `nsed sim`): its profile and its pace. */
  simProfile: Setting<string>;
  simRoundMs: Setting<number>;
  /** `nsed sim`: the bearer token it requires (shown as set or not, never itself). */
  simToken: Setting<string | undefined>;
}

/** One setting as `--verbose` and `nsed doctor` show it. */
export interface SettingLine {
  name: string;
  value: string;
  source: SettingSource;
  from: string;
}

/** The settings as `--verbose` and `nsed doctor` list them: name, value, source; never a token. */
export function settingLines(s: RunSettings): SettingLine[] {
  const show = (v: unknown): string =>
    v === undefined ? '(none)' : Array.isArray(v) ? v.join(',') : typeof v === 'string' ? v : JSON.stringify(v);
  const token = s.token.value;
  return [
    { name: 'url', ...s.url, value: s.url.value },
    { name: 'home', ...s.home, value: show(s.home.value) },
    {
      name: 'token',
      ...s.token,
      value: token.kind === 'file' ? `read from ${token.file}` : token.kind === 'env' ? `from ${token.name}` : '(none)',
    },
    { name: 'output', ...s.output, value: s.output.value },
    { name: 'idle_timeout', ...s.idleTimeoutS, value: `${s.idleTimeoutS.value} s` },
    { name: 'timeout', ...s.timeoutS, value: s.timeoutS.value === undefined ? '(none)' : `${s.timeoutS.value} s` },
    { name: 'color', ...s.color, value: show(s.color.value) },
    { name: 'progress', ...s.progress, value: s.progress.value },
    { name: 'on_exit', ...s.onExit, value: s.onExit.value },
    { name: 'policy', ...s.policy, value: s.policy.value },
    { name: 'agents', ...s.agents, value: show(s.agents.value) },
    { name: 'rounds', ...s.rounds, value: show(s.rounds.value) },
    { name: 'max_cost', ...s.maxCostUsd, value: show(s.maxCostUsd.value) },
    { name: 'max_tokens', ...s.maxTokens, value: show(s.maxTokens.value) },
    { name: 'sim_profile', ...s.simProfile, value: s.simProfile.value },
    { name: 'sim_round_ms', ...s.simRoundMs, value: String(s.simRoundMs.value) },
    { name: 'sim_token', ...s.simToken, value: s.simToken.value === undefined ? '(none)' : '(set)' },
  ];
}
