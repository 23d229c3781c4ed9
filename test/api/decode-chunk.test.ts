import { describe, expect, it } from 'vitest';
import { createChunkDecoder } from '../../src/api/decode-chunk.js';
import type { StreamEvent } from '../../src/events/events.js';

function decodeAll(chunks: unknown[]): { events: StreamEvent[]; finish: string | undefined } {
  const d = createChunkDecoder(undefined);
  const events: StreamEvent[] = [];
  chunks.forEach((c, i) => d.decode(c, i + 1, events));
  return { events, finish: d.finishReason };
}

describe('chunk decoding', () => {
  it('gives every event decoded from one chunk the index of that chunk', () => {
    const { events } = decodeAll([
      { choices: [{ index: 0, delta: { nsed_session_id: 'j', reasoning_content: 'r', content: 'c' } }] },
    ]);
    expect(events).toEqual([
      { type: 'job', job_id: 'j', index: 1 },
      { type: 'reasoning', text: 'r', index: 1 },
      { type: 'text', text: 'c', index: 1 },
    ]);
  });

  it('says which chunks were text alone, and so could be read again off their bytes', () => {
    const d = createChunkDecoder(undefined);
    const out: StreamEvent[] = [];
    const alone = (c: unknown): boolean => d.decode(c, 1, out);
    expect(alone({ choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }] })).toBe(true);
    expect(alone({ choices: [{ index: 0, delta: { content: '' } }] })).toBe(false);
    expect(alone({ choices: [{ index: 0, delta: { content: 'x', reasoning_content: 'r' } }] })).toBe(false);
    expect(alone({ choices: [{ index: 0, delta: { content: 'x', tool_calls: [] } }] })).toBe(false);
    expect(
      alone({
        choices: [
          { index: 0, delta: { content: 'x' } },
          { index: 1, finish_reason: 'stop' },
        ],
      }),
    ).toBe(false);
    expect(alone({ choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] })).toBe(false);
  });

  it('takes a lone choice without an index as choice 0', () => {
    expect(decodeAll([{ choices: [{ delta: { content: 'x' } }] }]).events).toEqual([
      { type: 'text', text: 'x', index: 1 },
    ]);
  });

  it('ignores choices other than 0 even when they come first', () => {
    const { events, finish } = decodeAll([
      {
        choices: [
          { index: 1, delta: { content: 'no' }, finish_reason: 'length' },
          { index: 0, delta: { content: 'yes' } },
        ],
      },
    ]);
    expect(events).toEqual([{ type: 'text', text: 'yes', index: 1 }]);
    expect(finish).toBeUndefined();
  });

  it('remembers the last non-null finish_reason', () => {
    expect(
      decodeAll([
        { choices: [{ index: 0, finish_reason: 'length' }] },
        { choices: [{ index: 0, finish_reason: null }] },
      ]).finish,
    ).toBe('length');
  });

  it('emits tool calls only when finish_reason tool_calls arrives, and only with object arguments', () => {
    const frag = {
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'a', function: { name: 'f', arguments: '5' } },
              { index: 1, id: 'b', function: { name: 'g', arguments: '{"k":1}' } },
            ],
          },
        },
      ],
    };
    const first = decodeAll([frag]);
    expect(first.events).toEqual([]);
    const done = decodeAll([frag, { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }]);
    expect(done.events).toEqual([{ type: 'tool-call', id: 'b', name: 'g', arguments: '{"k":1}', index: 2 }]);
  });

  it('normalises a sloppy nsed_round instead of trusting it', () => {
    const { events } = decodeAll([
      {
        choices: [
          {
            index: 0,
            delta: {
              nsed_round: {
                round: '2',
                progress: Infinity,
                candidates: [null, { agent_id: 7, claims: [{ claim: 'c', verdict: 'evil' }, 'x'] }],
              },
            },
          },
        ],
      },
    ]);
    expect(events).toEqual([
      {
        type: 'round',
        round: 0,
        total_rounds: 0,
        progress: 0,
        scored: false,
        candidates: [
          {
            agent_id: '',
            score: 0,
            content_preview: '',
            thought_preview: '',
            claims: [{ claim: 'c', verdict: 'unknown' }],
          },
        ],
        index: 1,
      },
    ]);
  });

  it('throws a server error without a drop for an error object', () => {
    const d = createChunkDecoder('tok');
    expect(() => d.decode({ error: { message: 'failed: tok leaked' } }, 1, [])).toThrow(
      expect.objectContaining({
        code: 'server',
        drop: undefined,
        message: 'the orchestrator reported: failed: *** leaked',
      }) as Error,
    );
  });

  it('does not let a __proto__ key change anything', () => {
    const chunk = JSON.parse(
      '{"__proto__":{"choices":[{"index":0,"delta":{"content":"polluted"}}]},"choices":[{"index":0,"delta":{"__proto__":{"content":"x"}}}]}',
    ) as unknown;
    expect(decodeAll([chunk]).events).toEqual([]);
    expect(({} as Record<string, unknown>)['content']).toBeUndefined();
  });
});
