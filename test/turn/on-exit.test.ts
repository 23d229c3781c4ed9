import { readdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import { CANCEL_BOUND_MS } from '../../src/turn/cancel-on-exit.js';
import { chunk } from '../api/fixtures.js';
import { realClock, startCli } from '../harness/cli.js';
import { testRig, parseNdjson, waitForOutput, type Rig } from '../harness/rig.js';
import { sseHead, startServer, type ScriptedServer } from '../harness/scripted-server.js';

/**
 * `--on-exit cancel` (docs/reliability.md #130-#132): a signal or --timeout stops the
 * deliberation on the orchestrator before nsed exits, the turn is recorded cancelled and the
 * NDJSON ends with its one error event. The simulator holds the job, so nothing here races it.
 */

let rig: Rig | undefined;
let server: ScriptedServer | undefined;
let home: string | undefined;
afterEach(async () => {
  await server?.close();
  if (home !== undefined) await rm(home, { recursive: true, force: true });
  server = undefined;
  home = undefined;
});

async function only(dir: string, read: (id: string) => Promise<Session>): Promise<Session> {
  const files = (await readdir(join(dir, 'sessions'))).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return read(String(files[0]).replace(/\.json$/, ''));
}

const assistants = (s: Session) => s.turns.filter((t) => t.role === 'assistant');
const cancels = (r: Rig, job: string) =>
  r.sim.requests.filter((q) => q.method === 'POST' && q.path === `/deliberation/${job}/cancel`);

describe('--on-exit cancel (reliability #130)', () => {
  it('a signal cancels the held job, records the turn cancelled and keeps the exit code (reliability #130)', async () => {
    rig = await testRig({ hold: true });
    const run = rig.start(['ask', '-o', 'ndjson', '--on-exit', 'cancel', '-p', 'fast', 'x']);
    const job = await rig.sim.control.nextJob();
    await run.output((o) => o.includes('"type":"job"'));
    run.interrupt(130);
    const r = await run.result;
    expect(r.code).toBe(130);
    const events = parseNdjson(r.stdout);
    expect(events.filter((e) => e['type'] === 'error' || e['type'] === 'finish')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'error', exit_code: 130, status: 'cancelled' });
    expect(cancels(rig, job)).toHaveLength(1);
    expect(await rig.sim.control.ended(job)).toMatchObject({ ended: true });
    const s = await only(rig.home, (id) => rig!.session<Session>(id));
    expect(s.pending_job).toBeUndefined();
    expect(assistants(s)).toMatchObject([{ status: 'cancelled', job_id: job }]);
  });

  it('on the native path (--agents) too (reliability #130)', async () => {
    rig = await testRig({ hold: true });
    const run = rig.start(['ask', '-o', 'ndjson', '--on-exit', 'cancel', '--agents', 'CortexA,CortexB', 'x']);
    const job = await rig.sim.control.nextJob();
    await run.output((o) => o.includes('"type":"job"'));
    run.interrupt(143);
    const r = await run.result;
    expect(r.code).toBe(143);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', status: 'cancelled' });
    expect(cancels(rig, job)).toHaveLength(1);
  });

  it('detach, the default, sends no cancel and leaves the job to resume (reliability #130)', async () => {
    rig = await testRig({ hold: true });
    const run = rig.start(['ask', '-o', 'ndjson', '-p', 'fast', 'x']);
    const job = await rig.sim.control.nextJob();
    await run.output((o) => o.includes('"type":"job"'));
    run.interrupt(130);
    expect((await run.result).code).toBe(130);
    expect(cancels(rig, job)).toHaveLength(0);
    const s = await only(rig.home, (id) => rig!.session<Session>(id));
    expect(s.pending_job?.job_id).toBe(job);
    rig.sim.control.release(job);
  });

  it('--timeout with NSED_ON_EXIT=cancel cancels the job it could not wait for, exit 124 (reliability #131)', async () => {
    // The job is held and never released: the deadline is the only way this run can end.
    rig = await testRig({ hold: true });
    const run = rig.start(['ask', '-o', 'ndjson', '--timeout', '1', '-p', 'fast', 'x'], {
      env: { NSED_ON_EXIT: 'cancel' },
      clock: realClock,
    });
    const job = await rig.sim.control.nextJob();
    const r = await run.result;
    expect(r.code).toBe(124);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', code: 'timeout', status: 'cancelled' });
    expect(cancels(rig, job)).toHaveLength(1);
    const s = await only(rig.home, (id) => rig!.session<Session>(id));
    expect(assistants(s)).toMatchObject([{ status: 'cancelled' }]);
  });

  it('refuses an NSED_ON_EXIT it does not know, before anything is sent', async () => {
    rig = await testRig();
    const r = await rig.run(['ask', '-p', 'fast', 'x'], { env: { NSED_ON_EXIT: 'kill' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('NSED_ON_EXIT must be one of detach, cancel');
    expect(rig.sim.requests).toHaveLength(0);
  });

  it('a real SIGTERM cancels the job before the process exits 143 (reliability #130)', async () => {
    rig = await testRig({ hold: true });
    const child = rig.spawn(['ask', '-o', 'ndjson', '--on-exit', 'cancel', '-p', 'fast', 'x']);
    const job = await rig.sim.control.nextJob();
    await waitForOutput(child, (o) => o.includes('"type":"job"'), 60_000);
    child.kill('SIGTERM');
    const r = await child.result;
    expect(r.code).toBe(143);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', exit_code: 143, status: 'cancelled' });
    expect(cancels(rig, job)).toHaveLength(1);
  });
});

describe('a cancel the orchestrator never answers (reliability #132)', () => {
  it('is given up after the connect timeout, said on stderr, and the exit code stays', async () => {
    const JOB = 'oc-thread-1-1700000000000';
    let cancelSeen!: () => void;
    const seen = new Promise<void>((resolve) => (cancelSeen = resolve));
    server = await startServer((_req, res, q) => {
      if (q.url === '/v1/chat/completions') {
        sseHead(res, { 'x-nsed-session-id': JOB });
        res.write(`data: ${chunk({ role: 'assistant', nsed_session_id: JOB })}\n\n`);
        return; // held open: the job runs on
      }
      if (q.url === `/deliberation/${JOB}/cancel`) {
        cancelSeen();
        return; // never answered
      }
      res.writeHead(404).end();
    });
    home = await mkdtemp(join(tmpdir(), 'nsed-on-exit-'));
    // The bound's wait is the one stand-in: it ends once the cancel has reached the server,
    // as the connect timeout would, without the test waiting those seconds.
    const bounds: number[] = [];
    const clock = {
      now: () => new Date(),
      sleep: (ms: number, signal?: AbortSignal) => {
        if (ms !== CANCEL_BOUND_MS) return realClock.sleep(ms, signal);
        bounds.push(ms);
        return seen;
      },
    };
    const run = startCli(['ask', '-o', 'ndjson', '--on-exit', 'cancel', '-m', 'm', 'x'], {
      env: { NSED_HOME: home, NSED_URL: server.url, NO_COLOR: '1' },
      clock,
    });
    await run.output((o) => o.includes('"type":"job"'));
    run.interrupt(130);
    const r = await run.result;
    expect(r.code).toBe(130);
    expect(bounds).toEqual([CANCEL_BOUND_MS]);
    expect(r.stderr).toContain(`did not answer the cancel of deliberation ${JOB} within 10 s`);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', exit_code: 130, status: 'interrupted' });
  });
});

describe('where --on-exit comes from', () => {
  it('the flag, then NSED_ON_EXIT, then the config key on_exit, then detach', async () => {
    const { parseGlobalOptions } = await import('../../src/commands/global-options.js');
    const config = (onExit: 'cancel' | 'detach' | undefined) => ({
      path: undefined,
      exists: true,
      values: onExit === undefined ? {} : { on_exit: onExit },
      unknown: [],
      error: undefined,
    });
    const onExit = (argv: Record<string, unknown>, env: Record<string, string>, file?: 'cancel' | 'detach') =>
      parseGlobalOptions({ _: [], ...argv }, config(file), env).settings.onExit;
    expect(onExit({ 'on-exit': 'detach' }, { NSED_ON_EXIT: 'cancel' }, 'cancel')).toMatchObject({
      value: 'detach',
      source: 'flag',
    });
    expect(onExit({}, { NSED_ON_EXIT: 'cancel' }, 'detach')).toMatchObject({ value: 'cancel', source: 'env' });
    expect(onExit({}, { NSED_ON_EXIT: ' ' }, 'cancel')).toMatchObject({ value: 'cancel', source: 'config' });
    expect(onExit({}, {}, undefined)).toMatchObject({ value: 'detach', source: 'default' });
  });
});
