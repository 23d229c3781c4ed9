// A flag that takes a value refuses to go without one, for every such flag of every command and
// every global one, read from the same tables yargs, the prescan and the docs are built from: as
// the last word, and followed by another flag (`--max-cost -o json q`, which yargs would read as
// no cap at all, and run). Both parsers refuse alike: runCli before yargs, and the prescan (the
// fast entry's parser) by declining, so the real bin's `ask` reaches the same refusal.
import { describe, expect, it } from 'vitest';
import { missingValue } from '../../src/cli/missing-value.js';
import { prescan } from '../../src/cli/prescan.js';
import { FAST_ENTRIES } from '../../src/cli/run-cli.js';
import { isGroup, type CommandDef } from '../../src/commands/command.js';
import { GLOBAL_FLAGS } from '../../src/commands/global-options.js';
import { commands } from '../../src/commands/index.js';
import type { FlagDef } from '../../src/commands/shared/flag-def.js';
import { ExitCode } from '../../src/errors.js';
import { useRig } from '../harness/rig.js';

/** Every command by the words that name it, with the flags those words may hold. */
const COMMANDS: { words: string[]; def: CommandDef }[] = commands.flatMap((entry) =>
  isGroup(entry)
    ? [
        // A group's bare command (`batch ITEMS`, `mcp`) is named by the group's word alone.
        ...(entry.bare === undefined ? [] : [{ words: [entry.command], def: entry.bare }]),
        ...entry.subcommands.map((def) => ({ words: [entry.command, def.command.split(' ')[0] ?? ''], def })),
      ]
    : [{ words: [entry.command.split(' ')[0] ?? ''], def: entry }],
);

const takesValue = (f: FlagDef): boolean => f.type === 'string' || f.type === 'number';

/** The ways a value goes missing, for one flag after a command's words. */
function missingShapes(words: string[], f: FlagDef): string[][] {
  const spellings = [
    `--${f.name}`,
    ...(f.alias === undefined ? [] : [f.alias.length === 1 ? `-${f.alias}` : `--${f.alias}`]),
  ];
  const shapes = spellings.flatMap((s) => [
    [...words, s],
    [...words, s, '-o', 'json', 'q'],
    [...words, 'q', s, '--', 'more'],
  ]);
  // A script's `--max-cost=$CAP` or `--max-cost "$CAP"` with CAP unset: a blank number is none.
  if (f.type === 'number' || f.choices !== undefined)
    shapes.push([...words, `--${f.name}=`], [...words, `--${f.name}`, '']);
  return shapes;
}

const CASES = COMMANDS.flatMap(({ words, def }) =>
  [...GLOBAL_FLAGS, ...(def.flags ?? [])]
    .filter(takesValue)
    .flatMap((f) => missingShapes(words, f).map((shape) => ({ shape, f }))),
);

describe('a value-taking flag given no value', () => {
  const rig = useRig();

  it('is refused by every command, exit 2, naming the flag, before anything is sent', async () => {
    expect(CASES.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const { shape, f } of CASES) {
      const r = await rig.run(shape);
      const label = f.alias !== undefined && f.alias.length === 1 ? `-${f.alias}/--${f.name}` : `--${f.name}`;
      if (r.code !== ExitCode.usage || !r.stderr.startsWith(`nsed: ${label} needs a value\n`))
        wrong.push(`${JSON.stringify(shape)}: exit ${r.code}, ${r.stderr.split('\n')[0] ?? ''}`);
    }
    expect(wrong).toEqual([]);
    expect(rig.sim.requests).toEqual([]);
  });

  it('is declined by the prescan, so the fast entry never reads it as yargs would', () => {
    const asked = CASES.filter(({ shape }) => shape[0] === 'ask');
    expect(asked.length).toBeGreaterThan(20);
    for (const { shape } of asked) expect(prescan(shape, FAST_ENTRIES), JSON.stringify(shape)).toBeUndefined();
  });

  it("stops the real bin's one-shot ask: --max-cost followed by another flag runs no uncapped deliberation", async () => {
    for (const args of [
      ['ask', '--max-cost', '-o', 'json', 'q'],
      ['ask', 'q', '--max-cost'],
      ['ask', '--max-cost=', 'q'],
    ]) {
      const r = await rig.runProcess(args);
      expect(r.code, args.join(' ')).toBe(ExitCode.usage);
      expect(r.stderr).toBe(
        "nsed: --max-cost needs a value\nhint: e.g. --max-cost=0.5 (a value that starts with '-' goes after the '=')\n",
      );
      expect(r.stdout).toBe('');
    }
    expect(rig.sim.requests).toEqual([]);
  });

  it('keeps the values that look like flags but are values: a negative number, one after =, the stdin marker', () => {
    const flags = [...GLOBAL_FLAGS, ...(COMMANDS.find((c) => c.words[0] === 'ask')?.def.flags ?? [])];
    expect(missingValue(['ask', '--min-margin', '-0.5', 'q'], flags)).toBeUndefined();
    expect(missingValue(['ask', '--system=-be terse', 'q'], flags)).toBeUndefined();
    expect(missingValue(['ask', '--max-cost', '2', '--', '--max-cost'], flags)).toBeUndefined();
    expect(missingValue(['ask', '-o', 'json', '--title', 'x', 'q'], flags)).toBeUndefined();
  });
});
