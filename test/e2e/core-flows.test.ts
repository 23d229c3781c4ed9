import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import type { ProfileName } from '../../src/sim/profile.js';
import { parseNdjson, waitForOutput, type Rig, useRig } from '../harness/rig.js';
import { until } from '../harness/sse.js';

interface Saved {
  pending_job?: { job_id: string };
  conversation_id: string;
  turns: Array<{ role: string; kind: string; content: string; status: string; job_id?: string }>;
}

/**
 * The core flows against both simulator profiles: the default one, and the strict one that
 * answers every open question of the seeds the other way. Strict runs as it is (completed jobs
 * end normally, failed and cancelled ones with a bare [DONE] or a close picked per job), and
 * twice more with fault end= forcing every job's streams to end one of those two ways, so
 * both are exercised on every flow whatever the per-job pick would be.
 */
const PROFILES: Array<[string, ProfileName, string[]]> = [
  ['default', 'default', []],
  ['strict', 'strict', []],
  ['strict, every job ends with a bare [DONE]', 'strict', ['all:end=bare-done']],
  ['strict, every job ends by closing the connection', 'strict', ['all:end=close']],
];

const MODES = ['text', 'ndjson', 'final', 'json'] as const;

// The kill -9 tests spawn CLI processes; on a loaded two-core machine that alone can pass 30 s.
describe.each(PROFILES)('core flows, profile %s', { timeout: 180_000 }, (_name, profile, endFaults) => {
  const rig = useRig({ profile, faults: endFaults });
  // Jobs here wait for the test: each phase runs only when released through held.sim.control.
  const held = useRig({ profile, faults: endFaults, hold: true });

  const read = async (r: Rig, id: string): Promise<Saved> =>
    JSON.parse(await readFile(join(r.home, 'sessions', `${id}.json`), 'utf8')) as Saved;
  const assistant = (s: Saved) => s.turns.filter((t) => t.role === 'assistant');

  const jobLine = (out: string) => {
    const events = parseNdjson(out.slice(0, out.lastIndexOf('\n') + 1));
    const session = String(events.find((e) => e['type'] === 'turn-start')?.['session']);
    const job = String(events.find((e) => e['type'] === 'job')?.['job_id']);
    return { session, job };
  };

  /** Starts `nsed <args> -o ndjson` in-process on the held rig and waits for its job line; returns session and job. */
  async function startHeld(args: string[]) {
    const child = held.start([...args, '-o', 'ndjson']);
    await child.output((o) => o.includes('"type":"job"'), 60_000);
    return { child, ...jobLine(child.stdout.text) };
  }

  /** As startHeld, as a real process: for the tests that kill it with SIGKILL, which only a process shows. */
  async function spawnHeld(args: string[]) {
    const child = held.spawn([...args, '-o', 'ndjson'], { timeoutMs: 120_000 });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitForOutput(child, (o) => o.includes('"type":"job"'), 60_000);
    return { child, ...jobLine(out) };
  }

  describe.each([
    ['compat', [] as string[]],
    ['native', ['--agents', 'CortexA,CortexB', '--rounds', '2']],
  ])('ask on the %s path', (_path, extra) => {
    it.each(MODES)('-o %s answers and records one complete turn', async (mode) => {
      const r = await rig.run(['ask', '-o', mode, ...extra, 'Design a distributed cache']);
      expect(r.code, r.stderr).toBe(0);
      const content =
        mode === 'json'
          ? String((JSON.parse(r.stdout) as { content: string }).content)
          : mode === 'ndjson'
            ? String(parseNdjson(r.stdout).at(-1)?.['content'])
            : r.stdout;
      expect(content).toMatch(/^## Design a distributed cache/);
      // The strict profile offers no /resume for a native job: its live-only stream shows
      // only the rounds still to come when nsed attaches (a test below holds the job for that).
      if (mode === 'ndjson' && (profile === 'default' || extra.length === 0))
        expect(parseNdjson(r.stdout).map((e) => e['type'])).toContain('round');
    });
  });

  it('continue sends the whole lineage and fork starts a new conversation with the same prompt', async () => {
    const first = await rig.run(['ask', '-o', 'json', 'Design a queue']);
    const id = (JSON.parse(first.stdout) as { session: string }).session;
    const next = await rig.run(['continue', '-s', id, '-o', 'json', 'with priorities?']);
    expect(next.code, next.stderr).toBe(0);
    expect((JSON.parse(next.stdout) as { content: string }).content).toContain('This builds on the earlier question');
    const forked = await rig.run(['fork', id, '-o', 'json', 'with priorities?']);
    expect(forked.code, forked.stderr).toBe(0);
    const forkId = (JSON.parse(forked.stdout) as { session: string }).session;
    expect((await read(rig, forkId)).conversation_id).not.toBe((await read(rig, id)).conversation_id);
    // Dedup (on in strict) never answers a fork from its parent's job: the thread differs.
    expect(assistant(await read(rig, forkId)).at(-1)?.job_id).not.toBe(assistant(await read(rig, id)).at(-1)?.job_id);
  });

  it('two identical asks in a row are two deliberations, each recorded', async () => {
    const a = await rig.run(['ask', '-o', 'json', 'Pick a database']);
    const b = await rig.run(['ask', '-o', 'json', 'Pick a database']);
    const [ja, jb] = [a, b].map((r) => (JSON.parse(r.stdout) as { job_id: string }).job_id);
    expect(ja).not.toBe(jb);
  });

  it('a stream dropped mid-answer is resumed automatically and ends as an undropped run does', async () => {
    const clean = await rig.run(['ask', '-o', 'json', '-p', 'fast', 'Design a rate limiter']);
    rig.sim.setFaults([...endFaults, 'chat:drop-after=6;times=1']);
    const dropped = await rig.run(['ask', '-o', 'ndjson', '-p', 'fast', 'Design a rate limiter']);
    rig.sim.setFaults(endFaults);
    expect(dropped.code, dropped.stderr).toBe(0);
    const events = parseNdjson(dropped.stdout);
    expect(events.map((e) => e['type'])).toContain('reconnect');
    expect(events.at(-1)?.['content']).toBe((JSON.parse(clean.stdout) as { content: string }).content);
  });

  it.each([
    ['compat', [] as string[]],
    ['native', ['--agents', 'CortexA,CortexB', '--rounds', '2']],
  ])('resume after kill -9 (%s) follows the job to its answer and clears the pending job', async (_path, extra) => {
    const { child, session, job } = await spawnHeld(['ask', ...extra, 'Design a cache']);
    child.kill('SIGKILL');
    await child.result;
    expect((await read(held, session)).pending_job?.job_id).toBe(job);
    const before = held.sim.requests.length;
    const resumed = held.start(['resume', '-s', session, '-o', 'json']);
    // The resume is attached once its stream request reached the simulator; then the job is released.
    const follows = new Set([`/deliberation/${job}/resume`, `/job/${job}/stream`]);
    await until(() => held.sim.requests.slice(before).some((q) => follows.has(q.path)));
    held.sim.control.release(job);
    const r = await resumed.result;
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { content: string }).content).toMatch(/^## Design a cache/);
    const saved = await read(held, session);
    expect(saved.pending_job).toBeUndefined();
    expect(assistant(saved)).toEqual([expect.objectContaining({ status: 'complete', job_id: job })]);
  });

  it('a native job attached before its phases run shows every round from the live stream', async () => {
    const before = held.sim.requests.length;
    const { child, job } = await startHeld(['ask', '--agents', 'CortexA,CortexB', '--rounds', '2', 'Design a cache']);
    // Released once nsed follows the job: by /resume where offered, else by asking /result,
    // which it does only after its native stream is open.
    const following = profile === 'strict' ? `/deliberation/${job}/result` : `/deliberation/${job}/resume`;
    await until(() => held.sim.requests.slice(before).some((q) => q.path === following));
    held.sim.control.release(job);
    const r = await child.result;
    expect(r.code, r.stderr).toBe(0);
    const rounds = parseNdjson(r.stdout).filter((e) => e['type'] === 'round' && e['scored'] === true);
    expect(rounds.map((e) => e['round'])).toEqual([1, 2]);
  });

  it('resume of a native job that ended while nobody watched settles from /result at once', async () => {
    const { child, session, job } = await spawnHeld([
      'ask',
      '--agents',
      'CortexA,CortexB',
      '--rounds',
      '2',
      'Design a cache',
    ]);
    child.kill('SIGKILL');
    await child.result;
    held.sim.control.release(job);
    await held.sim.control.ended(job);
    const r = await held.run(['resume', '-s', session, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { content: string }).content).toMatch(/^## Design a cache/);
  });

  it('inject from a second terminal lands in the running deliberation and is recorded', async () => {
    const { child, session, job } = await startHeld(['ask', 'Design a cache']);
    const inj = await held.run(['inject', '-s', session, '--no-wait', 'Focus on memory safety']);
    expect(inj.code, inj.stderr).toBe(0);
    held.sim.control.release(job);
    const r = await child.result;
    expect(r.code, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout).find((e) => e['type'] === 'injection')).toMatchObject({
      message: 'Focus on memory safety',
      sequence: 1,
    });
    expect(
      (await read(held, session)).turns.some((t) => t.kind === 'injection' && t.content === 'Focus on memory safety'),
    ).toBe(true);
  });

  it('continue with another policy while the deliberation runs is refused before anything is sent', async () => {
    const { child, session, job } = await startHeld(['ask', '-p', 'deep', 'Design a cache']);
    const before = held.sim.requests.length;
    const r = await held.run(['continue', '-s', session, '-p', 'fast', 'Title: Design a cache']);
    expect(r.code).toBe(ExitCode.conflict);
    expect(held.sim.requests.slice(before).map((q) => `${q.method} ${q.path}`)).toEqual([
      `GET /deliberation/${job}/result`,
    ]);
    held.sim.control.release(job);
    expect((await child.result).code).toBe(0);
  });

  it('cancel from a second terminal ends the turn as cancelled (exit 9)', async () => {
    const { child, session, job } = await startHeld(['ask', 'Design a cache']);
    held.sim.control.release(job, 1);
    await held.sim.control.phases(job, 1);
    const c = await held.run(['cancel', '-s', session]);
    expect(c.code, c.stderr).toBe(0);
    const r = await child.result;
    expect(r.code, r.stderr).toBe(ExitCode.cancelled);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', exit_code: ExitCode.cancelled });
    expect(assistant(await read(held, session)).at(-1)?.status).toBe('cancelled');
  });

  it('a failed deliberation exits 5 and records the turn as failed', async () => {
    rig.sim.setFaults([...endFaults, 'chat:fail-at-round=1']);
    const r = await rig.run(['ask', '-o', 'ndjson', 'Design a cache']);
    rig.sim.setFaults(endFaults);
    expect(r.code).toBe(ExitCode.server);
    const last = parseNdjson(r.stdout).at(-1);
    expect(last).toMatchObject({ type: 'error', exit_code: ExitCode.server });
    expect(String(last?.['message'])).toMatch(/failed/);
    const id = String(parseNdjson(r.stdout)[0]?.['session']);
    expect(assistant(await read(rig, id)).at(-1)?.status).toBe('failed');
  });

  it('a passthrough answer: recorded in both profiles; a dropped one without a room is interrupted, not retried', async () => {
    // A roomless answer forced to end by closing is a drop with no job to ask or resume (the
    // dropped case below); the strict profile itself ends a completed answer normally.
    rig.sim.setFaults([]);
    const ok = await rig.run(['ask', '-o', 'json', '-p', 'passthrough', 'Title this chat']);
    rig.sim.setFaults(endFaults);
    expect(ok.code, ok.stderr).toBe(0);
    if (profile !== 'strict') return;
    const before = rig.sim.requests.length;
    rig.sim.setFaults([...endFaults, 'chat:drop-after=2;times=1']);
    const r = await rig.run(['ask', '-o', 'ndjson', '-p', 'passthrough', 'Title this chat']);
    rig.sim.setFaults(endFaults);
    expect(r.code).toBe(ExitCode.network);
    expect(r.stderr).toMatch(/^nsed: .*named no session for this answer, so it cannot be resumed$/m);
    expect(r.stderr).toMatch(/^hint: ask again/m);
    expect(rig.sim.requests.slice(before).map((q) => q.path)).toEqual(['/v1/chat/completions']);
    const id = String(parseNdjson(r.stdout)[0]?.['session']);
    expect(assistant(await read(rig, id)).at(-1)?.status).toBe('interrupted');
  });

  it('--no-stream with a moderator policy shows the mode the orchestrator reported', async () => {
    const r = await rig.run(['ask', '-o', 'ndjson', '--no-stream', '-p', 'moderated', 'Title this chat']);
    expect(r.code, r.stderr).toBe(0);
    expect(parseNdjson(r.stdout).find((e) => e['type'] === 'reasoning')?.['text']).toBe(
      'moderator mode: one agent answered, without a deliberation',
    );
  });
});
