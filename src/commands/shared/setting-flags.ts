import { ON_EXIT_CHOICES, OUTPUT_MODES, PROGRESS_CHOICES } from '../../output/modes.js';
import { ROUNDS_RULE } from '../../protocol/number-rule.js';
import { DEFAULT_URL } from '../../run/settings.js';
import type { FlagDef } from './flag-def.js';

// The flags that are settings (src/run/settings.ts, RunSettings): each may stand in from the
// environment or the config file, and each entry is the one rule of its value at every layer
// (setting-rule.ts). The global flags and the turn flags spread them into their tables; the
// config file checks its keys through them (config-file.ts). Each is `as const` so a table that
// spreads it reads it typed (flagValues).

export const URL_FLAG = {
  name: 'url',
  type: 'string',
  form: 'url',
  env: 'NSED_URL',
  configKey: 'url',
  defaultDescription: `the session's recorded orchestrator, else ${DEFAULT_URL}`,
  describe: 'orchestrator base URL; nsed doctor says which one is used and why',
  details: 'the compat API is under /v1',
  valueName: 'URL',
  sample: 'http://127.0.0.1:8080/v1',
} as const satisfies FlagDef;

export const TOKEN_FILE_FLAG = {
  name: 'token-file',
  type: 'string',
  form: 'path',
  configKey: 'token_file',
  describe: 'read the bearer token from this file (or set NSED_TOKEN)',
  details: 'no flag takes the token itself',
  valueName: 'FILE',
  complete: 'file',
  sample: '/run/secrets/nsed token',
} as const satisfies FlagDef;

export const HOME_FLAG = {
  name: 'home',
  type: 'string',
  env: 'NSED_HOME',
  defaultDescription: 'XDG_DATA_HOME/nsed, else ~/.local/share/nsed',
  describe: 'store root',
  valueName: 'DIR',
  complete: 'dir',
  sample: '/tmp/nsed home',
} as const satisfies FlagDef;

export const OUTPUT_FLAG = {
  name: 'output',
  alias: 'o',
  type: 'string',
  choices: OUTPUT_MODES,
  configKey: 'output',
  defaultDescription: 'text',
  describe: 'output mode',
  valueName: 'MODE',
} as const satisfies FlagDef;

/** A wait in seconds: a bound the user meant must not silently become no bound (`--timeout abc`, `0`). */
const SECONDS = { exclusiveMin: 0, unit: 'seconds' } as const;

export const TIMEOUT_FLAG = {
  name: 'timeout',
  type: 'number',
  ...SECONDS,
  describe: 'whole-turn deadline in seconds',
  details: 'bounds every wait, connecting through a proxy included; exit 124',
  valueName: 'S',
} as const satisfies FlagDef;

export const IDLE_TIMEOUT_FLAG = {
  name: 'idle-timeout',
  type: 'number',
  ...SECONDS,
  configKey: 'idle_timeout',
  defaultDescription: '90',
  describe: 'longest silence tolerated, in seconds',
  details: 'the wait for response headers included (keep-alives arrive every 15 s); exit 124',
  valueName: 'S',
} as const satisfies FlagDef;

export const COLOR_FLAG = {
  name: 'color',
  type: 'boolean',
  default: true,
  configKey: 'color',
  describe: 'colour on stderr (--no-color, or NO_COLOR)',
} as const satisfies FlagDef;

export const PROGRESS_FLAG = {
  name: 'progress',
  type: 'string',
  choices: PROGRESS_CHOICES,
  env: 'NSED_PROGRESS',
  configKey: 'progress',
  defaultDescription: 'auto',
  describe:
    'progress on stderr: plain lines (CI logs), none, or auto (live on a terminal; plain off one when CI is set)',
  valueName: 'MODE',
} as const satisfies FlagDef;

export const ON_EXIT_FLAG = {
  name: 'on-exit',
  type: 'string',
  choices: ON_EXIT_CHOICES,
  env: 'NSED_ON_EXIT',
  configKey: 'on_exit',
  defaultDescription: 'detach',
  describe:
    'what Ctrl-C, SIGTERM and --timeout do to a running deliberation: detach (it runs on, for nsed resume) or cancel it on the orchestrator',
  valueName: 'WHAT',
} as const satisfies FlagDef;

