import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import { parseNdjson, type Rig } from '../harness/rig.js';
import { proxiedRigs } from '../harness/holding-proxy.js';

/**
 * No answer is lost between the request and the response headers (docs/reliability.md #97, #98):
 * a held simulator job behind a proxy that keeps the start's headers (or cuts its body) until
 * the test says so. The signal is the in-process one (the context's abort, as main wires
 * SIGTERM); nothing here waits on a clock.
 */

const behindProxy = proxiedRigs();

async function only(r: Rig): Promise<Session> {
  const { readdir } = await import('node:fs/promises');
  const files = (await readdir(`${r.home}/sessions`)).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return r.session<Session>(String(files[0]).replace(/\.json$/, ''));
}

const assistants = (s: Session) => s.turns.filter((t) => t.role === 'assistant');

/** The held job runs to its end; then resume records the answer it gave, for the one session there is. */
async function releaseAndResume(rig: Rig, job: string, env: Record<string, string>): Promise<void> {
  rig.sim.control.release(job);
  await rig.sim.control.ended(job);
  const resumed = await rig.run(['resume', '-s', (await only(rig)).id, '-o', 'final'], { env });
  expect(resumed.code).toBe(0);
  expect(assistants(await only(rig))).toMatchObject([{ status: 'complete', job_id: job }]);
}

describe('a signal between the request and its headers (reliability #97)', () => {
  it('keeps the claim, names what works, and resume records the answer the job gave (reliability #97)', async () => {
    const { rig, proxy, env } = await behindProxy('hold-headers', { hold: true });
    const run = rig.start(['ask', '-o', 'ndjson', '-p', 'fast', 'x'], { env });
    const job = await rig.sim.control.nextJob();
    await proxy.started;
    run.interrupt(143);
    const cut = await run.result;
    expect(cut.code).toBe(143);
    expect(parseNdjson(cut.stdout).at(-1)).toMatchObject({ type: 'error', code: 'interrupted', exit_code: 143 });
    const id = (await only(rig)).id;
    expect(cut.stderr).toContain(`nsed resume -s ${id}`);
    const left = await only(rig);
    expect(left.pending_job).toBeUndefined();
    expect(left.claim?.abandoned).toEqual(expect.any(String));
    expect(assistants(left)).toMatchObject([{ status: 'interrupted' }]);

    rig.sim.control.release(job);
    await rig.sim.control.ended(job);
    const resumed = await rig.run(['resume', '-s', id, '-o', 'json'], { env });
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const out = JSON.parse(resumed.stdout) as { content: string; job_id: string };
    expect(out.job_id).toBe(job);
    expect(out.content.length).toBeGreaterThan(0);
    const after = await only(rig);
    expect(after.claim).toBeUndefined();
    expect(after.pending_job).toBeUndefined();
    expect(assistants(after)).toMatchObject([{ status: 'complete', job_id: job, content: out.content }]);
  });

  it('continue finds the job still running and refuses with the way on (reliability #97, #54)', async () => {
    const { rig, proxy, env } = await behindProxy('hold-headers', { hold: true });
    const run = rig.start(['ask', '-o', 'ndjson', '-p', 'fast', 'x'], { env });
    const job = await rig.sim.control.nextJob();
    await proxy.started;
    run.interrupt(143);
    expect((await run.result).code).toBe(143);
    const id = (await only(rig)).id;
    const refused = await rig.run(['continue', '-s', id, 'y'], { env });
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain(job);
    expect(refused.stderr).toContain(`nsed resume -s ${id}`);
    expect((await only(rig)).pending_job?.job_id).toBe(job);
    rig.sim.control.release(job);
  });
});

describe('a real SIGTERM between the request and its headers (reliability #97, #71)', () => {
  it('leaves the claim for resume, which records the answer (reliability #97, #71)', async () => {
    const { rig, proxy, env } = await behindProxy('hold-headers', { hold: true });
    const child = rig.spawn(['ask', '-o', 'ndjson', '-p', 'fast', 'x'], { env });
    const job = await rig.sim.control.nextJob();
    await proxy.started;
    child.kill('SIGTERM');
    const cut = await child.result;
    expect(cut.code).toBe(143);
    const left = await only(rig);
    expect(left.claim?.abandoned).toEqual(expect.any(String));
    expect(cut.stderr).toContain(`nsed resume -s ${left.id}`);
    await releaseAndResume(rig, job, env);
  });
});

describe('a reset between the request and its headers (reliability #97, #44)', () => {
  it('records the turn interrupted and resume finds the job the request started (reliability #97, #44)', async () => {
    const { rig, env } = await behindProxy('reset', { hold: true });
    const run = rig.start(['ask', '-o', 'ndjson', '-p', 'fast', 'x'], { env });
    const job = await rig.sim.control.nextJob();
    const cut = await run.result;
    expect(cut.code).toBe(6);
    const left = await only(rig);
    expect(left.claim?.abandoned).toEqual(expect.any(String));
    expect(assistants(left)).toMatchObject([{ status: 'interrupted' }]);
    expect(cut.stderr).toContain(`nsed resume -s ${left.id}`);
    await releaseAndResume(rig, job, env);
  });
});

describe('a --no-stream answer cut off after its headers (reliability #98)', () => {
  it('keeps the job id, records the turn interrupted, and resume recovers it through /result (reliability #98)', async () => {
    const { rig, proxy, env } = await behindProxy('cut-body');
    const cut = await rig.run(['ask', '--no-stream', '-o', 'ndjson', '-p', 'fast', 'x'], { env });
    const up = await proxy.started;
    const job = String(up.headers['x-nsed-session-id']);
    expect(cut.code).toBe(6);
    const events = parseNdjson(cut.stdout);
    expect(events.find((e) => e['type'] === 'job')).toMatchObject({ job_id: job });
    const left = await only(rig);
    expect(left.pending_job?.job_id).toBe(job);
    expect(assistants(left)).toMatchObject([{ status: 'interrupted', job_id: job }]);
    expect(cut.stderr).toContain(`nsed resume -s ${left.id}`);

    const resumed = await rig.run(['resume', '-s', left.id, '-o', 'final'], { env });
    expect(resumed.code).toBe(0);
    const after = await only(rig);
    expect(after.pending_job).toBeUndefined();
    expect(assistants(after)).toMatchObject([{ status: 'complete', job_id: job }]);
    expect(resumed.stdout.trim()).toBe(assistants(after)[0]?.content.trim());
  });
});
