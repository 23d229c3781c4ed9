import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemRequestHash } from '../../src/batch/run-item.js';
import { parseItems } from '../../src/batch/items.js';
import { resolveItems } from '../../src/batch/resolve.js';
import { parseWords } from '../../src/cli/run-cli.js';
import { ask, type AskOptions } from '../../src/commands/ask.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import type { Context } from '../../src/run/context.js';
import { prepareTurnInput } from '../../src/input/turn-input.js';
import { requestHash } from '../../src/turn/idempotency/request-identity.js';
import { contextRig, INPUT_DEFAULTS, TURN_DEFAULTS, type ContextRig } from '../harness/context-rig.js';

/**
 * "The same request" is defined once (src/turn/idempotency/request-identity.ts), for --idempotency-key and
 * `batch --resume` alike. The flag table marks the flags that shape a request (`shapesRequest`):
 * each marked flag must change the identity and each unmarked flag of `ask` must leave it as it
 * is, so a new flag that shapes the request and is not in the identity fails here.
 */

/** What a batch run without -f, --schema or --template gives each item to build on. */
const BATCH_BASE = { turn: TURN_DEFAULTS, input: INPUT_DEFAULTS };

let rig: ContextRig;
let dir: string;
let ctx: Context;
beforeAll(async () => {
  rig = await contextRig();
  // A terminal stdin: the prompt is the words alone, with no wait for piped context.
  ctx = { ...rig.ctx, io: { ...rig.ctx.io, stdinIsTTY: true } };
  dir = await mkdtemp(join(tmpdir(), 'nsed-identity-'));
  const files: Record<string, string> = {
    'a.txt': 'some context',
    'tools.json': JSON.stringify([{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }]),
    'hello.md': 'Hello {{x}}',
    'vars1.json': '{"x":"one"}',
    'vars2.json': '{"x":"two"}',
  };
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(dir, name), text)));
});
afterAll(async () => {
  await rig.close();
  await rm(dir, { recursive: true, force: true });
});

/** The identity's hash of `nsed ask WORDS`, read by the real parser as the command reads it. */
async function hashOf(words: string[]): Promise<string> {
  const parsed = await parseWords(['ask', ...words], 100);
  if (parsed.selected === undefined) throw parsed.error ?? new Error(`not an ask: ${words.join(' ')}`);
  const opts = parseCommandLine(parsed.selected.def, parsed.selected.argv).options as AskOptions;
  const input = await prepareTurnInput(opts.prompt, opts.input, opts.turn, ctx);
  return requestHash(ctx, input);
}

const SCHEMA = '{"type":"object","properties":{"ok":{"type":"boolean"}}}';
const at = (name: string): string => join(dir, name);

/** Each request-shaping flag: the words without it (or with another value), and with it. */
const shaping = (): Record<string, [string[], string[]]> => ({
  policy: [['q'], ['-p', 'deep', 'q']],
  model: [['q'], ['-m', 'llama3.2', 'q']],
  system: [['q'], ['--system', 'be brief', 'q']],
  agents: [['q'], ['--agents', 'CortexA,CortexB', 'q']],
  rounds: [['q'], ['--rounds', '2', 'q']],
  tools: [['q'], ['--tools', at('tools.json'), 'q']],
  tool: [['q'], ['--tool', 'calc=./calc.js', 'q']],
  'ask-user': [['q'], ['--ask-user', 'q']],
  file: [['q'], ['-f', at('a.txt'), 'q']],
  schema: [['q'], ['--schema', SCHEMA, 'q']],
  'schema-name': [
    ['--schema', SCHEMA, 'q'],
    ['--schema', SCHEMA, '--schema-name', 'verdict', 'q'],
  ],
  template: [['q'], ['--template', at('hello.md'), '--var', 'x=q']],
  var: [
    ['--template', at('hello.md'), '--var', 'x=one'],
    ['--template', at('hello.md'), '--var', 'x=two'],
  ],
  vars: [
    ['--template', at('hello.md'), '--vars', at('vars1.json')],
    ['--template', at('hello.md'), '--vars', at('vars2.json')],
  ],
});

