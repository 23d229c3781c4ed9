// The council a turn gets from the settings is decided once, where the settings are resolved
// (RunSettings.council), and the turn reads that value (councilChoice): these are the rules that
// decision keeps, read through the real parse of flags, environment and config file.
import { describe, expect, it } from 'vitest';
import { ask } from '../../src/commands/ask.js';
import { parseGlobalOptions } from '../../src/commands/global-options.js';
import { ls } from '../../src/commands/sessions/ls.js';
import { parseConfigText, type LoadedConfig } from '../../src/run/config-file.js';
import type { ParsedArgv } from '../../src/commands/command.js';
import { councilChoice } from '../../src/turn/turn-options.js';

const fileOf = (json: object): LoadedConfig => ({
  path: '/c.json',
  exists: true,
  ...parseConfigText(JSON.stringify(json), '/c.json'),
  error: undefined,
});
const FILE = fileOf({ policy: 'cfg', agents: ['A', 'B'], rounds: 3 });

/** The settings' council of `nsed ask` with these flags, environment and config file. */
function councilOf(flags: ParsedArgv, env: Record<string, string> = {}, file = FILE) {
  return parseGlobalOptions(flags, file, env, ask.flags).settings.council;
}

/** What a turn with no council flags of its own (a plain `nsed ask q`) asks for. */
const plainTurn = { model: undefined, policy: undefined, agents: undefined, rounds: undefined };

describe("the settings' council, decided once", () => {
  it("keeps the config file's agents and rounds when no policy is named for this run", () => {
    expect(councilOf({})).toEqual({
      value: { kind: 'agents', agents: ['A', 'B'], rounds: 3 },
      source: 'config',
      from: 'agents',
    });
    // The config file's policy names no policy for this run: the file's agents still choose.
    expect(councilChoice(plainTurn, { council: councilOf({}) })).toEqual({ agents: ['A', 'B'], rounds: 3 });
  });

  it('gives way to a policy named by NSED_POLICY or -p, keeping the rounds of the file', () => {
    for (const [flags, env, from] of [
      [{}, { NSED_POLICY: 'deep' }, 'NSED_POLICY'],
      [{ policy: 'deep' }, {}, '--policy'],
    ] as const) {
      const council = councilOf(flags, env);
      expect(council).toMatchObject({ value: { kind: 'policy', rounds: 3 }, from });
      expect(councilChoice(plainTurn, { council })).toEqual({ agents: undefined, rounds: 3 });
    }
  });

  it("leaves a turn's own council flags to the turn: they win, and the file's agents do not stand in", () => {
    // --agents and --rounds given: the settings carry no agents or rounds of the file.
    const council = councilOf({ agents: 'C,D', rounds: 2 });
    expect(council.value).toEqual({ kind: 'policy', rounds: undefined });
    const turn = { ...plainTurn, agents: ['C', 'D'], rounds: 2 };
    expect(councilChoice(turn, { council })).toEqual({ agents: ['C', 'D'], rounds: 2 });
    // A batch item's own policy gives the file's agents way, as -p does.
    expect(councilChoice({ ...plainTurn, policy: 'deep' }, { council: councilOf({}) })).toEqual({
      agents: undefined,
      rounds: 3,
    });
    // -m may be a plain server with no council: neither the file's agents nor its rounds are sent.
    expect(councilChoice({ ...plainTurn, model: 'llama3.2' }, { council: councilOf({}) })).toEqual({
      agents: undefined,
      rounds: undefined,
    });
  });

  it("is the policy's own council when no agents are configured, and a filter's -p names no policy", () => {
    expect(councilOf({}, {}, fileOf({}))).toEqual({
      value: { kind: 'policy', rounds: undefined },
      source: 'default',
      from: 'default',
    });
    // sessions ls -p is a filter: the file's agents keep the council.
    const listed = parseGlobalOptions({ policy: 'p' }, FILE, {}, ls.flags).settings.council;
    expect(listed.value).toEqual({ kind: 'agents', agents: ['A', 'B'], rounds: 3 });
  });
});
