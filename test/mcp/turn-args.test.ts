// The turn tools' arguments against the CLI's flag table, entry by entry: each argument that
// stands for a flag has the flag's name, type, choices, bounds and help line, from the same
// FlagDef object the command parses with; and a flag renamed or re-ruled changes its argument.
import { describe, expect, it } from 'vitest';
import { ask } from '../../src/commands/ask.js';
import { continueCommand } from '../../src/commands/continue.js';
import { fork } from '../../src/commands/fork.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import type { FlagDef } from '../../src/commands/shared/flag-def.js';
import { NsedError } from '../../src/errors.js';
import { MCP_TOOLS } from '../../src/mcp/tool-defs.js';
import { inToolTerms } from '../../src/mcp/tool-terms.js';
import {
  argName,
  argSchema,
  AT_ARG,
  checkTurnArgs,
  helpLine,
  TURN_ARGS,
  turnArgv,
  type TurnArg,
} from '../../src/mcp/turn-args.js';
import { checkSettingValue } from '../../src/commands/shared/setting-rule.js';

type Schema = Record<string, unknown>;
const props = (tool: string): Record<string, Schema> => {
  const t = MCP_TOOLS.find((x) => x.name === tool);
  if (t === undefined) throw new Error(`no tool ${tool}`);
  return t.inputSchema['properties'] as Record<string, Schema>;
};

/** The tool call's own arguments: no flag stands behind them (the question is ask's positional). */
const CALL_OWN = ['question', 'session', 'on_partial', 'wait', 'timeout_s', 'detail'];

const commandOf = { deliberate: ask, continue: continueCommand, fork } as const;

