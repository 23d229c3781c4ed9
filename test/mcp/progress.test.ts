import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/context.js';
import { SessionFeed } from '../../src/mcp/feed.js';
import { HEARTBEAT_MS, progressMessage, progressReporter } from '../../src/mcp/progress.js';

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
    const sent: Array<[number, string]> = [];
    const feed = new SessionFeed('s1');
    const stop = progressReporter(clock, async (p, m) => void sent.push([p, m]))(feed);
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
    expect(sent.map(([, m]) => m)).toEqual([
      'deliberation starting',
      'deliberation job-1 started',
      'round 1/2: proposals in',
      'still: round 1/2: proposals in',
      'round 1/2 evaluated, convergence 80%, leader CortexB',
    ]);
    expect(sent.map(([p]) => p)).toEqual([1, 2, 3, 4, 5]);
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
      (_p, m) => new Promise<void>((resolve) => releases.push(() => resolve(void gone.push(m)))),
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

  it('says nothing for the answer text itself, and names the end', () => {
    expect(progressMessage({ type: 'text', text: 'partial answer' })).toBeUndefined();
    expect(progressMessage({ type: 'finalized', chosen_agent_id: 'CortexA', round: 2 })).toBe(
      'converged: CortexA chosen at round 2',
    );
  });
});
