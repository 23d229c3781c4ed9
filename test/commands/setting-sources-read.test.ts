// A setting's source is weighed where settings are resolved, once: what the rest of the code
// needs decided from it (the turn's council, whether a session's recorded orchestrator stands in,
// how the terminal weighs the colour setting) is a value or a rule of src/run/settings.ts. A module
// that read `.source` itself to decide something would be a second definition of the precedence.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGlobalOptions } from '../../src/commands/global-options.js';

const root = join(import.meta.dirname, '../../src');

/** The modules that resolve settings: the only ones that decide anything from a source. */
const RESOLVERS = new Set(['run/settings.ts', 'commands/global-options.ts', 'commands/shared/setting-rule.ts']);

/**
 * Reads that only show a source, each with why: they print where a value came from and decide
 * nothing. A new entry here needs the same: a read that decides belongs in the resolvers.
 */
const PRESENTATION: ReadonlyMap<string, RegExp> = new Map([
  // nsed doctor lists the URL and the token with where each came from.
  ['commands/doctor.ts', /settings\.(url|token)\.source/],
]);

/** Every key of RunSettings, as parseGlobalOptions gives them. */
const SETTING_NAMES = Object.keys(parseGlobalOptions({}).settings);

/** `settings.policy.source`, or a setting taken out by name first (`const { color } = ...; color.source`). */
const SOURCE_READ = new RegExp(`(?<![\\w$])(?:settings\\.)?(?:${SETTING_NAMES.join('|')})\\.source\\b`, 'g');

async function sources(): Promise<string[]> {
  const all = await readdir(root, { recursive: true });
  return all.filter((f) => f.endsWith('.ts')).map((f) => f.split('\\').join('/'));
}

describe('setting sources are read where settings are resolved', () => {
  it('names every setting, so that a read of any of them is found', () => {
    expect(SETTING_NAMES).toEqual(expect.arrayContaining(['policy', 'agents', 'rounds', 'color', 'url', 'council']));
    // The pattern itself finds the reads it is for, and not a source of something else.
    const found = (line: string): string[] => [...line.matchAll(SOURCE_READ)].map((m) => m[0]);
    expect(found("settings.policy.source === 'env'")).toEqual(['settings.policy.source']);
    expect(found("color.source === 'config'")).toEqual(['color.source']);
    expect(found("`--schema ${opts.source}`, v.chosen.source, g.source === '-'")).toEqual([]);
  });

  it('no module but the resolvers decides anything from where a setting came from', async () => {
    const files = await sources();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const f of files) {
      if (RESOLVERS.has(f)) continue;
      const shown = PRESENTATION.get(f);
      const lines = (await readFile(join(root, f), 'utf8')).split('\n');
      lines.forEach((line, i) => {
        // A comment may say where a value comes from.
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
        for (const m of line.matchAll(SOURCE_READ)) {
          if (shown?.test(m[0]) === true) continue;
          found.push(`src/${f}:${i + 1}: ${m[0]}`);
        }
      });
    }
    expect(found).toEqual([]);
  });
});
