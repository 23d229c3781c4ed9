import type { Argv } from 'yargs';
import type { LoadedConfig } from '../config-file.js';
import type { GlobalOptions } from '../context.js';
import { usageError } from '../errors.js';
import { OUTPUT_MODES } from '../output/modes.js';
import type { ParsedArgv } from './command.js';
import { applyFlags, type FlagDef } from './shared/flag-def.js';

/** The flags every command accepts. The token itself is never a flag: it would show in `ps`. */
export const GLOBAL_FLAGS: readonly FlagDef[] = [
  {
    name: 'url',
    type: 'string',
    env: 'NSED_URL',
    configKey: 'url',
    describe: 'orchestrator base URL (env NSED_URL; see nsed doctor)',
    valueName: 'URL',
    sample: 'http://127.0.0.1:8080/v1',
  },
  {
    name: 'token-file',
    type: 'string',
    configKey: 'token_file',
    describe: 'read the bearer token from this file (or set NSED_TOKEN)',
    valueName: 'FILE',
    complete: 'file',
    sample: '/run/secrets/nsed token',
  },
  {
    name: 'home',
    type: 'string',
    env: 'NSED_HOME',
    describe: 'store root (env NSED_HOME)',
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
  },
  { name: 'timeout', type: 'number', describe: 'whole-turn deadline in seconds', valueName: 'S' },
  {
    name: 'idle-timeout',
    type: 'number',
    configKey: 'idle_timeout',
    defaultDescription: '90',
    describe: 'longest silence tolerated, in seconds',
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
];

/** Names of the flags every command accepts, shown apart from a command's own in its --help. */
export const GLOBAL_OPTION_NAMES = [...GLOBAL_FLAGS.map((f) => f.name), 'help', 'version'];

/** The flags every command accepts, declared to yargs. */
export function withGlobalOptions<T>(y: Argv<T>): Argv<T> {
  return applyFlags(y, GLOBAL_FLAGS, true);
}

const NO_CONFIG: LoadedConfig = { path: undefined, exists: false, values: {}, unknown: [], error: undefined };

/**
 * The global flags, checked; a bad value is a usage error. A flag not given falls back to the
 * config file, then to the built-in default (output and idle timeout have no environment variable).
 */
export function parseGlobalOptions(argv: ParsedArgv, config: LoadedConfig = NO_CONFIG): GlobalOptions {
  const file = config.values;
  const str = (k: string): string | undefined => (typeof argv[k] === 'string' ? (argv[k] as string) : undefined);
  // yargs reads `--timeout abc` as NaN; a wait the user meant to bound must not silently become unbounded.
  const num = (k: string): number | undefined => {
    const v = argv[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw usageError(`--${k} must be a number of seconds`, `e.g. --${k} 300`);
    return v;
  };
  const timeoutS = num('timeout');
  const idleTimeoutS = num('idle-timeout') ?? file.idle_timeout ?? 90;
  if (argv['quiet'] === true && argv['verbose'] === true)
    throw usageError('--quiet and --verbose are exclusive', 'pick one');
  if (timeoutS !== undefined && timeoutS <= 0) throw usageError('--timeout must be a positive number of seconds');
  if (idleTimeoutS <= 0)
    throw usageError(
      '--idle-timeout must be a positive number of seconds',
      'keep-alives arrive every 15 s; 90 is the default',
    );
  return {
    url: str('url'),
    tokenFile: str('token-file'),
    home: str('home'),
    output: OUTPUT_MODES.find((m) => m === argv['output']) ?? file.output ?? 'text',
    quiet: argv['quiet'] === true,
    verbose: argv['verbose'] === true,
    timeoutS,
    idleTimeoutS,
    color: argv['color'] !== false,
    sim: argv['sim'] === true,
    config,
  };
}
