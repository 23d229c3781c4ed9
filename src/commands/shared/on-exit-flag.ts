import type { Argv } from 'yargs';
import type { ConfigValues } from '../../config-file.js';
import { usageError } from '../../errors.js';
import { ON_EXIT_CHOICES, type OnExit } from '../../output/modes.js';
import type { ParsedArgv } from '../command.js';
import type { FlagDef } from './report-flags.js';

/** `--on-exit`, a global flag (README "CI"): flag, then NSED_ON_EXIT, then the config file, then detach. */
export const ON_EXIT_FLAGS: FlagDef[] = [
  {
    name: 'on-exit',
    type: 'string',
    choices: ON_EXIT_CHOICES,
    default: 'detach',
    env: 'NSED_ON_EXIT',
    configKey: 'on_exit',
    describe:
      'what Ctrl-C, SIGTERM and --timeout do to a running deliberation: detach (it runs on, for nsed resume) or cancel it on the orchestrator',
  },
];

export function withOnExitFlags<T>(y: Argv<T>): Argv<T> {
  let out = y;
  for (const def of ON_EXIT_FLAGS) {
    out = out.option(def.name, {
      type: 'string',
      describe: def.describe,
      defaultDescription: String(def.default),
      global: true,
      ...(def.choices === undefined ? {} : { choices: def.choices }),
    });
  }
  return out;
}

export function parseOnExit(
  argv: ParsedArgv,
  env: Readonly<Record<string, string | undefined>>,
  file: ConfigValues,
): OnExit {
  const flag = ON_EXIT_CHOICES.find((c) => c === argv['on-exit']);
  if (flag !== undefined) return flag;
  const raw = (env['NSED_ON_EXIT'] ?? '').trim();
  if (raw !== '') {
    const fromEnv = ON_EXIT_CHOICES.find((c) => c === raw);
    if (fromEnv === undefined)
      throw usageError(`NSED_ON_EXIT must be one of ${ON_EXIT_CHOICES.join(', ')}, not '${raw.slice(0, 40)}'`);
    return fromEnv;
  }
  return file.on_exit ?? 'detach';
}
