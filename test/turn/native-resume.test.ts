import { afterEach, describe, expect, it } from 'vitest';
import { startHoldingProxy, type HoldingProxy } from '../harness/holding-proxy.js';
import { testRig, type Rig } from '../harness/rig.js';

/**
 * The native path's first `POST /deliberation/{id}/resume` meets what a stale pooled socket
 * does: the connection reset before any header. Resume is idempotent, so it is tried again
 * within the reconnect budget, as every later resume is and as on the compat path
 * (docs/reliability.md #53). The proxy resets exactly that one request and passes every other.
 */
describe('a connection reset before the headers of the native path first resume (reliability #53)', () => {
  let rig: Rig | undefined;
  let proxy: HoldingProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
  });

  it('is retried, and the turn ends complete with the job answer', async () => {
    rig = await testRig();
    let resumes = 0;
    proxy = await startHoldingProxy(
      rig.sim.url,
      'reset',
      (seen) => seen.method === 'POST' && /^\/deliberation\/[^/]+\/resume$/.test(seen.url) && resumes++ === 0,
    );
    const env = { NSED_URL: proxy.url };
    const r = await rig.run(['ask', '-o', 'json', '--agents', 'CortexA,CortexB', '--rounds', '2', 'x'], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { status: string; content: string; job_id: string; session: string };
    expect(out).toMatchObject({ status: 'complete', error: null });
    expect(out.content.length).toBeGreaterThan(0);
    // The reset one, then the one that streamed the answer.
    expect(resumes).toBe(2);
    const saved = await rig.session<{ turns: Array<{ role: string; status: string; job_id: string | null }> }>(
      out.session,
    );
    expect(saved.turns.at(-1)).toMatchObject({ role: 'assistant', status: 'complete', job_id: out.job_id });
  });
});
