import { describe, expect, it } from 'vitest';
import { runnableDefs, type CommandDef } from '../../src/commands/command.js';
import { commands } from '../../src/commands/index.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import { flagLabel, flagValues, type FlagDef } from '../../src/commands/shared/flag-def.js';
import { ruleText } from '../../src/protocol/number-rule.js';

// A number flag's bounds live in its table entry (integer, min, max): every parse step that reads
// it refuses a value outside them in the rule's one wording, and the table is the only place
// that says them (no parse step checks a bound of its own).
// A group's bare command too (`batch ITEMS`, `mcp`): its flags are bounded as any command's.
const all: CommandDef[] = commands.flatMap(runnableDefs);
const bounded = all.flatMap((def) =>
  (def.flags ?? [])
    .filter(
      (f) =>
        f.type === 'number' &&
        (f.integer !== undefined || f.min !== undefined || f.max !== undefined || f.exclusiveMin !== undefined),
    )
    .map((f) => [`${def.command.split(' ')[0] ?? ''} --${f.name}`, def, f] as const),
);

/** Values just outside a flag's bounds, and a fraction for a whole-number one. */
function outside(f: FlagDef): number[] {
  return [
    ...(f.min === undefined ? [] : [f.min - 1]),
    ...(f.exclusiveMin === undefined ? [] : [f.exclusiveMin]),
    ...(f.max === undefined ? [] : [f.max + 1]),
    ...(f.integer === true ? [(f.min ?? 0) + 0.5] : []),
    Number.NaN,
  ];
}

function refusal(parse: () => unknown): unknown {
  try {
    parse();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('number flags and their bounds', () => {
  it('finds the bounded flags of the turn (its caps included), batch, sessions ls, mcp and sim', () => {
    const names = new Set(bounded.map(([label]) => label));
    for (const n of [
      'ask --rounds',
      'ask --max-tool-calls',
      'ask --schema-retries',
      'ask --max-cost',
      'ask --max-tokens',
      'batch --jobs',
      'ls --limit',
    ])
      expect(names).toContain(n);
  });

  it.each(bounded)('%s: a value outside the bounds is a usage error in the rule words', (_, def, f) => {
    for (const v of outside(f)) {
      // The rest of the words as yargs leaves them: the defaults filled in, the positionals given.
      const defaults = Object.fromEntries((def.flags ?? []).map((d) => [d.name, d.default]));
      const positionals = Object.fromEntries((def.positionals ?? []).map((p) => [p.name, p.array ? ['x'] : 'x']));
      const argv: Record<string, unknown> = {
        ...defaults,
        ...positionals,
        ...(def.command.startsWith('continue') ? { last: true } : {}),
      };
      argv[f.name] = v;
      expect(
        refusal(() => parseCommandLine(def, argv)),
        `${f.name} ${v}`,
      ).toMatchObject({
        code: 'usage',
        exitCode: 2,
        message: `${flagLabel(f)} must be ${ruleText(f)}`,
      });
    }
  });

  it('reads the values typed from the table: absent flags (and values of another type) fall back to their defaults', () => {
    const table = [
      { name: 'n', type: 'number', integer: true, min: 1, max: 3, describe: '' },
      { name: 'on', type: 'boolean', default: true, describe: '' },
      { name: 'pick', type: 'string', choices: ['a', 'b'], default: 'a', describe: '' },
      { name: 'each', type: 'string', repeatable: true, describe: '' },
    ] as const satisfies readonly FlagDef[];
    const read = flagValues(table, { n: 2, pick: 7, each: 'x' });
    expect(read).toEqual({ n: 2, on: true, pick: 'a', each: ['x'] });
    expect(() => flagValues(table, { n: 4 })).toThrow('--n must be a whole number from 1 to 3');
    // A value of the right type outside the rule is refused, as yargs would, in the rule's words.
    expect(() => flagValues(table, { pick: 'nope' })).toThrow("--pick must be one of a, b, not 'nope'");
  });
});