/** The message a thrown usage error carries, or the error when something else was thrown. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof NsedError && err.code === 'usage') return err.message;
    throw err;
  }
  return 'accepted';
}

describe('the turn tools’ arguments, from the flag table', () => {
  it('every property of deliberate, continue and fork is a flag’s argument or the call’s own', () => {
    for (const [tool, command] of Object.entries(commandOf)) {
      const flagArgs = [...TURN_ARGS, AT_ARG].filter((a) => props(tool)[a.name] !== undefined);
      for (const name of Object.keys(props(tool)))
        expect(CALL_OWN.includes(name) || flagArgs.some((a) => a.name === name), `${tool}.${name}`).toBe(true);
      // The very entries the command's parse reads: not a copy that could drift from them.
      for (const a of flagArgs)
        expect(command.flags?.includes(a.flag), `${tool}.${a.name} is --${a.flag.name}`).toBe(true);
      expect(flagArgs.length).toBeGreaterThan(8);
    }
  });

  it('names each argument as its flag in snake_case, a repeatable flag in the plural', () => {
    for (const a of [...TURN_ARGS, AT_ARG])
      expect(a.name, `--${a.flag.name}`).toBe(
        a.shape === 'each' ? `${argName(a.flag.name)}s` : a.flag.name.replaceAll('-', '_'),
      );
    expect(TURN_ARGS.map((a) => a.name)).toEqual(
      expect.arrayContaining(['policy', 'agents', 'rounds', 'files', 'schema', 'gates', 'max_cost', 'max_tokens']),
    );
  });

  it('gives each argument its flag’s type, bounds, choices and help line', () => {
    for (const a of TURN_ARGS) {
      const listed = props('deliberate')[a.name] as Schema;
      expect(listed, a.name).toEqual(argSchema(a, inToolTerms));
      if (a.shape !== 'value') continue;
      expect(listed['description'], a.name).toBe(inToolTerms(helpLine(a.flag)));
      if (a.flag.type === 'boolean') expect(listed['type']).toBe('boolean');
      if (a.flag.choices !== undefined) expect(listed['enum']).toEqual(a.flag.choices);
      if (a.flag.integer === true) expect(listed['type'], a.name).toBe('integer');
      if (a.flag.min !== undefined) expect(listed['minimum'], a.name).toBe(a.flag.min);
      if (a.flag.max !== undefined) expect(listed['maximum'], a.name).toBe(a.flag.max);
    }
    expect(props('deliberate')['rounds']).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(props('fork')['at']).toEqual({ type: 'string', description: inToolTerms(helpLine(AT_ARG.flag)) });
  });

  it('a flag renamed or re-ruled changes its argument: name, bounds, choices and help line follow the entry', () => {
    const rounds = TURN_ARGS.find((a) => a.name === 'rounds') as TurnArg;
    const reruled: FlagDef = { ...rounds.flag, name: 'council-rounds', max: 12, describe: 'how long they talk' };
    const moved: TurnArg = { ...rounds, name: argName(reruled.name), flag: reruled };
    expect(moved.name).toBe('council_rounds');
    expect(argSchema(moved, inToolTerms)).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 12,
      description: 'how long they talk',
    });
    const chosen: FlagDef = { name: 'mode', type: 'string', choices: ['a', 'b'], describe: 'a mode (default a)' };
    expect(argSchema({ name: 'mode', flag: chosen, shape: 'value' }, inToolTerms)).toEqual({
      enum: ['a', 'b'],
      description: 'a mode',
    });
  });

  it('refuses a value its flag’s rule refuses, in the CLI’s words with the argument’s name', () => {
    for (const a of TURN_ARGS.filter((x) => x.shape === 'value' && x.flag.type === 'number')) {
      const bad = a.flag.max === undefined ? 0 : a.flag.max + 1;
      const cli = refusal(() => {
        checkSettingValue(a.flag, bad, { kind: 'flag' });
      });
      expect(cli, a.name).not.toBe('accepted');
      expect(
        refusal(() => checkTurnArgs({ [a.name]: bad })),
        a.name,
      ).toBe(cli.replace(`--${a.flag.name}`, a.name));
    }
    expect(refusal(() => checkTurnArgs({ rounds: 2.5 }))).toBe('rounds must be a whole number from 1 to 100');
    expect(refusal(() => checkTurnArgs({ rounds: 3, max_cost: 0.5, max_tokens: 2000 }))).toBe('accepted');
  });

  it('turns the arguments into the words the command’s parse reads', () => {
    expect(
      turnArgv({
        policy: 'fast',
        agents: ['CortexA', 'CortexB'],
        rounds: 2,
        schema: { type: 'object' },
        gates: { 'max-cost': 0.5, 'min-endorse-share': 0.6, 'min-convergence': 0.8 },
        max_cost: 1,
        allow_unmetered: true,
        ask_user: false,
        idempotency_key: 'k-1',
      }),
    ).toEqual({
      policy: 'fast',
      agents: 'CortexA,CortexB',
      rounds: 2,
      schema: '{"type":"object"}',
      'max-cost-gate': '0.5',
      'min-endorse': '60%',
      'min-convergence': '0.8',
      'max-cost': 1,
      'allow-unmetered': true,
      'idempotency-key': 'k-1',
    });
    // The words parse as the command's own: a bad council is refused with its flag's message, in tool terms.
    const parsed = parseCommandLine(ask, {
      prompt: ['q'],
      ...turnArgv({ agents: ['CortexA', 'CortexB'], rounds: 3 }),
    }).options;
    expect(parsed.turn).toMatchObject({ agents: ['CortexA', 'CortexB'], rounds: 3 });
    expect(
      inToolTerms(refusal(() => parseCommandLine(ask, { prompt: ['q'], ...turnArgv({ agents: ['A'] }) }).options)),
    ).toBe('agents needs at least two agent names');
  });

  it('names each flag’s argument in errors and hints, as the table names it', () => {
    for (const a of TURN_ARGS) expect(inToolTerms(`--${a.flag.name} is wrong`)).toBe(`${a.name} is wrong`);
    expect(inToolTerms('-p/--policy is empty')).toBe('policy is empty');
    expect(inToolTerms('-f notes.md')).toBe('files notes.md');
  });
});
