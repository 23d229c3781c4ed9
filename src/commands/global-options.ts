import type { Argv } from 'yargs';
import type { LoadedConfig } from '../config-file.js';
import type { GlobalOptions } from '../context.js';
import { usageError } from '../errors.js';
import { parseMaxCost, parseMaxTokens } from '../spend-cap.js';
import { commaList } from '../protocol/council-names.js';
import { ON_EXIT_CHOICES, OUTPUT_MODES, PROGRESS_CHOICES } from '../output/modes.js';
import { DEFAULT_URL, TOKEN_ENV, type RunSettings, type Setting, type TokenSource } from '../settings.js';
import type { ParsedArgv } from './command.js';
import { TURN_FLAGS } from './shared/turn-flags.js';
import { applyFlags, type FlagDef } from './shared/flag-def.js';

/** The flags every command accepts. The token itself is never a flag: it would show in `ps`. */
export const GLOBAL_FLAGS: readonly FlagDef[] = [
  {
    name: 'url',
    type: 'string',
    env: 'NSED_URL',
    configKey: 'url',
    defaultDescription: `the session's recorded orchestrator, else ${DEFAULT_URL}`,
    describe: 'orchestrator base URL; nsed doctor says which one is used and why',
    details: 'the compat API is under /v1',
    valueName: 'URL',
    sample: 'http://127.0.0.1:8080/v1',
  },
  {
    name: 'token-file',
    type: 'string',
    configKey: 'token_file',
    describe: 'read the bearer token from this file (or set NSED_TOKEN)',
    details: 'no flag takes the token itself',
    valueName: 'FILE',
    complete: 'file',
    sample: '/run/secrets/nsed token',
  },
  {
    name: 'home',
    type: 'string',
    env: 'NSED_HOME',
    defaultDescription: 'XDG_DATA_HOME/nsed, else ~/.local/share/nsed',
    describe: 'store root',
    valueName: 'DIR',
    complete: 'dir',
    sample: '/tmp/nsed home',
  },
  {
    name: 'output',
    alias: 'o',
    type: 'string',
    choices: OUTPUT_MODES,
    configKey: 'output',
    defaultDescription: 'text',
    describe: 'output mode',
    valueName: 'MODE',
  },
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
  {
    name: 'timeout',
    type: 'number',
    describe: 'whole-turn deadline in seconds',
    details: 'bounds every wait, connecting through a proxy included; exit 124',
    valueName: 'S',
  },
  {
    name: 'idle-timeout',
    type: 'number',
    configKey: 'idle_timeout',
    defaultDescription: '90',
    describe: 'longest silence tolerated, in seconds',
    details: 'the wait for response headers included (keep-alives arrive every 15 s); exit 124',
    valueName: 'S',
  },
  {
    name: 'color',
    type: 'boolean',
    default: true,
    configKey: 'color',
    describe: 'colour on stderr (--no-color, or NO_COLOR)',
  },
  { name: 'sim', type: 'boolean', default: false, describe: 'use a built-in simulator on a loopback port' },
  {
    name: 'progress',
    type: 'string',
    choices: PROGRESS_CHOICES,
    env: 'NSED_PROGRESS',
    configKey: 'progress',
    defaultDescription: 'auto',
    describe:
      'progress on stderr: plain lines (CI logs), none, or auto (live on a terminal; plain off one when CI is set)',
    valueName: 'MODE',
  },
  {
    name: 'on-exit',
    type: 'string',
    choices: ON_EXIT_CHOICES,
    env: 'NSED_ON_EXIT',
    configKey: 'on_exit',
    defaultDescription: 'detach',
    describe:
      'what Ctrl-C, SIGTERM and --timeout do to a running deliberation: detach (it runs on, for nsed resume) or cancel it on the orchestrator',
    valueName: 'WHAT',
  },
];

/** Names of the flags every command accepts, shown apart from a command's own in its --help. */
export const GLOBAL_OPTION_NAMES = [...GLOBAL_FLAGS.map((f) => f.name), 'help', 'version'];

/** The flags every command accepts, declared to yargs. */
export function withGlobalOptions<T>(y: Argv<T>): Argv<T> {
  return applyFlags(y, GLOBAL_FLAGS, true);
}

const NO_CONFIG: LoadedConfig = { path: undefined, exists: false, values: {}, unknown: [], error: undefined };

type Env = Readonly<Record<string, string | undefined>>;

/** The simulator's profile: `nsed sim --profile`, and the environment's for both it and --sim. */
export const SIM_PROFILE_FLAG = {
  name: 'profile',
  type: 'string',
  choices: ['default', 'strict'],
  env: 'NSED_SIM_PROFILE',
  defaultDescription: 'default',
  describe: 'how the simulator answers what the seeds leave open',
} as const satisfies FlagDef;

