import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/run/context.js';
import { SessionFeed } from '../../src/mcp/feed.js';
import {
  HEARTBEAT_MS,
  PROGRESS_MAX_CHARS,
  progressAt,
  progressMessage,
  progressReporter,
  roundLine,
} from '../../src/mcp/progress.js';

/** A clock whose sleeps end only when the test ticks it: the heartbeat without waiting for real time. */
function manualClock(): Clock & { tick(): void; sleeping: () => number; slept: number[] } {
  const sleepers = new Set<() => void>();
  const slept: number[] = [];
  return {
    slept,
    now: () => new Date(0),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        slept.push(ms);
        const wake = (): void => {
          sleepers.delete(wake);
          resolve();
        };
        sleepers.add(wake);
        signal?.addEventListener('abort', () => {
          sleepers.delete(wake);
          reject(signal.reason);
        });
      }),
    tick: () => {
      for (const s of [...sleepers]) s();
    },
    sleeping: () => sleepers.size,
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('progress notifications while a tool call waits on a deliberation', () => {
  it('one per step, a heartbeat between steps at most every 10 s, rising progress, nothing after stop (reliability #212)', async () => {
    const clock = manualClock();
    const sent: Array<[number, number | undefined, string]> = [];
    const feed = new SessionFeed('s1');
    const stop = progressReporter(clock, async (p, t, m) => void sent.push([p, t, m]))(feed);
    feed.push({ type: 'job', job_id: 'job-1' });
    const round = { type: 'round', round: 1, total_rounds: 2, progress: 0.5 } as const;
    feed.push({ ...round, scored: false, candidates: [] });
    feed.push({ ...round, scored: false, candidates: [] });
    await settle();
    clock.tick();
    await settle();
    feed.push({
      ...round,
      scored: true,
      convergence: 0.8,
      candidates: [
        { agent_id: 'CortexA', score: 0.6, content_preview: '', thought_preview: '', claims: [] },
        { agent_id: 'CortexB', score: 0.9, content_preview: '', thought_preview: '', claims: [] },
      ],
    });
    await settle();
    expect(sent.map(([, , m]) => m)).toEqual([
      'deliberation starting',
      'deliberation job-1 started',
      'round 1/2: proposals in',
      'still: round 1/2: proposals in',
      'round 1/2 · convergence 0.80 · leader CortexB (0.90)',
    ]);
    // In rounds, rising each time: half a round once the proposals are in, a round once evaluated.
    const progress = sent.map(([p]) => p);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThan(progress[i - 1] ?? Infinity);
    expect(progress[0]).toBe(0);
    expect(progress[2]).toBeCloseTo(0.4);
    expect(progress[4]).toBeCloseTo(0.9);
    expect(sent.map(([, t]) => t)).toEqual([undefined, undefined, 2, 2, 2]);
    expect(HEARTBEAT_MS).toBeLessThanOrEqual(10_000);
    expect(new Set(clock.slept)).toEqual(new Set([HEARTBEAT_MS]));
    stop();
    await settle();
    clock.tick();
    feed.push({ type: 'text', text: 'late' });
    feed.push({ type: 'injection', message: 'm', round: 2, sequence: 1 });
    await settle();
    expect(sent).toHaveLength(5);
    expect(clock.sleeping()).toBe(0);
  });

  it('sends its notifications in order, and its stop resolves only once the last has gone, so a result never overtakes its progress', async () => {
    const clock = manualClock();
    const gone: string[] = [];
    const releases: Array<() => void> = [];
    const feed = new SessionFeed('s1');
    // Each send is held until the test releases it, as a slow host transport would hold it.
    const stop = progressReporter(
      clock,
      (_p, _t, m) => new Promise<void>((resolve) => releases.push(() => resolve(void gone.push(m)))),
    )(feed);
    feed.push({ type: 'job', job_id: 'job-1' });
    feed.push({ type: 'finalized', chosen_agent_id: 'CortexA', round: 1 });
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    for (let i = 0; i < 3; i++) {
      await settle();
      expect(stopped).toBe(false);
      releases[i]?.();
    }
    await stopping;
    expect(gone).toEqual([
      'deliberation starting',
      'deliberation job-1 started',
      'converged: CortexA chosen at round 1',
    ]);
  });

  it('a scored round fits one 200-character tool row: round, convergence, leader with its score, its wrong claims, stand-in votes', () => {
    const claim = (text: string, verdict: 'wrong' | 'verified') => ({ claim: text, verdict });
    const line = roundLine({
      type: 'round',
      round: 2,
      total_rounds: 3,
      progress: 0.66,
      scored: true,
      convergence: 0.781,
      candidates: [
        { agent_id: 'CortexA', score: 0.6, content_preview: '', thought_preview: '', claims: [claim('x', 'wrong')] },
        {
          agent_id: 'CortexB',
          score: 0.81,
          content_preview: '',
          thought_preview: '',
          claims: [claim('Redis is durable', 'wrong'), claim(' redis  is durable', 'wrong'), claim('ok', 'verified')],
        },
      ],
    });
    expect(line).toBe('round 2/3 · convergence 0.78 · leader CortexB (0.81) · 1 wrong claim');
    // A server's names are untrusted: a leader named at length still leaves one row.
    const long = roundLine({
      type: 'round',
      round: 12,
      total_rounds: 100,
      progress: 0.1,
      scored: true,
      candidates: [
        {
          agent_id: 'X'.repeat(500),
          score: 0.5,
          content_preview: '',
          thought_preview: '',
          claims: Array.from({ length: 40 }, (_, i) => claim(`c${i}`, 'wrong')),
          synthetic_evals: 7,
        },
      ],
    });
    expect(long.length).toBeLessThanOrEqual(PROGRESS_MAX_CHARS);
    expect(long).toMatch(/^round 12\/100 · leader X+… \(0\.50\) · 40 wrong claims · 7 stand-in votes$/);
  });

  it('progress rises with every notification within a step and never reaches the next step or passes the rounds planned', () => {
    const seen = Array.from({ length: 10_000 }, (_, k) => progressAt(3, k));
    for (let k = 1; k < seen.length; k++) expect(seen[k]).toBeGreaterThan(seen[k - 1] ?? Infinity);
    expect(seen.at(-1)).toBeLessThan(3);
    expect(progressAt(3.5, 0)).toBeGreaterThan(seen.at(-1) ?? Infinity);
  });

  it('says nothing for the answer text itself, and names the end', () => {
    expect(progressMessage({ type: 'text', text: 'partial answer' })).toBeUndefined();
    expect(progressMessage({ type: 'finalized', chosen_agent_id: 'CortexA', round: 2 })).toBe(
      'converged: CortexA chosen at round 2',
    );
  });
});
