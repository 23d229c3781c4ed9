import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChunkDecoder } from '../../src/api/decode-chunk.js';
import { templateAround, textIn } from '../../src/api/chunk-template.js';
import type { StreamEvent } from '../../src/events/events.js';
import { runPieces } from '../harness/scripted-server.js';

// A long answer's chunks differ only in their text; the processor reads that text off a
// template of a fully parsed chunk (src/api/chunk-template.ts). Every stream here is checked
// against the plain reading: each chunk through JSON.parse and the chunk decoder.

const enc = new TextEncoder();
const head =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":';
const tail = '},"finish_reason":null}]}';
/** A chunk written as a server writes it: `literal` is the raw JSON token of the text. */
const raw = (literal: string, h = head, t = tail): string => `${h}${literal}${t}`;
const plain = (text: string): string => raw(JSON.stringify(text));
const stop = '{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
const sse = (datas: string[]): Uint8Array => enc.encode(datas.map((d) => `data: ${d}\n\n`).join(''));

/** What the stream means when every chunk is parsed in full, as before templates. */
function reference(datas: string[]): { events: StreamEvent[]; error?: { message: string } } {
  const decoder = createChunkDecoder(undefined);
  const events: StreamEvent[] = [];
  for (const [i, d] of datas.entries()) {
    const index = i + 1;
    if (d === '[DONE]') {
      events.push({ type: 'end', finish_reason: decoder.finishReason ?? null, index });
      return { events };
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(d);
    } catch {
      return { events, error: { message: `malformed chunk at event ${index} of the stream` } };
    }
    decoder.decode(chunk, index, events);
    if (decoder.ended) {
      events.push({ type: 'end', finish_reason: decoder.finishReason ?? null, index });
      return { events };
    }
  }
  return { events };
}

function outcome(datas: string[]): { events: StreamEvent[]; error?: { code: string; drop?: string; message: string } } {
  const o = runPieces([sse(datas)]);
  return o.error === undefined
    ? { events: o.events }
    : { events: o.events, error: { code: o.error.code, drop: o.error.drop ?? '', message: o.error.message } };
}

function expectAsParsed(datas: string[]): StreamEvent[] {
  const want = reference(datas);
  const got = outcome(datas);
  expect(got.events).toEqual(want.events);
  if (want.error === undefined) expect(got.error).toBeUndefined();
  else expect(got.error).toEqual({ code: 'server', drop: 'malformed', message: want.error.message });
  return got.events;
}