/** Words for flags outside the identity whose sample value would not parse alone. */
const OUTSIDE: Record<string, string[]> = {
  save: ['--no-save'],
  stream: ['--no-stream'],
  force: ['--idempotency-key', 'k', '--force'],
  'idempotency-key': ['--idempotency-key', 'k'],
  'schema-retries': ['--schema', SCHEMA, '--schema-retries', '3'],
  // The findings reports need findings to write: with --findings, they still leave the identity alone.
  sarif: ['--findings', '/findings', '--sarif', 'nsed.sarif'],
  codequality: ['--findings', '/findings', '--codequality', 'gl-code-quality.json'],
  rdjson: ['--findings', '/findings', '--rdjson', 'nsed.rdjsonl'],
};

describe('the request identity (one definition of "the same request")', () => {
  it('every flag marked request-shaping in the table changes it', async () => {
    const marked = (ask.flags ?? []).filter((f) => f.shapesRequest === true).map((f) => f.name);
    const SHAPING = shaping();
    expect(
      marked.filter((name) => SHAPING[name] === undefined),
      'marked flags this test has no case for',
    ).toEqual([]);
    for (const name of marked) {
      const [without, withFlag] = SHAPING[name] ?? [[], []];
      expect(await hashOf(withFlag), `--${name} must change the request identity`).not.toBe(await hashOf(without));
    }
  });

  it('no flag of ask outside it (gates, reports, output, --title, --no-save, ...) changes it', async () => {
    const base = await hashOf(['q']);
    for (const f of (ask.flags ?? []).filter((d) => d.shapesRequest !== true)) {
      const words =
        f.name in OUTSIDE
          ? (OUTSIDE[f.name] ?? [])
          : f.type === 'boolean'
            ? [`--${f.name}`]
            : [`--${f.name}`, f.sample ?? (f.type === 'number' ? '3' : 'some value')];
      const expected = f.name === 'schema-retries' ? await hashOf(['--schema', SCHEMA, 'q']) : base;
      expect(await hashOf([...words, 'q']), `--${f.name} is marked outside the request`).toBe(expected);
    }
  });

  it('a batch item and the same question asked with ask have the same identity', async () => {
    const [item] = resolveItems(
      parseItems('{"id":"a","prompt":"q","files":["' + at('a.txt') + '"]}\n', 'jsonl', 'i'),
      undefined,
    );
    if (item === undefined) throw new Error('no item');
    expect(await itemRequestHash(ctx, item, BATCH_BASE)).toBe(await hashOf(['-f', at('a.txt'), 'q']));
  });

  it("a batch item's hash changes when the item does, its file's content included, not when only its position does (reliability #161)", async () => {
    const hash = async (jsonl: string, at = 0): Promise<string | undefined> => {
      const item = resolveItems(parseItems(jsonl, 'jsonl', 'i'), undefined)[at];
      if (item === undefined) throw new Error('no item');
      return itemRequestHash(ctx, item, BATCH_BASE);
    };
    const file = join(dir, 'ctx.txt');
    await writeFile(file, 'first');
    const a = await hash(`{"id":"a","prompt":"x","files":["${file}"]}\n`);
    expect(await hash(`{"id":"z","prompt":"q"}\n{"id":"a","prompt":"x","files":["${file}"]}\n`, 1)).toBe(a);
    expect(await hash(`{"id":"a","prompt":"x!","files":["${file}"]}\n`)).not.toBe(a);
    expect(await hash(`{"id":"a","prompt":"x","policy":"deep","files":["${file}"]}\n`)).not.toBe(a);
    await writeFile(file, 'second');
    expect(await hash(`{"id":"a","prompt":"x","files":["${file}"]}\n`)).not.toBe(a);
  });
});
