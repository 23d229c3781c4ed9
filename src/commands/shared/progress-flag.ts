import type { Argv } from 'yargs';
import type { ConfigValues } from '../../config-file.js';
import { usageError } from '../../errors.js';
import { PROGRESS_CHOICES, type ProgressChoice } from '../../output/modes.js';
import type { ParsedArgv } from '../command.js';
import type { FlagDef } from './report-flags.js';

/** `--progress`, a global flag (README "CI"): flag, then NSED_PROGRESS, then the config file, then auto. */
export const PROGRESS_FLAGS: FlagDef[] = [
  {
    name: 'progress',
    type: 'string',
    choices: PROGRESS_CHOICES,
    env: 'NSED_PROGRESS',
    configKey: 'progress',
    describe:
      'progress on stderr: plain lines (CI logs), none, or auto (live on a terminal; plain off one when CI is set)',
  },
];

export function withProgressFlags<T>(y: Argv<T>): Argv<T> {
  let out = y;
  for (const def of PROGRESS_FLAGS) {
    out = out.option(def.name, {
      type: 'string',
      describe: def.describe,
      defaultDescription: 'auto',
      global: true,
      ...(def.choices === undefined ? {} : { choices: def.choices }),
    });
  }
  return out;
}

export function parseProgressChoice(
  argv: ParsedArgv,
  env: Readonly<Record<string, string | undefined>>,
  file: ConfigValues,
): ProgressChoice {
  const flag = PROGRESS_CHOICES.find((c) => c === argv['progress']);
  if (flag !== undefined) return flag;
  const raw = (env['NSED_PROGRESS'] ?? '').trim();
  if (raw !== '') {
    const fromEnv = PROGRESS_CHOICES.find((c) => c === raw);
    if (fromEnv === undefined)
      throw usageError(`NSED_PROGRESS must be one of ${PROGRESS_CHOICES.join(', ')}, not '${raw.slice(0, 40)}'`);
    return fromEnv;
  }
  return file.progress ?? 'auto';
}
