import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, waitForOutput, useRig } from '../harness/rig.js';

/**
 * A CI step re-run on a new runner (docs/reliability.md #135): the built CLI
 * twice, as two processes, the second with a store of its own that has never seen the session.
 * The first run's job is held open while the second decides, then released; the simulator's
 * request log shows a single start.
 */

const rig = useRig({ hold: true });
let fresh: string;
beforeAll(async () => {
  fresh = await mkdtemp(join(tmpdir(), 'nsed-idem-runner-'));
});
afterAll(async () => {
  await rm(fresh, { recursive: true, force: true });
});

const STEP = ['ask', '-p', 'fast', '--idempotency-key', '9137-review-step', 'Review the release notes'];

describe('a re-run on a new runner (reliability #135)', () => {
  it("follows the first runner's deliberation while it runs, sends no second start, and records it there (reliability #135)", async () => {
    const first = rig.spawn([...STEP, '-o', 'ndjson'], { timeoutMs: 120_000 });
    const job = await rig.sim.control.nextJob();
    await waitForOutput(first, (out) => out.includes('"type":"job"'), 60_000);
    const second = rig.spawn([...STEP, '-o', 'json'], { env: { NSED_HOME: fresh }, timeoutMs: 120_000 });
    await waitForOutput(second, (out) => out.includes('is still running'), 60_000);
    rig.sim.control.release(job);
    const [a, b] = await Promise.all([first.result, second.result]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const out = JSON.parse(b.stdout) as { job_id: string; content: string };
    expect(out.job_id).toBe(job);
    expect(out.content).toBe(String(parseNdjson(a.stdout).at(-1)?.['content']));
    const startRequests = rig.sim.requests.filter((q) => q.method === 'POST' && q.path === '/v1/chat/completions');
    expect(startRequests).toHaveLength(1);
    expect((await readdir(join(fresh, 'sessions'))).filter((n) => n.endsWith('.json'))).toHaveLength(1);
    expect(await readdir(join(fresh, 'keys'))).toHaveLength(1);
  });
});
