import { describe, expect, it } from 'vitest';
import { SessionFeed } from '../../src/mcp/feed.js';
import { feedState } from '../../src/mcp/turn-state.js';

const candidates = [{ agent_id: 'CortexA', score: 0.6, content_preview: '', thought_preview: '', claims: [] }];

describe("a tool's rounds", () => {
  it('carry the convergence the compat surface reports only in its reasoning milestone, as the verdict does (reliability #259)', () => {
    const feed = new SessionFeed('s1');
    feed.push({
      type: 'turn-start',
      session: 's1',
      turn: 't2',
      policy: 'fast',
      agents: null,
      path: 'compat',
      url: 'http://127.0.0.1:1',
    });
    feed.push({ type: 'job', job_id: 'job-1' });
    feed.push({ type: 'round', round: 1, total_rounds: 2, progress: 0.5, scored: true, candidates });
    // The milestone arrives in reasoning deltas, split anywhere.
    feed.push({ type: 'reasoning', text: 'Round 1 complete — conv' });
    feed.push({ type: 'reasoning', text: 'ergence: 57%\n' });
    feed.push({ type: 'round', round: 2, total_rounds: 2, progress: 1, scored: true, candidates });
    const rounds = feedState(feed, 0).rounds;
    expect(rounds.map((r) => [r.round, r.convergence])).toEqual([
      [1, 0.57],
      [2, null],
    ]);
    // A figure the native summary carries is the one kept.
    feed.push({ type: 'round', round: 3, total_rounds: 3, progress: 1, scored: true, candidates, convergence: 0.9 });
    feed.push({ type: 'reasoning', text: 'Round 3 complete — convergence: 90%\n' });
    expect(feedState(feed, 0).rounds.at(-1)?.convergence).toBe(0.9);
  });
});