/** `nsed sim --token`: the bearer token the simulator requires. */
export const SIM_TOKEN_FLAG = {
  name: 'token',
  type: 'string',
  env: 'NSED_SIM_TOKEN',
  describe: 'require this bearer token',
} as const satisfies FlagDef;

/** The in-process simulator's pace (no flag: a demo knob of --sim). */
const SIM_ROUND_MS_ENV = 'NSED_SIM_ROUND_MS';

const byName = (list: readonly FlagDef[], name: string): FlagDef => {
  const f = list.find((d) => d.name === name);
  if (f === undefined) throw new Error(`no flag ${name} in its table`);
  return f;
};

/**
 * One setting from the layers its flag declares: the flag (when the command has it), its
 * environment variable, its config key, the default. `read` turns a raw value into the
 * setting's type, or undefined to fall through to the next layer.
 */
function layered<T>(
  def: FlagDef,
  sources: { argv: ParsedArgv; env: Env; config: LoadedConfig['values']; flags: readonly FlagDef[] },
  read: { flag?: (v: unknown) => T | undefined; env?: (v: string) => T | undefined; config?: () => T | undefined },
  fallback: T,
): Setting<T> {
  if (sources.flags.includes(def) && read.flag !== undefined) {
    const v = sources.argv[def.name];
    const t = v === undefined ? undefined : read.flag(v);
    if (t !== undefined) return { value: t, source: 'flag', from: `--${def.name}` };
  }
  if (def.env !== undefined && read.env !== undefined) {
    const raw = sources.env[def.env];
    const t = raw === undefined || raw.trim() === '' ? undefined : read.env(raw);
    if (t !== undefined) return { value: t, source: 'env', from: def.env };
  }
  if (def.configKey !== undefined && read.config !== undefined) {
    const t = read.config();
    if (t !== undefined) return { value: t, source: 'config', from: def.configKey };
  }
  return { value: fallback, source: 'default', from: 'default' };
}

const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The global flags, checked, and every setting of the run resolved once (RunSettings): a flag
 * the command has, else its environment variable, else the config file, else the built-in
 * default. A bad value is a usage error. `commandFlags` are the chosen command's own, so that
 * `sessions ls -p` (a filter) is not taken for the policy of a turn.
 */
