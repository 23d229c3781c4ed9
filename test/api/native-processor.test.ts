import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/events/events.js';
import { createNativeProcessor } from '../../src/api/native-processor.js';
import { NsedError } from '../../src/errors.js';

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const STREAM = [
  frame('connected', 'ok'),
  frame('round_start', { round: 1, total_rounds: 2, is_resuming: false }),
  frame('agent_working', { round: 1, agent_id: 'A', action: 'propose' }),
  frame('proposal_submitted', { round: 1, agent_id: 'A', content: 'use a queue', thought_process: 'simple' }),
  frame('proposal_submitted', { round: 1, agent_id: 'B', content: 'use a log', thought_process: 'durable' }),
  ': a comment\n\n',
  frame('keepalive', {}),
  frame('budget_update', { anything: true }),
  frame('round_summary', {
    round: 1,
    convergence_score: 0.45,
    proposal_scores: [
      { agent_id: 'B', aggregated_score: 0.7 },
      { agent_id: 'A', aggregated_score: 0.2 },
    ],
    decisiveness: 0.5,
  }),
  frame('user_injection', { message: 'focus on safety', injected_at_round: 2, sequence: 1 }),
  frame('job_complete', {
    status: 'Success',
    job_id: 'j1',
    rounds_completed: 2,
    best_proposal_content: '## Use a log',
    best_proposal_score: 0.7,
    best_proposal_author: 'B',
  }),
].join('');

function feed(text: string, at: number): StreamEvent[] {
  const p = createNativeProcessor();
  const out: StreamEvent[] = [];
  const bytes = new TextEncoder().encode(text);
  p.push(bytes.slice(0, at), out);
  p.push(bytes.slice(at), out);
  p.end(out);
  return out;
}

describe('the native job stream as events (GET /job/{id}/stream)', () => {
  it('gives the same events at every split of the bytes', () => {
    const whole = feed(STREAM, 0);
    expect(whole.map((e) => e.type)).toEqual([
      'reasoning',
      'round',
      'round',
      'round',
      'reasoning',
      'injection',
      'chosen',
      'text',
      'end',
    ]);
    const scored = whole[3];
    // The summary's convergence is carried as data for the verdict, not only as the milestone text.
    expect(scored).toMatchObject({ type: 'round', round: 1, total_rounds: 2, scored: true, convergence: 0.45 });
    expect(
      scored?.type === 'round' ? scored.candidates.map((c) => [c.agent_id, c.score, c.content_preview]) : [],
    ).toEqual([
      ['B', 0.7, 'use a log'],
      ['A', 0.2, 'use a queue'],
    ]);
    expect(whole[4]).toMatchObject({ type: 'reasoning', text: 'Round 1 complete — convergence: 45%' });
    expect(whole[5]).toMatchObject({ type: 'injection', message: 'focus on safety', round: 2, sequence: 1 });
    // job_complete names the chosen proposal; total_rounds was not sent, so it stays null (never 0).
    expect(whole[6]).toEqual({
      type: 'chosen',
      agent_id: 'B',
      score: 0.7,
      rounds_completed: 2,
      total_rounds: null,
      index: expect.any(Number),
    });
    expect(whole.at(-2)).toMatchObject({ type: 'text', text: '## Use a log' });
    expect(whole.at(-1)).toMatchObject({ type: 'end', finish_reason: 'stop' });
    const strip = (es: StreamEvent[]) => es.map(({ index: _i, ...e }) => e);
    for (let at = 1; at < STREAM.length; at += 7) expect(strip(feed(STREAM, at))).toEqual(strip(whole));
  });

  it('ends a cancelled job as cancelled and throws a failed one as a server error', () => {
    expect(feed(frame('job_complete', { status: 'Failed: cancelled', job_id: 'j' }), 0)).toEqual([
      { type: 'end', finish_reason: 'cancelled', index: 1 },
    ]);
    expect(() => feed(frame('job_complete', { status: 'Failed: quorum lost', job_id: 'j' }), 0)).toThrow(
      /deliberation failed: quorum lost/,
    );
  });

  it('a body that ends without job_complete is a dropped stream, not a failed job', () => {
    let err: unknown;
    try {
      feed(frame('connected', 'ok') + frame('keepalive', {}), 3);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NsedError);
    expect((err as NsedError).drop).toBe('eof');
  });
  describe('tool-call events, decoded as on the compat stream', () => {
    const complete = frame('job_complete', { status: 'Success', job_id: 'j1', best_proposal_content: 'done' });
    const pending = {
      call_id: 'call_1',
      agent_id: 'A',
      tool_name: 'user_calculator',
      arguments: { expr: '2+2' },
      round: 1,
      phase: 'Proposing',
    };
    const tools = (text: string): StreamEvent[] =>
      feed(text, Math.floor(text.length / 2)).filter((e) => e.type === 'tool-call' || e.type === 'tool-result');

    it('tool_call_pending is a live tool call with its arguments as JSON text', () => {
      expect(tools(frame('tool_call_pending', pending) + complete)).toEqual([
        { type: 'tool-call', id: 'call_1', name: 'calculator', arguments: '{"expr":"2+2"}', index: 1, live: true },
      ]);
    });

    it('tool_call_responded is an answered result (the native payload carries no result text)', () => {
      const responded = { call_id: 'call_1', agent_id: 'A', tool_name: 'user_calculator' };
      expect(tools(frame('tool_call_responded', responded) + complete)).toEqual([
        expect.objectContaining({ type: 'tool-result', id: 'call_1', status: 'answered', content: '', index: 1 }),
      ]);
    });

    it('tool_call_expired is an expired result, and a payload without a call id is dropped', () => {
      const text = frame('tool_call_expired', {}) + frame('tool_call_expired', { call_id: 'call_1' }) + complete;
      expect(tools(text)).toEqual([
        expect.objectContaining({ type: 'tool-result', id: 'call_1', status: 'expired', content: '', index: 2 }),
      ]);
    });
  });
});
