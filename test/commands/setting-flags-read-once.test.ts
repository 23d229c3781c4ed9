import { describe, expect, it } from 'vitest';
import { parseWords } from '../../src/cli/run-cli.js';
import type { AskOptions } from '../../src/commands/ask.js';
import { ask } from '../../src/commands/ask.js';
import { runnableDefs, type CommandDef, type ParsedArgv } from '../../src/commands/command.js';
import { GLOBAL_FLAGS } from '../../src/commands/global-options.js';
import { commands } from '../../src/commands/index.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import { SETTING_FLAGS } from '../../src/commands/shared/setting-flags.js';
import { parseConfigText } from '../../src/run/config-file.js';

// A setting flag (-p, --agents, --rounds, --max-cost, --max-tokens, sim's --profile and --token,
// the global ones) is read from the parsed words once per run: parseGlobalOptions reads it into
// RunSettings with its source, and the command's parse step takes a turn's own from there
// (givenByFlag). Two reads of one value would be two places that could read it differently.
// The parsed words sit behind a proxy that counts each key's reads over the whole parse step.

/** The parsed words behind a proxy that counts how often each key is read. */
function counting(argv: ParsedArgv): { argv: ParsedArgv; reads: (key: string) => number } {
  const reads = new Map<string, number>();
  const proxy = new Proxy(argv, {
    get(target, key, receiver) {
      if (typeof key === 'string') reads.set(key, (reads.get(key) ?? 0) + 1);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { argv: proxy, reads: (key) => reads.get(key) ?? 0 };
}

/** The setting flags a command's parse step meets: the global ones and the command's own. */
const settingFlagsOf = (def: CommandDef): string[] =>
  SETTING_FLAGS.filter((s) => GLOBAL_FLAGS.includes(s) || (def.flags ?? []).includes(s)).map((s) => s.name);

/** `nsed WORDS` as yargs reads them, then the whole parse step over the counted words. */
async function parsedOnce(
  words: string[],
): Promise<{ def: CommandDef; options: unknown; reads: (k: string) => number }> {
  const parsed = await parseWords(words, 100);
  if (parsed.selected === undefined) throw parsed.error ?? new Error(`no command: ${words.join(' ')}`);
  const { def } = parsed.selected;
  const { argv, reads } = counting(parsed.selected.argv);
  const { options } = parseCommandLine(def, argv);
  return { def, options, reads };
}

describe('a setting flag is read from the words once', () => {
  it.each([
    [['ask', '--agents', 'A,B', '--rounds', '2', '--max-cost', '1', '--max-tokens', '500', 'q']],
    [['ask', '-p', 'deep', '--rounds', '3', '--max-cost', '0.5', '-o', 'json', '--url', 'http://x', 'q']],
    [['continue', '--last', '-p', 'deep', '--max-tokens', '9', 'more']],
    [['fork', 'abc', '--agents', 'A,B', '--rounds', '2', 'other']],
    [['batch', 'items.jsonl', '-p', 'deep', '--rounds', '2', '--max-cost', '3']],
    [['batch', 'plan', 'items.jsonl', '--shards', '2', '--agents', 'A,B', '--rounds', '2']],
    [['sim', '--profile', 'strict', '--token', 't', '--port', '0']],
  ])('nsed %j: each setting flag once', async (words) => {
    const { def, reads } = await parsedOnce(words);
    const settings = settingFlagsOf(def);
    expect(settings.length).toBeGreaterThan(0);
    for (const name of settings) expect(reads(name), `--${name} of ${words.join(' ')}`).toBe(1);
  });

  it("ask's turn carries what its flags gave, read that once", async () => {
    const words = ['ask', '--agents', 'A,B', '--rounds', '2', '--max-cost', '1', '--max-tokens', '500', 'q'];
    const { options } = await parsedOnce(words);
    expect((options as AskOptions).turn).toMatchObject({
      policy: undefined,
      agents: ['A', 'B'],
      rounds: 2,
      cap: { maxCostUsd: 1, maxTokens: 500 },
    });
    const deep = await parsedOnce(['ask', '-p', ' deep ', '--rounds', '3', 'q']);
    // The policy as its rule reads it, wherever it came from: the spaces around a word are not part of it.
    expect((deep.options as AskOptions).turn).toMatchObject({ policy: 'deep', agents: undefined, rounds: 3 });
  });

  // Every command, as yargs leaves the words with no setting flag given (defaults filled in, a
  // positional named, what each needs to parse at all): the global setting flags and the
  // command's own are each read once, and no command reads a setting flag it does not declare.
  const all = commands.flatMap(runnableDefs);
  it.each(all.map((def) => [def.command, def] as const))('nsed %s: no setting flag read twice', (_, def) => {
    const flags = [...GLOBAL_FLAGS, ...(def.flags ?? [])];
    const words: Record<string, unknown> = {
      _: [],
      ...Object.fromEntries(flags.filter((f) => f.default !== undefined).map((f) => [f.name, f.default])),
      ...Object.fromEntries((def.positionals ?? []).map((p) => [p.name, p.array ? ['x'] : (p.choices?.[0] ?? 'x')])),
      // What some commands refuse to run without: a session, a shard count, a gate.
      ...(flags.some((f) => f.name === 'last') && !(def.positionals ?? []).some((p) => ['id', 'job'].includes(p.name))
        ? { last: true }
        : {}),
      ...(flags.some((f) => f.name === 'shards') ? { shards: 2 } : {}),
      ...(flags.some((f) => f.name === 'max-wrong') ? { 'max-wrong': '0' } : {}),
    };
    const { argv, reads } = counting(words);
    parseCommandLine(def, argv);
    const declared = settingFlagsOf(def);
    for (const s of SETTING_FLAGS) {
      // A flag of the command's own that shares a setting's name (`sessions ls -p`, a filter) is not the setting.
      const own = (def.flags ?? []).some((f) => f.name === s.name && f !== s);
      expect(reads(s.name), `--${s.name}`).toBe(declared.includes(s.name) || own ? 1 : 0);
    }
  });
});

describe('what the environment and the config file give stays a setting of the run', () => {
  it('is not the turn’s own -p, --agents, --rounds or cap: those are what its flags gave', () => {
    const file = '{"policy": "fast", "agents": ["C", "D"], "rounds": 4, "max_tokens": 800}';
    const config = { path: '/c.json', exists: true, ...parseConfigText(file, '/c.json'), error: undefined };
    const env = { NSED_POLICY: 'deep', NSED_MAX_COST: '2' };
    const { globals, options } = parseCommandLine(ask, { prompt: ['q'], stream: true }, config, env);
    expect(options.turn).toMatchObject({ policy: undefined, agents: undefined, rounds: undefined });
    expect(options.turn.cap).toBeUndefined();
    // The settings hold them, with their sources, for the turn to weigh (councilChoice, turnCapOf).
    const { policy, agents, rounds, maxCostUsd, maxTokens } = globals.settings;
    expect([policy, agents, rounds, maxCostUsd, maxTokens].map((s) => [s.value, s.source])).toEqual([
      ['deep', 'env'],
      [['C', 'D'], 'config'],
      [4, 'config'],
      [2, 'env'],
      [800, 'config'],
    ]);
    // A flag outranks them and is the turn's own.
    const flagged = parseCommandLine(ask, { prompt: ['q'], stream: true, rounds: 2, 'max-tokens': 9 }, config, env);
    expect(flagged.options.turn).toMatchObject({ rounds: 2, cap: { maxTokens: 9 } });
    expect(flagged.globals.settings.rounds).toMatchObject({ value: 2, source: 'flag' });
  });
});