export function parseGlobalOptions(
  argv: ParsedArgv,
  config: LoadedConfig = NO_CONFIG,
  env: Env = {},
  commandFlags: readonly FlagDef[] = [],
): GlobalOptions {
  const file = config.values;
  const sources = { argv, env, config: file, flags: [...GLOBAL_FLAGS, ...commandFlags] };
  // yargs reads `--timeout abc` as NaN; a wait the user meant to bound must not silently become unbounded.
  const seconds = (k: string) => (v: unknown) => {
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw usageError(`--${k} must be a number of seconds`, `e.g. --${k} 300`);
    return v;
  };
  const timeoutS = layered<number | undefined>(
    byName(GLOBAL_FLAGS, 'timeout'),
    sources,
    { flag: seconds('timeout') },
    undefined,
  );
  const idleTimeoutS = layered(
    byName(GLOBAL_FLAGS, 'idle-timeout'),
    sources,
    { flag: seconds('idle-timeout'), config: () => file.idle_timeout },
    90,
  );
  if (argv['quiet'] === true && argv['verbose'] === true)
    throw usageError('--quiet and --verbose are exclusive', 'pick one');
  if (timeoutS.value !== undefined && timeoutS.value <= 0)
    throw usageError('--timeout must be a positive number of seconds');
  if (idleTimeoutS.value <= 0)
    throw usageError(
      '--idle-timeout must be a positive number of seconds',
      'keep-alives arrive every 15 s; 90 is the default',
    );
  const output = layered(
    byName(GLOBAL_FLAGS, 'output'),
    sources,
    { flag: (v) => OUTPUT_MODES.find((m) => m === v), config: () => file.output },
    'text',
  );
  const url = layered(
    byName(GLOBAL_FLAGS, 'url'),
    sources,
    { flag: asString, env: (v) => v, config: () => file.url },
    DEFAULT_URL,
  );
  const token = resolveToken(sources);
  // An empty --home is the store's to refuse; an empty NSED_HOME is not set.
  const home = layered<string | undefined>(
    byName(GLOBAL_FLAGS, 'home'),
    sources,
    { flag: asString, env: (v) => v },
    undefined,
  );
  const color = layered(
    byName(GLOBAL_FLAGS, 'color'),
    // yargs fills in the default (true): only --no-color is known to be the user's.
    sources,
    { flag: (v) => (v === false ? false : undefined), config: () => file.color },
    true,
  );
  // README "CI": a bad NSED_PROGRESS is refused rather than ignored, as a bad flag is.
  const progress = layered(
    byName(GLOBAL_FLAGS, 'progress'),
    sources,
    {
      flag: (v) => PROGRESS_CHOICES.find((c) => c === v),
      env: (v) => {
        const raw = v.trim();
        const choice = PROGRESS_CHOICES.find((c) => c === raw);
        if (choice === undefined)
          throw usageError(`NSED_PROGRESS must be one of ${PROGRESS_CHOICES.join(', ')}, not '${raw.slice(0, 40)}'`);
        return choice;
      },
      config: () => file.progress,
    },
    'auto',
  );
  const onExit = layered(
    byName(GLOBAL_FLAGS, 'on-exit'),
    sources,
    {
      flag: (v) => ON_EXIT_CHOICES.find((c) => c === v),
      env: (v) => {
        const raw = v.trim();
        const choice = ON_EXIT_CHOICES.find((c) => c === raw);
        if (choice === undefined)
          throw usageError(`NSED_ON_EXIT must be one of ${ON_EXIT_CHOICES.join(', ')}, not '${raw.slice(0, 40)}'`);
        return choice;
      },
      config: () => file.on_exit,
    },
    'detach',
  );
  const turnFlag = (name: string): FlagDef => byName(TURN_FLAGS, name);
  const policy = layered(
    turnFlag('policy'),
    sources,
    { flag: asString, env: (v) => v.trim(), config: () => file.policy },
    '*',
  );
  const agents = layered<string[] | undefined>(
    turnFlag('agents'),
    sources,
    {
      // Read as parseTurnOptions reads it (protocol/council-names.ts), so doctor shows what is sent.
      flag: (v) => (typeof v === 'string' ? commaList(v) : undefined),
      config: () => file.agents,
    },
    undefined,
  );
  const rounds = layered<number | undefined>(
    turnFlag('rounds'),
    sources,
    { flag: (v) => (typeof v === 'number' ? v : undefined), config: () => file.rounds },
    undefined,
  );
  // The spend cap: every layer checked by the one parser, so a bad NSED_MAX_COST is refused as a bad flag is.
  const maxCostUsd = layered<number | undefined>(
    turnFlag('max-cost'),
    sources,
    {
      flag: (v) => parseMaxCost(v, '--max-cost'),
      env: (v) => parseMaxCost(v, 'NSED_MAX_COST'),
      config: () => file.max_cost,
    },
    undefined,
  );
  const maxTokens = layered<number | undefined>(
    turnFlag('max-tokens'),
    sources,
    {
      flag: (v) => parseMaxTokens(v, '--max-tokens'),
      env: (v) => parseMaxTokens(v, 'NSED_MAX_TOKENS'),
      config: () => file.max_tokens,
    },
    undefined,
  );
  const simProfile = layered(SIM_PROFILE_FLAG, sources, { flag: asString, env: (v) => v.trim() }, 'default');
  const simToken = layered<string | undefined>(SIM_TOKEN_FLAG, sources, { flag: asString, env: (v) => v }, undefined);
  const roundMs = Number(env[SIM_ROUND_MS_ENV]);
  const simRoundMs: Setting<number> =
    env[SIM_ROUND_MS_ENV] !== undefined && Number.isFinite(roundMs) && roundMs >= 0
      ? { value: roundMs, source: 'env', from: SIM_ROUND_MS_ENV }
      : { value: 120, source: 'default', from: 'default' };
  const settings: RunSettings = {
    url: { ...url, value: url.value.replace(/\/+$/, '') },
    home,
    token,
    output,
    idleTimeoutS,
    timeoutS,
    color,
    progress,
    onExit,
    policy,
    agents,
    rounds,
    maxCostUsd,
    maxTokens,
    simProfile,
    simRoundMs,
    simToken,
  };
  return {
    quiet: argv['quiet'] === true,
    verbose: argv['verbose'] === true,
    sim: argv['sim'] === true,
    config,
    settings,
  };
}

/**
 * The bearer token's source: --token-file, else NSED_TOKEN, else the config file's token_file.
 * The file is read when a connection opens; the token is never a flag (docs/reliability.md #73).
 */
function resolveToken(sources: { argv: ParsedArgv; env: Env; config: LoadedConfig['values'] }): Setting<TokenSource> {
  const flag = asString(sources.argv['token-file']);
  if (flag !== undefined) return { value: { kind: 'file', file: flag }, source: 'flag', from: '--token-file' };
  const fromEnv = sources.env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '')
    return { value: { kind: 'env', name: TOKEN_ENV }, source: 'env', from: TOKEN_ENV };
  const configured = sources.config.token_file;
  if (configured !== undefined)
    return { value: { kind: 'file', file: configured }, source: 'config', from: 'token_file' };
  return { value: { kind: 'none' }, source: 'default', from: 'default' };
}