export const POLICY_FLAG = {
  name: 'policy',
  shapesRequest: true,
  alias: 'p',
  type: 'string',
  env: 'NSED_POLICY',
  configKey: 'policy',
  describe: 'policy = model: a tag (deep), nsed:<tag>, or a 64-hex policy id (default *)',
  emptyHint: 'e.g. -p deep',
  valueName: 'POLICY',
  complete: 'policy',
  sample: 'nsed:fast',
} as const satisfies FlagDef;

export const AGENTS_FLAG = {
  name: 'agents',
  shapesRequest: true,
  type: 'string',
  form: 'agents',
  configKey: 'agents',
  describe: 'choose the council: A,B,C (native /deliberation path)',
  valueName: 'A,B,C',
  sample: 'CortexA,CortexB',
} as const satisfies FlagDef;

export const ROUNDS_FLAG = {
  name: 'rounds',
  shapesRequest: true,
  type: 'number',
  ...ROUNDS_RULE,
  configKey: 'rounds',
  describe: 'deliberation rounds (native /deliberation path)',
} as const satisfies FlagDef;

// The spend cap (src/council/spend-cap.ts) is a ceiling on what a turn spends, not a part of what it
// asks: the same question under another cap is the same request, so neither shapes it.
export const MAX_COST_FLAG = {
  name: 'max-cost',
  type: 'number',
  exclusiveMin: 0,
  unit: 'dollars',
  example: '0.50',
  env: 'NSED_MAX_COST',
  configKey: 'max_cost',
  describe:
    'a ceiling of USD dollars: before each round, cancel the deliberation if it would pass it, and exit 15 (a cap can be exceeded by at most the round in flight)',
  details:
    "Before each round nsed weighs what was spent (the stream's usage, else GET /deliberation/{id}/budget) plus what the round is expected to cost (the rounds so far, else the estimate from GET /agents) against USD, and cancels the deliberation on the orchestrator at that boundary; a deliberation whose first round's estimate alone passes USD is not sent (exit 15). A meter that is late or not believable falls back to the estimate, and says so. A server that cannot meter is refused before anything is sent (exit 2), unless --allow-unmetered (then one warning says the cap cannot act). Not --max-cost-gate, which judges a completed turn's cost.",
  valueName: 'USD',
  sample: '0.5',
} as const satisfies FlagDef;

export const MAX_TOKENS_FLAG = {
  name: 'max-tokens',
  type: 'number',
  integer: true,
  exclusiveMin: 0,
  unit: 'tokens',
  example: '20000',
  env: 'NSED_MAX_TOKENS',
  configKey: 'max_tokens',
  describe:
    'a ceiling of N tokens (in plus out): before each round, cancel the deliberation if it would pass it, and exit 15 (a cap can be exceeded by at most the round in flight)',
  valueName: 'N',
  sample: '20000',
} as const satisfies FlagDef;

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

const SETTINGS = [
  URL_FLAG,
  TOKEN_FILE_FLAG,
  HOME_FLAG,
  OUTPUT_FLAG,
  TIMEOUT_FLAG,
  IDLE_TIMEOUT_FLAG,
  COLOR_FLAG,
  PROGRESS_FLAG,
  ON_EXIT_FLAG,
  POLICY_FLAG,
  AGENTS_FLAG,
  ROUNDS_FLAG,
  MAX_COST_FLAG,
  MAX_TOKENS_FLAG,
  SIM_PROFILE_FLAG,
  SIM_TOKEN_FLAG,
] as const;

/** Every flag that is a setting: the table the rule test walks (test/commands/setting-rules.test.ts). */
export const SETTING_FLAGS: readonly FlagDef[] = SETTINGS;

/** One of the setting flags' entries, as its type. */
type SettingFlag = (typeof SETTINGS)[number];

/**
 * A table's flags that are not settings: what a command's parse step reads from the words itself.
 * A setting flag the command declares is read once per run, by parseGlobalOptions, into
 * RunSettings with its source; the parse step takes it from there (givenByFlag), so the two never
 * read one value twice (test/commands/setting-flags-read-once.test.ts).
 */
export function ownFlags<const F extends readonly FlagDef[]>(defs: F): ReadonlyArray<Exclude<F[number], SettingFlag>> {
  return defs.filter((d): d is Exclude<F[number], SettingFlag> => !SETTING_FLAGS.includes(d));
}

/** The flags a config file key stands in for: the config file checks each key through its flag. */
export const CONFIG_FLAGS: readonly FlagDef[] = SETTING_FLAGS.filter((f) => f.configKey !== undefined);
