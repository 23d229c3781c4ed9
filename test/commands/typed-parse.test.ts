// Every command reads its flags and positionals through its tables (flagValues, positionalValues
// in src/commands/shared/flag-def.ts): no code indexes the parsed words itself, so a value is
// typed, checked by its rule and named in one place.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../src');

/**
 * The modules that may index the parsed words: the table reader itself, and the fast path's
 * prescan, which builds them from the same tables in yargs' place (it writes and merges them).
 */
const READERS = new Set(['commands/shared/flag-def.ts', 'cli/prescan.ts']);

/**
 * A read of `argv[...]` (or `argv.name`), not a write into an argv a caller builds (`argv['x'] = v`)
 * nor another object's `argv` (`process.argv`).
 */
const UNTYPED_READ = /(?<![\w$.])argv(?:\[[^\]\n]*\](?!\s*=[^=>])|\.(?!length\b)[A-Za-z_]\w*(?!\s*=[^=>]))/g;

async function sources(): Promise<string[]> {
  const all = await readdir(root, { recursive: true });
  return all.filter((f) => f.endsWith('.ts')).map((f) => f.split('\\').join('/'));
}

describe('typed parse everywhere', () => {
  it('no module but the table reader indexes the parsed words', async () => {
    const files = await sources();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const f of files) {
      if (READERS.has(f)) continue;
      const lines = (await readFile(join(root, f), 'utf8')).split('\n');
      lines.forEach((line, i) => {
        // Comments may name an argv key, and a fish script's `$argv[1]` is the shell's.
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
        for (const m of line.matchAll(UNTYPED_READ)) found.push(`src/${f}:${i + 1}: ${m[0]}`);
      });
    }
    expect(
      found,
      'read flags through flagValues(TABLE, argv) and positionals through positionalValues(TABLE, argv) ' +
        "(src/commands/shared/flag-def.ts, whose header shows the pattern): declare the command's own flags as " +
        '`const FLAGS = [...] as const satisfies readonly FlagDef[]` and its positionals likewise, so each value is typed',
    ).toEqual([]);
  });

  it('the untyped readers are gone', async () => {
    const flagDef = await import('../../src/commands/shared/flag-def.js');
    const command = await import('../../src/commands/command.js');
    for (const name of ['stringFlag', 'stringList'])
      expect(name in flagDef || name in command, `${name} is exported`).toBe(false);
  });

  it('the check finds a read, and leaves a write and a comment alone', () => {
    const reads = (text: string): string[] => [...text.matchAll(UNTYPED_READ)].map((m) => m[0]);
    expect(reads("const v = argv['max-cost'];")).toEqual(["argv['max-cost']"]);
    expect(reads('if (argv.last === true) {')).toEqual(['argv.last']);
    expect(reads("argv['max-cost'] = args['max_cost'];")).toEqual([]);
    expect(reads('const n = argv.length;')).toEqual([]);
    expect(reads("if (argv['x'] === 1) {")).toEqual(["argv['x']"]);
    expect(reads('const words = process.argv.slice(2);')).toEqual([]);
  });
});
