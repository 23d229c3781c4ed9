import type { StreamEvent } from '../../src/events/events.js';

/**
 * SSE fixtures for C1/C2 (docs/reliability.md #1-#22), written in our own words after the WHATWG
 * rules, the WPT eventsource format tests and eventsource-parser's cases. Each is a byte
 * sequence plus the exact events (and the error, if any) it must produce however it is split.
 */
export interface Fixture {
  name: string;
  bytes: Uint8Array;
  events: StreamEvent[];
  error?: { code: string; drop?: string };
}

const enc = new TextEncoder();
const utf8 = (s: string): Uint8Array => enc.encode(s);
const concat = (...parts: Array<string | Uint8Array>): Uint8Array => {
  const bufs = parts.map((p) => (typeof p === 'string' ? utf8(p) : p));
  const out = new Uint8Array(bufs.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bufs) {
    out.set(b, at);
    at += b.length;
  }
  return out;
};

export const chunk = (delta: object, finish: string | null = null): string =>
  JSON.stringify({
    id: 'chatcmpl-abc',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
const data = (json: string, nl = '\n'): string => `data: ${json}${nl}${nl}`;

const ROLE = chunk({ role: 'assistant' });
const THINK = chunk({ reasoning_content: 'Round 1 complete — convergence: 45%' });
const ANSWER = chunk({ content: 'The answer is 4.' });
const STOP = chunk({}, 'stop');

/** The seed's documented stream (docs/protocol.md §4), with the given line ending. */
export const seedStream = (nl: string): string =>
  [ROLE, THINK, ANSWER, STOP].map((j) => data(j, nl)).join('') + data('[DONE]', nl);

const SEED_EVENTS: StreamEvent[] = [
  { type: 'reasoning', text: 'Round 1 complete — convergence: 45%', index: 2 },
  { type: 'text', text: 'The answer is 4.', index: 3 },
  // `stop` on the only choice ends the turn at its own chunk; [DONE] adds nothing (docs/reliability.md #23).
  { type: 'end', finish_reason: 'stop', index: 4 },
];

const text = (t: string, index: number): StreamEvent => ({ type: 'text', text: t, index });
const end = (index: number, finish_reason: string | null = 'stop'): StreamEvent => ({
  type: 'end',
  finish_reason,
  index,
});
const EOF = { code: 'network', drop: 'eof' };

const round = {
  round: 2,
  total_rounds: 5,
  progress: 0.4,
  scored: true,
  candidates: [
    {
      agent_id: 'CortexA',
      score: 0.47,
      content_preview: 'full',
      thought_preview: 'why',
      claims: [{ claim: 'O(n log n)', verdict: 'verified', reason: 'ok' }],
    },
  ],
};

export const fixtures: Fixture[] = [
  { name: 'the seed stream with LF line ends', bytes: utf8(seedStream('\n')), events: SEED_EVENTS },
  {
    name: 'the seed stream with CRLF line ends (reliability #1)',
    bytes: utf8(seedStream('\r\n')),
    events: SEED_EVENTS,
  },
  {
    name: 'the seed stream with lone CR line ends (reliability #1)',
    bytes: utf8(seedStream('\r')),
    events: SEED_EVENTS,
  },
  {
    name: 'LF, CRLF and CR mixed in one stream (reliability #1)',
    bytes: utf8(`data: ${ROLE}\r\n\r\ndata: ${THINK}\r\rdata: ${ANSWER}\n\r\ndata: ${STOP}\r\n\ndata: [DONE]\r\r`),
    events: SEED_EVENTS,
  },
  {
    name: 'a byte-order mark at the start is stripped (reliability #5)',
    bytes: concat(new Uint8Array([0xef, 0xbb, 0xbf]), seedStream('\n')),
    events: SEED_EVENTS,
  },
  {
    name: 'a second byte-order mark makes its line an unknown field (reliability #5)',
    bytes: concat(
      new Uint8Array([0xef, 0xbb, 0xbf]),
      data(ANSWER),
      new Uint8Array([0xef, 0xbb, 0xbf]),
      data(chunk({ content: 'hidden' })),
      data('[DONE]'),
    ),
    events: [text('The answer is 4.', 1), end(2, null)],
  },
  {
    name: 'comments: bare colon, NUL, 2 KiB, between data lines, CR-terminated (reliability #6)',
    bytes: utf8(
      `:\n: keep-alive\n\n:\u0000nul\n:${'x'.repeat(2048)}\n\ndata: {"choices":[{"index":0,\n: inside\ndata: "delta":{"content":"a"}}]}\n\n: cr only\r${data('[DONE]')}`,
    ),
    events: [text('a', 1), end(2, null)],
  },
  {
    name: 'odd field syntax: no space, two spaces, bare data, space before colon (reliability #7)',
    bytes: utf8(
      `data:${chunk({ content: 'x' })}\n\ndata:  ${chunk({ content: 'y' })}\n\ndata: ${chunk({ content: 'z' })}\ndata\n\ndata : ${chunk({ content: 'no' })}\n\ndata:[DONE]\n\n`,
    ),
    events: [text('x', 1), text('y', 2), text('z', 3), end(4, null)],
  },
  {
    name: 'one JSON chunk spread over several data lines (reliability #8)',
    bytes: utf8(
      `data: {"id":"c","choices":[\ndata: {"index":0,"delta":\ndata: {"content":"joined"},"finish_reason":null}]}\n\n${data('[DONE]')}`,
    ),
    events: [text('joined', 1), end(2, null)],
  },
  {
    name: 'unknown fields, a bare field name, an empty event type, id and retry lines (reliability #9, #11, #12)',
    bytes: utf8(
      `foo: bar\nbare\nevent:\nid: 7\nretry: 1000x\nretry: 10\ndata: ${chunk({ content: 'ok' })}\n\nid\nid: a\u0000b\n\n${data('[DONE]')}`,
    ),
    events: [text('ok', 1), end(2, null)],
  },
  {
    name: 'a last event without its blank line at EOF is not dispatched (reliability #10)',
    bytes: utf8(`${data(ANSWER)}data: [DONE]\n`),
    events: [text('The answer is 4.', 1)],
    error: EOF,
  },
  {
    name: 'a last event cut inside its data line at EOF (reliability #10)',
    bytes: utf8(`${data(ANSWER)}data: [DO`),
    events: [text('The answer is 4.', 1)],
    error: EOF,
  },
  {
    name: 'multi-byte UTF-8: accents, CJK, emoji and a 4-byte crab (reliability #3)',
    bytes: utf8(`${data(chunk({ content: 'é漢字 🦀' }))}${data(chunk({ reasoning_content: '—…✓' }))}${data('[DONE]')}`),
    events: [text('é漢字 🦀', 1), { type: 'reasoning', text: '—…✓', index: 2 }, end(3, null)],
  },
  {
    name: 'invalid UTF-8 bytes become U+FFFD and nothing is lost (reliability #4)',
    bytes: concat(
      'data: {"choices":[{"index":0,"delta":{"content":"a',
      new Uint8Array([0xff, 0xfe, 0xc3]),
      'b"}}]}\n\n',
      data('[DONE]'),
    ),
    events: [text('a\ufffd\ufffd\ufffdb', 1), end(2, null)],
  },
  {
    name: '[DONE] without a space after the colon ends the stream (reliability #18)',
    bytes: utf8(`${data(ANSWER)}data:[DONE]\n\n`),
    events: [text('The answer is 4.', 1), end(2, null)],
  },
  {
    name: 'anything after [DONE] is ignored (reliability #18)',
    bytes: utf8(`${data(ANSWER)}${data('[DONE]')}${data(chunk({ content: 'late' }))}data: {unparsable\n\n`),
    events: [text('The answer is 4.', 1), end(2, null)],
  },
  {
    name: '[DONE] with a suffix is not a terminal signal (reliability #18)',
    bytes: utf8(`${data(ANSWER)}data: [DONE] x\n\n`),
    events: [text('The answer is 4.', 1)],
    error: { code: 'server', drop: 'malformed' },
  },
  {
    name: '[DONE] followed by a second data line is not a terminal signal (reliability #18)',
    bytes: utf8(`data: [DONE]\ndata: more\n\n`),
    events: [],
    error: { code: 'server', drop: 'malformed' },
  },
  {
    name: 'degenerate chunks are tolerated (reliability #20)',
    bytes: utf8(
      [
        '{"choices":[]}',
        '{"choices":[{"index":0}]}',
        '{"choices":[{"index":0,"delta":{}}]}',
        ROLE,
        '{"choices":[{"index":0,"delta":{"content":null}}]}',
        '{"choices":[{"index":0,"delta":{"content":""}}],"usage":{"total_tokens":3}}',
        '{"choices":[{"index":0,"finish_reason":null,"content_filter_results":{}}]}',
        '{"id":"x"}',
        'null',
        '42',
        '{"choices":"nope"}',
        '{"choices":[null,7,"s"]}',
        chunk({ content: 'kept' }),
      ]
        .map((j) => data(j))
        .join('') + data('[DONE]'),
    ),
    events: [text('kept', 13), end(14, null)],
  },
  {
    name: 'hostile choice indices never reach the answer (reliability #21)',
    bytes: utf8(
      data(
        JSON.stringify({
          choices: [
            { index: 1, delta: { content: 'one' } },
            { index: -1, delta: { content: 'neg' } },
            { index: 0.5, delta: { content: 'frac' } },
            { index: 2 ** 53, delta: { content: 'huge' } },
            { index: '0', delta: { content: 'str' } },
            { index: 0, delta: { content: 'zero' } },
          ],
        }),
      ) +
        data('{"choices":[{"index":"__proto__","delta":{"content":"proto"}}],"__proto__":{"polluted":true}}') +
        data(
          JSON.stringify({
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [
                    { index: -1, id: 'a', function: { name: 'n', arguments: '{}' } },
                    { index: 2 ** 53, id: 'b', function: { name: 'n', arguments: '{}' } },
                    { index: 1.5, id: 'c', function: { name: 'n', arguments: '{}' } },
                    { index: '__proto__', id: 'd', function: { name: 'n', arguments: '{}' } },
                  ],
                },
                finish_reason: 'tool_calls',
              },
            ],
          }),
        ) +
        data('[DONE]'),
    ),
    // Choice 1 never finished, so the turn ends at [DONE], on choice 0's reason.
    events: [text('zero', 1), end(4, 'tool_calls')],
  },
  {
    name: 'tool-call fragments are assembled by index, interleaved, id only first (reliability #22)',
    bytes: utf8(
      [
        chunk({
          tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'search', arguments: '' } }],
        }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '{"ex' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"q":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'pr":"2+2"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '"rust"}' } }] }, 'tool_calls'),
      ]
        .map((j) => data(j))
        .join('') + data('[DONE]'),
    ),
    events: [
      { type: 'tool-call', id: 'call_a', name: 'calculator', arguments: '{"expr":"2+2"}', index: 5 },
      { type: 'tool-call', id: 'call_b', name: 'search', arguments: '{"q":"rust"}', index: 5 },
      end(5, 'tool_calls'),
    ],
  },
  {
    name: 'incomplete tool calls (no name, no id, invalid JSON) are never emitted (reliability #22)',
    bytes: utf8(
      data(
        chunk(
          {
            tool_calls: [
              { index: 0, id: 'x', function: { arguments: '{}' } },
              { index: 1, function: { name: 'n', arguments: '{}' } },
              { index: 2, id: 'z', function: { name: 'n', arguments: '{"a":' } },
              { index: 3, id: 'ok', function: { name: 'calc', arguments: '{}' } },
            ],
          },
          'tool_calls',
        ),
      ) + data('[DONE]'),
    ),
    events: [{ type: 'tool-call', id: 'ok', name: 'calc', arguments: '{}', index: 1 }, end(1, 'tool_calls')],
  },
  {
    name: 'tool-call arguments cut off at EOF produce no call (reliability #22, #26)',
    bytes: utf8(
      data(chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'calc', arguments: '{"expr":' } }] })),
    ),
    events: [],
    error: EOF,
  },
  {
    name: 'NSED delta fields: session id, round, injection, finalized (protocol §4.3)',
    bytes: utf8(
      [
        chunk({ role: 'assistant', nsed_session_id: 'oc-ses_1-1700000000000' }),
        chunk({ nsed_round: round }),
        chunk({ nsed_injected: { message: 'Focus on memory safety', round: 2, sequence: 1 } }),
        chunk({ nsed_finalized: { chosen_agent_id: 'CortexA', round: 3 } }),
        chunk({ content: 'done' }, 'length'),
      ]
        .map((j) => data(j))
        .join('') + data('[DONE]'),
    ),
    events: [
      { type: 'job', job_id: 'oc-ses_1-1700000000000', index: 1 },
      {
        type: 'round',
        ...round,
        candidates: round.candidates.map((c) => ({
          ...c,
          claims: c.claims.map((x) => ({ ...x, verdict: 'verified' as const })),
        })),
        index: 2,
      },
      { type: 'injection', message: 'Focus on memory safety', round: 2, sequence: 1, index: 3 },
      { type: 'finalized', chosen_agent_id: 'CortexA', round: 3, index: 4 },
      text('done', 5),
      end(6, 'length'),
    ],
  },
  {
    name: 'an error chunk after text stops the stream without a drop (reliability #19)',
    bytes: utf8(
      `${data(ANSWER)}${data('{"error":{"message":"deliberation failed: \\u001b[31mboom","type":"server_error"}}')}${data('[DONE]')}`,
    ),
    events: [text('The answer is 4.', 1)],
    error: { code: 'server' },
  },
  {
    name: 'a named error event stops the stream (reliability #19)',
    bytes: utf8(`event: error\ndata: {"message":"quota"}\n\n${data('[DONE]')}`),
    events: [],
    error: { code: 'server' },
  },
  {
    name: 'malformed JSON is a malformed drop (reliability #17)',
    bytes: utf8(`${data(ANSWER)}data: {unparsable\n\n${data('[DONE]')}`),
    events: [text('The answer is 4.', 1)],
    error: { code: 'server', drop: 'malformed' },
  },
  {
    name: 'a raw NUL inside a JSON string is malformed (reliability #13)',
    bytes: utf8(`data: {"choices":[{"index":0,"delta":{"content":"a\u0000b"}}]}\n\n${data('[DONE]')}`),
    events: [],
    error: { code: 'server', drop: 'malformed' },
  },
  {
    name: '`stop` without [DONE] ends the turn (reliability #23)',
    bytes: utf8(data(ANSWER) + data(STOP)),
    events: [text('The answer is 4.', 1), end(2)],
  },
  {
    name: 'an undocumented finish_reason without [DONE] is truncated (reliability #23, #26)',
    bytes: utf8(data(ANSWER) + data(chunk({}, 'cancelled'))),
    events: [text('The answer is 4.', 1)],
    error: EOF,
  },
  {
    name: '`stop` on one choice of two does not end the turn before [DONE] (reliability #23)',
    bytes: utf8(
      data(
        JSON.stringify({
          choices: [
            { index: 0, delta: { content: 'a' }, finish_reason: 'stop' },
            { index: 1, delta: {}, finish_reason: null },
          ],
        }),
      ) + data('[DONE]'),
    ),
    events: [text('a', 1), end(2)],
  },
  {
    name: '[DONE] without any finish_reason ends with none, for /result to settle (reliability #23)',
    bytes: utf8(data(ANSWER) + data('[DONE]')),
    events: [text('The answer is 4.', 1), end(2, null)],
  },
  { name: 'an empty body is truncated (reliability #26, #32)', bytes: new Uint8Array(0), events: [], error: EOF },
  {
    // Read off the first chunk's template (src/api/chunk-template.ts), escapes and a new shape included.
    name: 'text chunks alike but for their text, with escapes, an empty text and a new shape',
    bytes: utf8(
      [
        chunk({ content: 'a' }),
        chunk({ content: 'b\n"c"' }),
        chunk({ content: '' }),
        chunk({ content: 'é' }),
        chunk({ content: 'd' }, 'length'),
        chunk({ content: 'e' }),
        chunk({ content: 'f' }, 'stop'),
      ]
        .map((j) => data(j))
        .join(''),
    ),
    events: [text('a', 1), text('b\n"c"', 2), text('é', 4), text('d', 5), text('e', 6), text('f', 7), end(7)],
  },
  {
    name: 'a malformed chunk among text chunks alike fails at its own event (reliability #17)',
    bytes: utf8(
      [chunk({ content: 'a' }), chunk({ content: 'b' }), chunk({ content: 'c' }).replace('"c"', '"c\\q"')]
        .map((j) => data(j))
        .join(''),
    ),
    events: [text('a', 1), text('b', 2)],
    error: { code: 'server', drop: 'malformed' },
  },
];
