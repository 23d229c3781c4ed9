// The `nsed mcp` that started a deliberation dies with SIGKILL: nothing of it records the turn,
// so the next server's `wait` takes the job over and records it, as `nsed resume` does.
import { describe, expect, it } from 'vitest';
import { connectMcp, isError, structured, text } from '../harness/mcp-host.js';
import { useRig } from '../harness/rig.js';

interface Stored {
  pending_job?: { job_id: string; owner?: { pid: number } };
  turns: Array<{ role: string; status: string; content: string; job_id?: string }>;
}

describe('nsed mcp: the server that owned a deliberation is killed with -9', { timeout: 180_000 }, () => {
  const held = useRig({ hold: true });

  it('wait from a new server takes the turn over and records its answer: the session is ok, no job pending (reliability #286)', async () => {
    const first = await connectMcp(held);
    const r = await first.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Plan the database migration', policy: 'fast', wait: false },
    });
    expect(isError(r), text(r)).toBe(false);
    const { session, job_id: job } = structured(r) as { session: string; job_id: string };
    const before = await held.session<Stored>(session);
    expect(before.pending_job).toMatchObject({ job_id: job, owner: { pid: first.pid } });
    // Reaped before the next server looks: a process killed but not yet waited for still exists.
    const gone = new Promise<void>((resolve) => (first.client.onclose = resolve));
    process.kill(first.pid, 'SIGKILL');
    await gone;
    const left = await held.session<Stored>(session);
    expect(left.pending_job?.job_id).toBe(job);
    expect(left.turns.filter((t) => t.role === 'assistant')).toEqual([]);
    expect(held.sim.control.job(job)?.ended).toBe(false);

    const second = await connectMcp(held);
    try {
      held.sim.control.release(job);
      let after = 0;
      let last: Record<string, unknown> = {};
      for (let calls = 0; calls < 50 && last['done'] !== true; calls++) {
        const w = await second.client.callTool({ name: 'wait', arguments: { session, after, timeout_s: 30 } });
        expect(isError(w), `${text(w)}\n${second.said()}`).toBe(false);
        last = structured(w);
        after = Number(last['seq']);
      }
      expect(last).toMatchObject({ done: true, status: 'complete', job_id: job });
      const recorded = await held.session<Stored>(session);
      expect(recorded.pending_job).toBeUndefined();
      expect(recorded.turns.filter((t) => t.role === 'assistant')).toMatchObject([
        { status: 'complete', job_id: job, content: last['content'] },
      ]);
      const ls = await held.run(['sessions', 'ls', '--json']);
      expect(ls.code, ls.stderr).toBe(0);
      const listed = (JSON.parse(ls.stdout) as Array<{ id: string; state: string }>).find((s) => s.id === session);
      expect(listed?.state).toBe('ok');
    } finally {
      await second.close();
    }
  });
});
