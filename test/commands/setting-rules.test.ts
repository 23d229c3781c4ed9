// Every setting's rule is its flag's entry (commands/shared/setting-flags.ts), applied by one
// checker at every layer a value comes from: the flag, its environment variable, its config key
// and an MCP tool's argument. A bad value gets the same line from each, naming where it came from.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/run/config-file.js';
import { NsedError } from '../../src/errors.js';
import { parseGlobalOptions } from '../../src/commands/global-options.js';
import { checkSettingValue, resolveSetting, type FlagDef } from '../../src/commands/shared/flag-def.js';
import { SETTING_FLAGS } from '../../src/commands/shared/setting-flags.js';
import { sourceLabel, type ValueSource } from '../../src/commands/shared/setting-rule.js';
import { ruleText } from '../../src/protocol/number-rule.js';

/** A value each layer can hold that the rule refuses, or undefined for a setting with no rule. */
function badValue(def: FlagDef): unknown {
  if (def.type === 'number') return def.exclusiveMin ?? (def.min ?? 0) - 1;
  if (def.type === 'boolean') return 'yes';
  if (def.choices !== undefined) return 'nope';
  if (def.form === 'url') return 'ftp://example.com';
  if (def.form === 'agents') return 'CortexA';
  if (def.form === 'path' || def.emptyHint !== undefined) return ' ';
  return undefined;
}

/**
 * The refusal a call throws, or a failure saying it did not refuse: a usage error (exit 2), but
 * for a config file that holds the value, which is a broken file (exit 8, naming it).
 */
function refusal(what: string, call: () => unknown): NsedError {
  try {
    call();
  } catch (err) {
    expect(err, what).toBeInstanceOf(NsedError);
    expect(err, what).toMatchObject(
      what === 'config' ? { code: 'store', exitCode: 8 } : { code: 'usage', exitCode: 2 },
    );
    return err as NsedError;
  }
  throw new Error(`${what}: the bad value was taken`);
}

const ruled = SETTING_FLAGS.flatMap((def) => {
  const bad = badValue(def);
  return bad === undefined ? [] : [[def.name, def, bad] as const];
});
const mcp = (def: FlagDef): ValueSource => ({ kind: 'mcp', name: def.configKey ?? def.name.replace(/-/g, '_') });

describe('one rule per setting, at every layer', () => {
  it('covers the caps, the timeouts, the council and the choices', () => {
    const names = ruled.map(([name]) => name);
    for (const n of ['max-cost', 'max-tokens', 'timeout', 'idle-timeout', 'rounds', 'agents', 'output', 'progress'])
      expect(names).toContain(n);
  });

  it.each(ruled)('--%s: the flag, the environment, the config file and MCP say the same line', (_, def, bad) => {
    // The rest of the line after the name the source gives the value.
    const lines: Array<[ValueSource, string]> = [];
    const line = (source: ValueSource, err: NsedError, prefix = ''): void => {
      const label = sourceLabel(def, source);
      expect(err.message.startsWith(`${prefix}${label} `), err.message).toBe(true);
      lines.push([source, err.message.slice(prefix.length + label.length)]);
    };

    // The flag, as the run's settings read it from the command's words. yargs types a boolean
    // flag, and a value of another type reads as absent (parse.test.ts): the resolver's rule stands for it.
    line(
      { kind: 'flag' },
      def.type === 'boolean'
        ? refusal('flag', () => resolveSetting(def, { flag: bad, default: undefined }))
        : refusal('flag', () => parseGlobalOptions({ [def.name]: bad }, undefined, {}, [def])),
    );
    // The environment holds text; a blank variable is not set, so blankness is no rule there.
    if (def.env !== undefined && String(bad).trim() !== '')
      line(
        { kind: 'env' },
        refusal('env', () => parseGlobalOptions({}, undefined, { [def.env ?? '']: String(bad) }, [def])),
      );
    if (def.configKey !== undefined) {
      const file = '/etc/nsed/config.json';
      line(
        { kind: 'config' },
        refusal('config', () => parseConfigText(JSON.stringify({ [def.configKey ?? '']: bad }), file)),
        `the config file ${file}: `,
      );
    }
    line(
      mcp(def),
      refusal('mcp', () => checkSettingValue(def, bad, mcp(def))),
    );

    expect(lines.length).toBeGreaterThanOrEqual(2);
    const [first] = lines;
    for (const [source, rest] of lines) expect(`${source.kind}:${rest}`).toBe(`${source.kind}:${first?.[1] ?? ''}`);
    if (def.type === 'number') expect(first?.[1]).toBe(` must be ${ruleText(def)}`);
  });

  it('the spend caps are refused in words that name the unit and an example', () => {
    const cost = SETTING_FLAGS.find((d) => d.name === 'max-cost');
    const tokens = SETTING_FLAGS.find((d) => d.name === 'max-tokens');
    if (cost === undefined || tokens === undefined) throw new Error('no cap flags');
    expect(refusal('env', () => checkSettingValue(cost, 'abc', { kind: 'env' })).message).toBe(
      'NSED_MAX_COST must be a positive number of dollars, e.g. 0.50',
    );
    expect(refusal('mcp', () => checkSettingValue(tokens, 1.5, { kind: 'mcp', name: 'max_tokens' })).message).toBe(
      'max_tokens must be a positive whole number of tokens, e.g. 20000',
    );
    // Text is the environment's alone: an MCP argument or a config value written as a string is refused.
    expect(checkSettingValue(cost, ' 0.25 ', { kind: 'env' })).toBe(0.25);
    refusal('mcp text', () => checkSettingValue(cost, '0.25', { kind: 'mcp', name: 'max_cost' }));
  });

  it('resolves a setting from the layer that wins, with its source', () => {
    const rounds = SETTING_FLAGS.find((d) => d.name === 'rounds');
    if (rounds === undefined) throw new Error('no rounds flag');
    expect(resolveSetting(rounds, { flag: 3, config: 2, default: undefined })).toEqual({
      value: 3,
      source: 'flag',
      from: '--rounds',
    });
    expect(resolveSetting(rounds, { config: 2, default: undefined })).toEqual({
      value: 2,
      source: 'config',
      from: 'rounds',
    });
    expect(resolveSetting(rounds, { session: 4, default: undefined })).toEqual({
      value: 4,
      source: 'session',
      from: 'session',
    });
    expect(resolveSetting(rounds, { default: undefined })).toEqual({
      value: undefined,
      source: 'default',
      from: 'default',
    });
  });
});
