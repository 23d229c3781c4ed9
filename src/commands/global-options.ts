import type { Argv } from 'yargs';
import type { LoadedConfig } from '../config-file.js';
import type { GlobalOptions } from '../context.js';
import { usageError } from '../errors.js';
import { OUTPUT_MODES } from '../output/modes.js';
import type { ParsedArgv } from './command.js';
import { parseOnExit, withOnExitFlags } from './shared/on-exit-flag.js';
import { parseProgressChoice, withProgressFlags } from './shared/progress-flag.js';

/** Names of the flags every command accepts, shown apart from a command's own in its --help. */
export const GLOBAL_OPTION_NAMES = [
  'url',
  'token-file',
  'home',
  'output',
  'quiet',
  'verbose',
  'timeout',
  'idle-timeout',
  'color',
  'sim',
  'progress',
  'on-exit',
  'help',
  'version',
];

/** The flags every command accepts. The token itself is never a flag: it would show in `ps`. */
export function withGlobalOptions<T>(y: Argv<T>): Argv<T> {
  return withOnExitFlags(withProgressFlags(y))
    .option('url', { type: 'string', describe: 'orchestrator base URL (env NSED_URL; see nsed doctor)', global: true })
    .option('token-file', {
      type: 'string',
      describe: 'read the bearer token from this file (or set NSED_TOKEN)',
      global: true,
    })
    .option('home', { type: 'string', describe: 'store root (env NSED_HOME)', global: true })
    .option('output', {
      alias: 'o',
      choices: OUTPUT_MODES,
      defaultDescription: 'text',
      describe: 'output mode',
      global: true,
    })
    .option('quiet', {
      alias: 'q',
      type: 'boolean',
      default: false,
      describe: 'no progress, notes or hints on stderr (errors and warnings stay)',
      global: true,
    })
    .option('verbose', {
      type: 'boolean',
      default: false,
      describe: 'say more on stderr: the URL and where it came from, each request, the store',
      global: true,
    })
    .option('timeout', { type: 'number', describe: 'whole-turn deadline in seconds', global: true })
    .option('idle-timeout', {
      type: 'number',
      defaultDescription: '90',
      describe: 'longest silence tolerated, in seconds',
      global: true,
    })
    .option('color', {
      type: 'boolean',
      default: true,
      describe: 'colour on stderr (--no-color, or NO_COLOR)',
      global: true,
    })
    .option('sim', {
      type: 'boolean',
      default: false,
      describe: 'use a built-in simulator on a loopback port',
      global: true,
    });
}

const NO_CONFIG: LoadedConfig = { path: undefined, exists: false, values: {}, unknown: [], error: undefined };

/**
 * The global flags, checked; a bad value is a usage error. A flag not given falls back to the
 * config file, then to the built-in default (output and idle timeout have no environment variable).
 */
export function parseGlobalOptions(
  argv: ParsedArgv,
  config: LoadedConfig = NO_CONFIG,
  env: Readonly<Record<string, string | undefined>> = {},
): GlobalOptions {
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
    progress: parseProgressChoice(argv, env, file),
    onExit: parseOnExit(argv, env, file),
    config,
  };
}
