import { usageError } from '../../errors.js';
import type { ParsedArgv } from '../command.js';
import { flagValues, type FlagDef } from './flag-def.js';
import type { KeyedRun } from '../../turn/idempotency.js';

/** What a key may hold: what CI variables expand to, and `/` to join them; no spaces or quotes. */
const KEY = /^[A-Za-z0-9._:@+=#/-]{1,200}$/;

/**
 * `--idempotency-key KEY` and its `--force`. No environment variable or config key stands in for
 * the key: it names one run's turn, and a key left in the environment would replay one answer
 * for every later question (or refuse them all as a reused key).
 */
const FLAGS = [
  {
    name: 'idempotency-key',
    type: 'string',
    valueName: 'KEY',
    sample: 'ci-1234-review',
    describe: 'name this turn: a re-run with the same key and question follows or replays it instead of paying again',
    details:
      'A second run with the same key and the same resolved request (prompt, context, files, policy or council, ' +
      'system, tools, schema) follows the deliberation while it runs, or prints its recorded answer with the same ' +
      'exit code once it ended, sending nothing; it finds the deliberation on the orchestrator even with an empty ' +
      'store. The same key with another question is exit 2 (see --force). 1 to 200 letters, digits and . _ - : / @ + = #.',
  },
  {
    name: 'force',
    type: 'boolean',
    describe: 'with --idempotency-key: run a new question under a key already used for another one',
  },
] as const satisfies readonly FlagDef[];

export const IDEMPOTENCY_FLAGS: readonly FlagDef[] = FLAGS;

/** The key and --force, as the turn runs them. */
export type IdempotencyOptions = KeyedRun;

/** The key, checked; undefined when none was given (then --force is refused: it would do nothing). */
export function parseIdempotencyFlags(argv: ParsedArgv): IdempotencyOptions | undefined {
  const f = flagValues(FLAGS, argv);
  const key = f['idempotency-key'];
  const force = f.force === true;
  if (key === undefined) {
    if (force)
      throw usageError('--force goes with --idempotency-key', 'e.g. --idempotency-key "$GITHUB_RUN_ID-review" --force');
    return undefined;
  }
  if (!KEY.test(key)) {
    const what =
      key.length === 0
        ? 'is empty'
        : key.length > 200
          ? `is ${key.length} characters long`
          : 'holds a character it may not';
    throw usageError(
      `--idempotency-key ${what}: use 1 to 200 letters, digits and . _ - : / @ + = #`,
      'build it from CI variables, e.g. --idempotency-key "$GITHUB_RUN_ID-$GITHUB_JOB-review"',
    );
  }
  return { key, force };
}
