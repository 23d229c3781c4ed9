import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import {
  declareTools,
  declaredNameOf,
  offeredDefinitions,
  parseToolFlag,
  parseToolsFile,
  userToolsOf,
} from '../../src/tools/declared.js';

const usage = (fn: () => unknown): NsedError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof NsedError) return err;
    throw err;
  }
  throw new Error('expected a usage error');
};

describe('declaring tools', () => {
  it('reads OpenAI function tools with an optional argv command, timeout and output cap', () => {
    const [calc, plain] = parseToolsFile(
      JSON.stringify({
        tools: [
          {
            type: 'function',
            function: { name: 'calc', parameters: { type: 'object' } },
            command: ['node', 'calc.js'],
            timeout: 2.5,
            max_output_bytes: 100,
          },
          { type: 'function', function: { name: 'lookup', description: 'find it' } },
        ],
      }),
      't.json',
    );
    expect(calc).toEqual({
      definition: { type: 'function', function: { name: 'calc', parameters: { type: 'object' } } },
      command: { argv: ['node', 'calc.js'], timeoutMs: 2500, maxOutputBytes: 100 },
    });
    expect(plain?.command).toBeUndefined();
    expect(plain?.definition.function.description).toBe('find it');
  });

  it.each([
    ['[1]', /tool 1 in t.json is not an object/],
    ['[{"function":{}}]', /tool 1 in t.json has no function name/],
    ['[{"function":{"name":"a b"}}]', /may use only letters/],
    [
      '[{"function":{"name":"calc"},"command":"node calc.js; rm -rf /"}]',
      /command must be an argv array, not a string/,
    ],
    ['[{"function":{"name":"calc"},"command":[]}]', /non-empty array of strings/],
    ['[{"function":{"name":"calc"},"command":["node"],"timeout":0}]', /timeout \(seconds\) must be a positive number/],
    ['{"nope":1}', /holds no array of tools/],
    ['not json', /is not valid JSON/],
  ])('refuses %s with a usage error that says what is wrong', (text, message) => {
    const e = usage(() => parseToolsFile(text, 't.json'));
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(message);
  });

  it('reads --tool NAME=PROGRAM and refuses anything else', () => {
    expect(parseToolFlag('calc=./calc.js').command?.argv).toEqual(['./calc.js']);
    expect(usage(() => parseToolFlag('calc')).message).toMatch(/is not NAME=PROGRAM/);
    expect(usage(() => parseToolFlag('=x')).message).toMatch(/is not NAME=PROGRAM/);
  });

  it('tells the orchestrator the name of a --tool, never the path of its program', () => {
    const d = declareTools([parseToolFlag('calc=/home/dev/private/bin/calc.js')], [], false);
    const offered = offeredDefinitions(d);
    expect(offered).toEqual([
      {
        type: 'function',
        function: { name: 'calc', description: 'the local tool calc', parameters: { type: 'object' } },
      },
    ]);
    expect(JSON.stringify([offered, userToolsOf(offered)])).not.toContain('/home/dev');
  });

  it('refuses a name declared twice, and offers ask_user only when asked', () => {
    const calc = parseToolFlag('calc=./calc.js');
    expect(usage(() => declareTools([calc], [calc], false)).message).toMatch(/declared twice/);
    const d = declareTools([calc], [], true);
    expect(offeredDefinitions(d).map((t) => t.function.name)).toEqual(['calc', 'ask_user']);
    expect(userToolsOf(offeredDefinitions(d))[1]).toMatchObject({ name: 'ask_user', strict: false });
    expect(offeredDefinitions(declareTools([calc], [], false)).map((t) => t.function.name)).toEqual(['calc']);
  });

  it('maps a call to the declared name, dropping the user_ prefix agents see, and nothing else', () => {
    const d = declareTools([parseToolFlag('calc=./calc.js')], [], true);
    expect(declaredNameOf(d, 'calc')).toBe('calc');
    expect(declaredNameOf(d, 'user_calc')).toBe('calc');
    expect(declaredNameOf(d, 'user_ask_user')).toBe('ask_user');
    expect(declaredNameOf(d, 'rm')).toBeUndefined();
    expect(declaredNameOf(declareTools([], [], false), 'ask_user')).toBeUndefined();
  });
});
