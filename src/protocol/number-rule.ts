import { usageError } from '../errors.js';

/**
 * The bounds of a number a user gives: a flag (FlagDef carries them), a config key, an
 * environment variable, an MCP argument, a batch item's field. One rule, one wording of its
 * refusal, wherever the number comes from.
 */
export interface NumberRule {
  /** Whole numbers only (and safe ones: a count past 2^53 is no count). */
  integer?: true;
  min?: number;
  max?: number;
  /** The value must be more than this (0: positive), where `min` would let the bound itself in. */
  exclusiveMin?: number;
  /** What the number counts, as the refusal says it: `seconds`, `dollars`, `tokens`. */
  unit?: string;
  /** A value the refusal offers as an example (`0.50`). */
  example?: string;
}

/** The council's rounds (`deliberation_rounds`, docs/protocol.md): --rounds, the config key, a batch item. */
export const ROUNDS_RULE = { integer: true, min: 1, max: 100 } as const satisfies NumberRule;

/** Whether a rule bounds anything at all (a plain number flag only needs to be a number). */
export function bounds(r: NumberRule): boolean {
  return r.integer !== undefined || r.min !== undefined || r.max !== undefined || r.exclusiveMin !== undefined;
}

/**
 * The rule in words, after "must be": `a whole number from 1 to 100`, `a non-negative number`,
 * `a positive number of dollars, e.g. 0.50`.
 */
export function ruleText(r: NumberRule): string {
  const noun = r.integer === true ? 'whole number' : 'number';
  const unit = r.unit === undefined ? '' : ` of ${r.unit}`;
  const example = r.example === undefined ? '' : `, e.g. ${r.example}`;
  let text: string;
  if (r.exclusiveMin === 0 && r.max === undefined) text = `a positive ${noun}${unit}`;
  else if (r.exclusiveMin !== undefined) text = `a ${noun}${unit} more than ${r.exclusiveMin}`;
  else if (r.min !== undefined && r.max !== undefined) text = `a ${noun}${unit} from ${r.min} to ${r.max}`;
  else if (r.min === 0 && r.integer !== true) text = `a non-negative number${unit}`;
  else if (r.min !== undefined) text = `a ${noun}${unit} of at least ${r.min}`;
  else if (r.max !== undefined) text = `a ${noun}${unit} of at most ${r.max}`;
  else text = `a ${noun}${unit}`;
  return text + example;
}

/** Whether `v` is a number the rule allows (NaN and infinities never are). */
export function keepsRule(r: NumberRule, v: unknown): v is number {
  return (
    typeof v === 'number' &&
    Number.isFinite(v) &&
    (r.integer !== true || Number.isSafeInteger(v)) &&
    (r.min === undefined || v >= r.min) &&
    (r.max === undefined || v <= r.max) &&
    (r.exclusiveMin === undefined || v > r.exclusiveMin)
  );
}

/** `v` when the rule allows it, else a usage error `LABEL must be …` (`--rounds`, `rounds`, `line 3: rounds`). */
export function checkNumber(r: NumberRule, v: unknown, label: string): number {
  if (!keepsRule(r, v)) throw usageError(`${label} must be ${ruleText(r)}`);
  return v;
}
