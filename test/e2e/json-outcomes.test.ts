import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

// `-o json` prints one object in every outcome of a turn, with status, verdict,
// gate and error; only a usage error before a turn starts prints nothing. The held simulator
// decides when a deliberation is "still running" (no test races a timer).

const rig = useRig({ hold: true });
afterEach(() => {
  rig.sim.setFaults([]);
  // Each job a test left parked runs out; later jobs still start held.
  for (const j of rig.sim.control.jobs()) if (!j.ended) rig.sim.control.release(j.jobId);
});

function one(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const obj = JSON.parse(stdout) as Record<string, unknown>;
  for (const key of ['session', 'turn', 'job_id', 'status', 'content', 'rounds', 'verdict', 'gate', 'error'])
    expect(obj).toHaveProperty(key);
  return obj;
}

/** Starts `ask -o json ARGS` and hands back the run and the job it started, parked at its first boundary. */
async function held(args: string[]) {
  const run = rig.start(['ask', '-o', 'json', ...args, 'Design a cache']);
  const job = await rig.sim.control.nextJob();
  await rig.sim.control.parked(job);
  return { run, job };
}

describe('-o json: one object in every outcome', () => {
  it('completed: status complete, a verdict, no gate and no error', async () => {
    const { run, job } = await held([]);
    rig.sim.control.release(job);
    const r = await run.result;
    expect(r.code, r.stderr).toBe(0);
    expect(one(r.stdout)).toMatchObject({ status: 'complete', gate: null, error: null, verdict: { v: 2 } });
  });

  it('gate failed: status complete, the gate, and the error gate_failed with exit 12', async () => {
    const { run, job } = await held(['--min-score', '1']);
    rig.sim.control.release(job);
    const r = await run.result;
    expect(r.code).toBe(12);
    expect(one(r.stdout)).toMatchObject({
      status: 'complete',
      gate: { status: 'fail' },
      error: { code: 'gate_failed', exit_code: 12, message: "the council's verdict failed 1 of 1 gate" },
    });
  });

  it('failed (reliability #19): status failed and the server error, exit 5; gates are not judged', async () => {
    rig.sim.setFaults(['fail-at-round=1']);
    const { run, job } = await held(['--min-score', '0']);
    rig.sim.control.release(job);
    const r = await run.result;
    expect(r.code).toBe(5);
    expect(one(r.stdout)).toMatchObject({
      status: 'failed',
      job_id: job,
      gate: null,
      error: { code: 'server', exit_code: 5 },
      verdict: { v: 2, chosen: null },
    });
  });

  it('cancelled on the orchestrator: status cancelled, exit 9', async () => {
    const { run, job } = await held(['--min-score', '0']);
    const res = await fetch(`${rig.sim.url}/deliberation/${job}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    const r = await run.result;
    expect(r.code).toBe(9);
    expect(one(r.stdout)).toMatchObject({
      status: 'cancelled',
      gate: null,
      error: { code: 'cancelled', exit_code: 9 },
    });
  });

  it('interrupted (Ctrl-C, reliability #42): status interrupted, exit 130', async () => {
    const { run } = await held([]);
    run.interrupt(130);
    const r = await run.result;
    expect(r.code).toBe(130);
    expect(one(r.stdout)).toMatchObject({ status: 'interrupted', error: { code: 'interrupted', exit_code: 130 } });
  });

  it('timed out (--timeout, reliability #52): status interrupted, exit 124', async () => {
    const { run } = await held(['--timeout', '0.5']);
    // The job stays parked: only the client's own deadline can end this run.
    const r = await run.result;
    expect(r.code).toBe(124);
    expect(one(r.stdout)).toMatchObject({ status: 'interrupted', error: { code: 'timeout', exit_code: 124 } });
  });

  it('a turn that never reached the orchestrator names no turn, nor the session created for it', async () => {
    // A loopback port nothing listens on: the request is refused before anything is sent.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const env = { NSED_URL: `http://127.0.0.1:${port}` };
    const before = await readdir(join(rig.home, 'sessions')).catch(() => [] as string[]);
    const ask = await rig.run(['ask', '-o', 'json', 'Design a cache'], { env });
    expect(ask.code, ask.stderr).toBe(6);
    expect(one(ask.stdout)).toMatchObject({ session: null, turn: null, status: 'failed', error: { code: 'network' } });
    expect(await readdir(join(rig.home, 'sessions')).catch(() => [] as string[])).toEqual(before);

    // Continued, the session stays (it is stored), the turn that never left does not.
    const first = rig.start(['ask', '-o', 'json', 'Design a cache']);
    rig.sim.control.release(await rig.sim.control.nextJob());
    const done = one((await first.result).stdout);
    expect(done['status']).toBe('complete');
    const cont = await rig.run(['continue', '-s', String(done['session']), '-o', 'json', 'And then?'], { env });
    expect(cont.code, cont.stderr).toBe(6);
    expect(one(cont.stdout)).toMatchObject({ session: done['session'], turn: null, status: 'failed' });
  });

  it('a failure before the turn starts (no such session) is one object too; a usage error prints nothing', async () => {
    const missing = await rig.run(['continue', '-s', 'no-such-session', '-o', 'json', 'hello']);
    expect(missing.code).toBe(3);
    expect(one(missing.stdout)).toMatchObject({
      session: null,
      status: 'failed',
      verdict: null,
      gate: null,
      error: { code: 'not_found', exit_code: 3 },
    });
    const usage = await rig.run(['ask', '-o', 'json', '--max-wrong', '-1', 'hello']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
  });
});
