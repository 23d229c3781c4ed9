import { usageError } from '../errors.js';

/**
 * The bounds of a number a user gives: a flag (FlagDef carries them), a config key, a batch
 * item's field. One rule, one wording of its refusal, wherever the number comes from.
 */
export interface NumberRule {
  /** Whole numbers only. */
  integer?: true;
  min?: number;
  max?: number;
}

/** The council's rounds (`deliberation_rounds`, docs/protocol.md): --rounds, the config key, a batch item. */
export const ROUNDS_RULE = { integer: true, min: 1, max: 100 } as const satisfies NumberRule;

/** The rule in words, after "must be": `a whole number from 1 to 100`, `a non-negative number`. */
export function ruleText(r: NumberRule): string {
  const what = r.integer === true ? 'a whole number' : 'a number';
  if (r.min !== undefined && r.max !== undefined) return `${what} from ${r.min} to ${r.max}`;
  if (r.min === 0 && r.integer !== true) return 'a non-negative number';
  if (r.min !== undefined) return `${what} of at least ${r.min}`;
  if (r.max !== undefined) return `${what} of at most ${r.max}`;
  return what;
}

/** Whether `v` is a number the rule allows (NaN and infinities never are). */
export function keepsRule(r: NumberRule, v: unknown): v is number {
  return (
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (r.integer !== true || Number.isInteger(v)) &&
    (r.min === undefined || v >= r.min) &&
    (r.max === undefined || v <= r.max)
  );
}

/** `v` when the rule allows it, else a usage error `LABEL must be …` (`--rounds`, `rounds`, `line 3: rounds`). */
export function checkNumber(r: NumberRule, v: unknown, label: string): number {
  if (!keepsRule(r, v)) throw usageError(`${label} must be ${ruleText(r)}`);
  return v;
}
