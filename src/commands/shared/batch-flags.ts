import { usageError } from '../../errors.js';
import type { FlagDef } from './flag-def.js';
import { REPORT_FLAGS } from './report-flags.js';

/** A single-turn report flag, worded for the batch: the same file, one entry per item. */
export const batchReportFlag = (
  name: 'summary' | 'junit' | 'junit-name' | 'github-output' | 'check-run',
  describe: string,
  group = 'Batch:',
): FlagDef => {
  const def = REPORT_FLAGS.find((f) => f.name === name);
  if (def === undefined) throw new Error(`no --${name} among the report flags`);
  return { ...def, group, describe };
};

/** --min-pass-rate: a share from 0 to 1, or a percentage. */
export function parsePassRate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const pct = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text);
  const n = pct !== null ? Number(pct[1]) / 100 : Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw usageError(
      `--min-pass-rate must be from 0 to 1 (or 0% to 100%), not '${text.slice(0, 20)}'`,
      'e.g. --min-pass-rate 0.9',
    );
  return n;
}
