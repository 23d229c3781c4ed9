import { describe, expect, it } from 'vitest';
import type { NsedEvent, StreamEvent } from '../../src/events/events.js';
import { applyEvent, divergedFrom, emptyTranscript, type Transcript } from '../../src/events/transcript.js';

const fold = (events: Array<NsedEvent | StreamEvent>): Transcript => events.reduce(applyEvent, emptyTranscript());

const round = (n: number, scored: boolean): NsedEvent => ({
  type: 'round',
  round: n,
  total_rounds: 3,
  progress: n / 3,
  scored,
  candidates: [],
});

describe('the transcript reducer', () => {
  it('holds the concatenated text, and every reasoning milestone on a line of its own, over a long event list', () => {
    const events: NsedEvent[] = [];
    let text = '';
    const milestones: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const piece = `tok${i}${i % 17 === 0 ? '\n' : ' '}`;
      events.push({ type: 'text', text: piece });
      text += piece;
      if (i % 100 === 0) {
        events.push({ type: 'reasoning', text: `r${i};` });
        milestones.push(`r${i};`);
      }
    }
    const t = fold(events);
    expect(t.content).toBe(text);
    expect(t.reasoning).toBe(milestones.join('\n'));
  });

  it('keeps reasoning milestones apart, never run together', () => {
    const t = fold([
      { type: 'reasoning', text: 'Round 1 — evaluations from CortexA, CortexB, CortexC' },
      { type: 'reasoning', text: 'Round 1 complete — convergence: 86%' },
      { type: 'reasoning', text: 'already ended\n' },
      { type: 'reasoning', text: 'Consensus' },
    ]);
    expect(t.reasoning.split('\n')).toEqual([
      'Round 1 — evaluations from CortexA, CortexB, CortexC',
      'Round 1 complete — convergence: 86%',
      'already ended',
      'Consensus',
    ]);
  });

  it('keeps every round event in order, scored and unscored', () => {
    const t = fold([round(1, false), round(1, true), round(2, false), round(2, true)]);
    expect(t.rounds.map((r) => [r.round, r.scored])).toEqual([
      [1, false],
      [1, true],
      [2, false],
      [2, true],
    ]);
    expect(t.rounds[0]).toEqual({ round: 1, total_rounds: 3, progress: 1 / 3, scored: false, candidates: [] });
  });

  it('keeps each injection once, by sequence, when a replay delivers it again', () => {
    const inj = (sequence: number, message: string): NsedEvent => ({ type: 'injection', message, round: 1, sequence });
    const t = fold([inj(1, 'a'), inj(2, 'b'), inj(1, 'a'), inj(2, 'b'), inj(3, 'c')]);
    expect(t.injections).toEqual([
      { message: 'a', round: 1, sequence: 1 },
      { message: 'b', round: 1, sequence: 2 },
      { message: 'c', round: 1, sequence: 3 },
    ]);
  });

  it('records the job, tool calls, the finalized agent and the finish reason', () => {
    const t = fold([
      { type: 'job', job_id: 'job-1', index: 1 },
      { type: 'tool-call', id: 'c1', name: 'search', arguments: '{}', index: 2 },
      { type: 'finalized', chosen_agent_id: 'CortexA', round: 2, index: 3 },
      { type: 'end', finish_reason: 'tool_calls', index: 4 },
    ]);
    expect(t).toMatchObject({
      jobId: 'job-1',
      toolCalls: [{ id: 'c1', name: 'search', arguments: '{}' }],
      finalized: { chosen_agent_id: 'CortexA', round: 2 },
      finishReason: 'tool_calls',
    });
  });

  it('takes the finish reason and a missing job id from the finish event', () => {
    const t = fold([
      {
        type: 'finish',
        finish_reason: 'stop',
        content: '',
        session: 's',
        turn: 't',
        job_id: 'job-2',
        verdict: null,
        gate: null,
      },
    ]);
    expect(t).toMatchObject({ jobId: 'job-2', finishReason: 'stop' });
  });

  it('returns the same transcript for events that change nothing', () => {
    const t = fold([{ type: 'text', text: 'x' }]);
    const unchanged: NsedEvent[] = [
      { type: 'turn-start', session: 's', turn: 't', policy: 'p', agents: null, path: 'compat', url: 'u' },
      { type: 'reconnect', attempt: 1, reason: 'eof' },
      { type: 'error', code: 'network', exit_code: 6, message: 'reset', verdict: null, gate: null, status: null },
      { type: 'text', text: '' },
    ];
    for (const e of unchanged) expect(applyEvent(t, e)).toBe(t);
  });

  it('is pure: the transcript it is given stays exactly as it was', () => {
    const before = fold([
      { type: 'text', text: 'a' },
      round(1, true),
      { type: 'injection', message: 'm', round: 1, sequence: 1 },
    ]);
    const snapshot = structuredClone(before);
    const events: NsedEvent[] = [
      { type: 'text', text: 'b' },
      { type: 'reasoning', text: 'r' },
      round(2, true),
      { type: 'injection', message: 'n', round: 2, sequence: 2 },
      { type: 'tool-call', id: 'c', name: 'n', arguments: '' },
      { type: 'finalized', chosen_agent_id: 'A', round: 2 },
      { type: 'job', job_id: 'j' },
      {
        type: 'finish',
        finish_reason: 'stop',
        content: 'ab',
        session: 's',
        turn: 't',
        job_id: 'j',
        verdict: null,
        gate: null,
      },
    ];
    for (const e of events) {
      const after = applyEvent(before, e);
      expect(after).not.toBe(before);
      expect(before).toEqual(snapshot);
    }
  });

  it('does per-event work independent of the answer length over 200k text events: collections are shared, never copied', () => {
    let t = fold([
      round(1, true),
      { type: 'injection', message: 'm', round: 1, sequence: 1 },
      { type: 'tool-call', id: 'c', name: 'n', arguments: '' },
    ]);
    const { rounds, injections, toolCalls } = t;
    let expectedLength = 0;
    for (let i = 0; i < 200_000; i++) {
      const next = applyEvent(t, { type: 'text', text: 'token ' });
      // Only the new piece is added: the previous transcript keeps its own content.
      if (i % 50_000 === 0) expect(t.content.length).toBe(expectedLength);
      expectedLength += 6;
      t = next;
    }
    expect(t.rounds).toBe(rounds);
    expect(t.injections).toBe(injections);
    expect(t.toolCalls).toBe(toolCalls);
    expect(t.content.length).toBe(1_200_000);
    expect(t.content).toBe('token '.repeat(200_000));
  });

  it('keeps the answer in flat blocks and the text since: every transcript reads its own answer, whatever was folded from it later', () => {
    const pieces = Array.from({ length: 20_000 }, (_, i) => (i % 97 === 0 ? `é${i}\n` : 'x'));
    const seen: Array<[Transcript, string]> = [];
    let t = emptyTranscript();
    let text = '';
    for (const [i, piece] of pieces.entries()) {
      t = applyEvent(t, { type: 'text', text: piece });
      text += piece;
      if (i % 1_999 === 0) seen.push([t, text]);
    }
    expect(t.content).toBe(text);
    expect(t.contentBlocks + t.contentTail).toBe(text);
    // The answer is long enough to have been made into blocks, and the tail stays short.
    expect(t.contentBlocks.length).toBeGreaterThan(0);
    expect(t.contentTail.length).toBeLessThan(4096);
    for (const [earlier, itsText] of seen) expect(earlier.content).toBe(itsText);
    // Two transcripts folded from the same one go their own ways.
    const a = applyEvent(seen[3]![0], { type: 'text', text: 'A' });
    const b = applyEvent(seen[3]![0], { type: 'text', text: 'B' });
    expect([a.content, b.content]).toEqual([`${seen[3]![1]}A`, `${seen[3]![1]}B`]);
    // The orchestrator's recorded answer replaces the spliced one, and text appends to it.
    const d = applyEvent(divergedFrom(t, 'recorded'), { type: 'text', text: '!' });
    expect(d.content).toBe('recorded!');
  });
});