const texts = (events: StreamEvent[]): string[] => events.flatMap((e) => (e.type === 'text' ? [e.text] : []));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('chunks alike but for their text', () => {
  it('are parsed in full once per shape, not once per chunk', () => {
    const datas = [...Array.from({ length: 200 }, (_, i) => plain(`piece ${i} `)), stop, '[DONE]'];
    const parse = vi.spyOn(JSON, 'parse');
    const events = expectAsParsed(datas);
    const during = parse.mock.calls.length;
    parse.mockClear();
    outcome(datas);
    // The first text chunk, its probe and the stop chunk; never one per text chunk.
    expect(parse.mock.calls.length).toBeLessThan(10);
    expect(during).toBeGreaterThan(200);
    expect(texts(events).join('')).toBe(Array.from({ length: 200 }, (_, i) => `piece ${i} `).join(''));
  });

  it('give the same events as a full parse when the text needs escapes', () => {
    expectAsParsed([
      plain('a'),
      plain('line\nbreak'),
      plain('quote " and back\\slash'),
      raw('"caf\\u00e9"'),
      raw('"ends with a backslash\\\\"'),
      plain('tab\there'),
      plain('b'),
      stop,
    ]);
  });

  it('give an empty text no event, as a full parse does', () => {
    const events = expectAsParsed([plain('a'), plain(''), plain('b'), stop]);
    expect(texts(events)).toEqual(['a', 'b']);
  });

  it('still fail on a raw control character or a bad escape in the text, at that event (reliability #17)', () => {
    expectAsParsed([plain('a'), plain('b'), raw('"bad\u0001"'), plain('c')]);
    expectAsParsed([plain('a'), plain('b'), raw('"bad \\x escape"'), plain('c')]);
    expectAsParsed([plain('a'), plain('b'), raw('"escaped end\\"'), plain('c')]);
  });

  it('are parsed in full when what stands in the text slot is more than one string', () => {
    // The same head and tail around `"a","reasoning_content":"r"`: the delta has another field.
    const events = expectAsParsed([plain('a'), plain('b'), raw('"x","reasoning_content":"r"'), plain('c'), stop]);
    expect(events.some((e) => e.type === 'reasoning')).toBe(true);
  });

  it('follow a change of shape: a new created, a finish reason, a tool-call fragment', () => {
    const other = head.replace('"created":7', '"created":8');
    const events = expectAsParsed([
      plain('a'),
      plain('b'),
      raw('"c"', other),
      raw('"d"', other),
      raw('"e"', head, '},"finish_reason":"length"}]}'),
      raw(
        '"f"',
        head.replace(
          '"content":',
          '"tool_calls":[{"index":0,"id":"t","function":{"name":"n","arguments":"{}"}}],"content":',
        ),
      ),
      plain('g'),
      raw('"h"', head, '},"finish_reason":"stop"}]}'),
      plain('never'),
    ]);
    expect(texts(events)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    expect(events.at(-1)).toEqual({ type: 'end', finish_reason: 'stop', index: 8 });
  });

  it('never take a text that also stands earlier in the chunk for the slot of another field', () => {
    // The model is named like the text: the last occurrence is the content, the probe says so.
    const h = head.replace('"model":"m"', '"model":"same"');
    const events = expectAsParsed([raw('"same"', h), raw('"next"', h), raw('"same"', h), stop]);
    expect(texts(events)).toEqual(['same', 'next', 'same']);
  });

  it('are not taken for a template when the text slot is a key, or inside another string', () => {
    // `{"delta":{"content":"v","k":1}}` written with the text as a key's name.
    const keyed = (k: string): string =>
      `{"choices":[{"index":0,"delta":{"content":"k","k":1,${JSON.stringify(k)}:2}}]}`;
    expectAsParsed([keyed('k'), keyed('z'), keyed('content'), stop]);
    const nested = (v: string): string => `{"choices":[{"index":0,"delta":{"content":"a\\"${v}\\"b"}}]}`;
    expectAsParsed([nested('q'), nested('r'), stop]);
  });

  it('stop learning templates after a run of chunks that teach none', () => {
    // Every chunk another id: each is parsed in full and gives what a full parse gives.
    const datas = Array.from({ length: 60 }, (_, i) =>
      raw(JSON.stringify(`t${i}`), head.replace('chatcmpl-1', `id-${i}`)),
    );
    const parse = vi.spyOn(JSON, 'parse');
    expectAsParsed([...datas, stop]);
    parse.mockClear();
    outcome([...datas, stop]);
    // One parse per chunk, plus at most the probes of the first few.
    expect(parse.mock.calls.length).toBeLessThanOrEqual(61 + 16);
  });
  it('are still learnt after a long run of texts that need escapes', () => {
    const escaped = Array.from({ length: 40 }, (_, i) => plain(`line ${i}\n`));
    const datas = [...escaped, ...Array.from({ length: 100 }, (_, i) => plain(`w${i} `)), stop];
    expectAsParsed(datas);
    const parse = vi.spyOn(JSON, 'parse');
    outcome(datas);
    expect(parse.mock.calls.length).toBeLessThan(40 + 10);
  });
});

describe('a template', () => {
  it('is found around the last place the text stands as written, and reads other texts back', () => {
    const t = templateAround(plain('xy'), 'xy');
    expect(t).toEqual({ head, tail });
    if (t === undefined) return;
    expect(textIn(t, plain('hello'))).toBe('hello');
    expect(textIn(t, raw('"a\\nb"'))).toBe('a\nb');
    expect(textIn(t, raw('"a"', head, `${tail} `))).toBeUndefined();
    expect(textIn(t, raw('"a\\"'))).toBeUndefined();
  });

  it('is not made from a text that needs escapes', () => {
    expect(templateAround(plain('a"b'), 'a"b')).toBeUndefined();
    expect(templateAround(plain('a\nb'), 'a\nb')).toBeUndefined();
  });
});
