import { usageError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import { GATE_NAMES, type GateName, type Gates } from '../council/verdict.js';

const PERCENT = /^\s*(-?\d+(?:\.\d+)?)\s*%\s*$/;

/**
 * One threshold, from a flag or a `--gates` file: counts are whole numbers from 0, convergence
 * is 0-1 or a percentage (`80%`), scores and margins any finite number. `where` names the source.
 */
export function parseGateValue(name: GateName, raw: string | number, where: string): number {
  const text = String(raw).trim();
  const pct = SHARES.includes(name) ? PERCENT.exec(text) : null;
  const n = pct !== null ? Number(pct[1]) / 100 : text === '' ? Number.NaN : Number(text);
  const shown = oneLine(text, 40);
  if (!Number.isFinite(n)) throw usageError(`${where} needs a number, not '${shown}'`, example(name));
  if (name === 'max-wrong' || name === 'max-contested' || name === 'min-endorse') {
    if (!Number.isInteger(n) || n < 0) throw usageError(`${where} must be a whole number from 0, not '${shown}'`);
  }
  if (SHARES.includes(name) && (n < 0 || n > 1))
    throw usageError(`${where} must be from 0 to 1 (or 0% to 100%), not '${shown}'`, example(name));
  if (name === 'max-cost' && n < 0)
    throw usageError(`${where} must be a number of dollars from 0, not '${shown}'`, example(name));
  if (name === 'min-agreement' && (n < -1 || n > 1))
    throw usageError(`${where} must be from -1 to 1 (Fleiss' kappa), not '${shown}'`, example(name));
  return n;
}

/** The gates whose value is a share: 0-1, or a percentage. */
const SHARES: readonly GateName[] = ['min-convergence', 'min-endorse-share', 'max-synthetic'];

/**
 * The gate a flag or key sets: `--min-endorse` is a count of evaluators (`2`) or, as a
 * percentage (`60%`), a share of them (`min-endorse-share`); every other name sets itself.
 */
export function gateEntry(name: GateName, raw: string | number, where: string): [GateName, number] {
  if (name === 'min-endorse' && PERCENT.test(String(raw)))
    return ['min-endorse-share', parseGateValue('min-endorse-share', raw, where)];
  return [name, parseGateValue(name, raw, where)];
}

function example(name: GateName): string {
  switch (name) {
    case 'min-convergence':
      return 'e.g. --min-convergence 0.8 or --min-convergence 80%';
    case 'max-wrong':
    case 'max-contested':
      return `e.g. --${name} 0`;
    case 'min-score':
      return 'e.g. --min-score 0.6';
    case 'min-margin':
      return 'e.g. --min-margin 0.05';
    case 'min-agreement':
      return 'e.g. --min-agreement 0.4 (kappa, from -1 to 1)';
    case 'min-endorse':
    case 'min-endorse-share':
      return 'e.g. --min-endorse 2 (evaluators) or --min-endorse 60% (a share)';
    case 'max-synthetic':
      return 'e.g. --max-synthetic 0.25 or --max-synthetic 25%';
    case 'max-cost':
      return 'e.g. --max-cost-gate 0.50 (dollars)';
  }
}

const camelOf = (name: string): string => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * A `--gates` file: one JSON object whose keys are the gate flags' names without the dashes
 * (`min-convergence`, `max-wrong`, ...; kebab-case only, as on the command line) and whose values
 * are numbers (convergence may also be `"80%"`). An unknown key is a usage error that names it.
 */
export function parseGatesFile(text: string, path: string): Gates {
  const where = oneLine(path, 200);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(`--gates ${where} is not JSON: ${oneLine((err as Error).message, 120)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw usageError(`--gates ${where} must hold one JSON object`, '{"min-convergence": 0.8, "max-wrong": 0}');
  const gates: Gates = {};
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    const name = GATE_NAMES.find((n) => n === key);
    if (name === undefined) {
      const meant = GATE_NAMES.find((n) => camelOf(n) === key);
      throw usageError(
        `unknown gate '${oneLine(key, 60)}' in --gates ${where}`,
        meant === undefined ? `the gates are: ${GATE_NAMES.join(', ')}` : `the key is spelled '${meant}'`,
      );
    }
    if (typeof raw !== 'number' && typeof raw !== 'string')
      throw usageError(`gate '${name}' in --gates ${where} needs a number`, example(name));
    const [gate, n] = gateEntry(name, raw, `gate '${name}' in --gates ${where}`);
    gates[gate] = n;
  }
  return gates;
}
