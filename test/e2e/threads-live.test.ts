import { describe, expect, it } from 'vitest';
import { instantClock, makeRig, parseNdjson, waitForOutput, type CliRun, type Rig } from '../harness/rig.js';

interface Saved {
  pending_job?: { job_id: string };
  turns: Array<{ role: string; kind: string; content: string; status: string; job_id?: string; sequence?: number }>;
}

/** A rig whose deliberations wait at each phase boundary until the test releases them. */
async function withHeld(body: (rig: Rig) => Promise<void>, opts: Parameters<typeof makeRig>[0] = {}): Promise<void> {
  const rig = await makeRig({ hold: true, ...opts });
  try {
    await body(rig);
  } finally {
    await rig.close();
  }
}

function sessionOf(stdout: string): string {
  return String(parseNdjson(stdout)[0]?.['session']);
}

/**
 * Starts `nsed <args>` (with -o ndjson) in-process, lets its held job run `phases` phases and
 * waits until stdout shows `marker`; the job then stays parked until the test releases it.
 */
async function held(
  rig: Rig,
  args: string[],
  phases = 1,
  marker = '"type":"round"',
): Promise<{ run: CliRun; job: string; session: string }> {
  const run = rig.start(args);
  const job = await rig.sim.control.nextJob();
  if (phases > 0) rig.sim.control.release(job, phases);
  await run.output((o) => o.includes(marker));
  await rig.sim.control.parked(job);
  return { run, job, session: sessionOf(run.stdout.text) };
}

describe('nsed resume', () => {
  it('after kill -9 of an ask mid-stream, records the answer an uninterrupted run gives and clears pending_job', () =>
    withHeld(async (rig) => {
      const reference = rig.start(['ask', '-o', 'json', 'Design a rate limiter']);
      rig.sim.control.release(await rig.sim.control.nextJob());
      const expected = (JSON.parse((await reference.result).stdout) as { content: string }).content;

      // kill -9 leaves no chance to clean up: only a process shows it.
      const child = rig.spawn(['ask', '-o', 'ndjson', 'Design a rate limiter']);
      const job = await rig.sim.control.nextJob();
      rig.sim.control.release(job, 1);
      await waitForOutput(child, (o) => o.includes('"type":"round"'));
      child.kill('SIGKILL');
      const id = sessionOf((await child.result).stdout);
      expect((await rig.session<Saved>(id)).pending_job).toBeDefined();

      rig.sim.control.release(job);
      const r = await rig.run(['resume', '-s', id, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { content: string }).content).toBe(expected);
      const saved = await rig.session<Saved>(id);
      expect(saved.pending_job).toBeUndefined();
      expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([
        expect.objectContaining({ content: expected, status: 'complete' }),
      ]);
    }));

  it('after the job finished, takes the answer from /result', () =>
    withHeld(async (rig) => {
      const {
        run,
        job,
        session: id,
      } = await held(rig, ['ask', '-o', 'ndjson', '-p', 'fast', 'Name three queues'], 0, '"type":"job"');
      run.interrupt();
      expect((await run.result).code).toBe(130);
      rig.sim.control.release(job);
      await rig.sim.control.ended(job);
      const r = await rig.run(['resume', '-s', id, '-o', 'final']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^## /);
      expect((await rig.session<Saved>(id)).pending_job).toBeUndefined();
    }));

  it('with nothing running exits 7 (like inject and cancel) with a hint', () =>
    withHeld(async (rig) => {
      const done = await rig.run(['ask', '-o', 'ndjson', '-p', 'passthrough', 'hi']);
      const r = await rig.run(['resume', '-s', sessionOf(done.stdout)]);
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/hint: /);
    }));
});

describe('automatic resume (reliability #31, #33, #34, C4)', () => {
  it('a stream dropped at any of 50 event offsets gives output identical to an unfaulted run', async () => {
    const prompt = 'Design a distributed cache';
    const baseline = await makeRig({ roundMs: 0 });
    let cleanText: string;
    let cleanEvents: unknown[];
    try {
      const text = await baseline.run(['ask', '-p', 'deep', prompt]);
      const nd = await baseline.run(['ask', '-p', 'deep', '-o', 'ndjson', prompt]);
      expect(text.code).toBe(0);
      cleanText = text.stdout;
      cleanEvents = normalise(parseNdjson(nd.stdout));
    } finally {
      await baseline.close();
    }
    expect(cleanEvents.length).toBeGreaterThan(50);
    const offsets = Array.from({ length: 50 }, (_, i) => i + 1);
    for (let i = 0; i < offsets.length; i += 5) {
      await Promise.all(
        offsets.slice(i, i + 5).map(async (n) => {
          const rig = await makeRig({ roundMs: 0, faults: [`drop-after=${n};times=2`] });
          try {
            const text = await rig.run(['ask', '-p', 'deep', prompt], { clock: instantClock() });
            expect(text.code, `drop-after=${n}: ${text.stderr}`).toBe(0);
            expect(text.stdout, `drop-after=${n}`).toBe(cleanText);
            // The 50th frame of this stream is the finish chunk: a drop right after it races the
            // finish, which a client reading as the frames come sees first and then has nothing to
            // resume. Every earlier drop cuts the answer short and is resumed.
            const afterFinish = n === 50;
            if (!afterFinish) expect(text.stderr, `drop-after=${n}`).toMatch(/reconnecting \(attempt 1\)/);
            // The start POST is never sent again once its response began (docs/reliability.md #40, C8).
            expect(rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').length).toBe(1);
            const nd = await rig.run(['ask', '-p', 'deep', '-o', 'ndjson', prompt], { clock: instantClock() });
            expect(nd.code).toBe(0);
            const events = parseNdjson(nd.stdout);
            const reconnects = events.filter((e) => e['type'] === 'reconnect').length;
            if (afterFinish) expect(reconnects).toBeLessThanOrEqual(1);
            else expect(reconnects, `drop-after=${n}`).toBe(1);
            expect(normalise(events), `drop-after=${n}`).toEqual(cleanEvents);
          } finally {
            await rig.close();
          }
        }),
      );
    }
  });
});

describe('automatic resume against a struggling orchestrator (reliability #39, #45, #46)', () => {
  it('retries a resume answered 503 after the Retry-After it asked for, then finishes', async () => {
    const rig = await makeRig({
      roundMs: 0,
      faults: ['drop-after=5;times=1', 'resume:status=503;retry-after=1;times=1'],
    });
    try {
      const clock = instantClock();
      const r = await rig.run(['ask', '-o', 'ndjson', 'Design a cache'], { clock });
      expect(r.code, r.stderr).toBe(0);
      expect(Math.max(...clock.sleeps)).toBeGreaterThanOrEqual(1000);
      const reconnects = parseNdjson(r.stdout).filter((e) => e['type'] === 'reconnect');
      expect(reconnects.map((e) => e['attempt'])).toEqual([1, 2]);
      expect(rig.sim.requests.filter((q) => q.path.endsWith('/resume')).length).toBe(2);
    } finally {
      await rig.close();
    }
  });

  it('stops resuming at once, exit 3, when the job is gone (reliability #38)', async () => {
    const rig = await makeRig({ roundMs: 0, faults: ['drop-after=5;times=1', 'resume:status=404'] });
    try {
      const r = await rig.run(['ask', 'Design a cache']);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/no longer known/);
      expect(rig.sim.requests.filter((q) => q.path.endsWith('/resume')).length).toBe(1);
    } finally {
      await rig.close();
    }
  });
});

/** Drops reconnect events and the fields that differ between runs (ids, seq). */
function normalise(events: Array<Record<string, unknown>>): unknown[] {
  return events
    .filter((e) => e['type'] !== 'reconnect')
    .map((e) => {
      const { seq: _seq, session: _s, turn: _t, job_id: _j, url: _u, ...rest } = e;
      return rest;
    });
}

describe('nsed inject from a second terminal (the deliberation held open)', () => {
  it('lands in the running deliberation: the first stream shows it, the session holds it once', () =>
    withHeld(async (rig) => {
      const {
        run: first,
        job,
        session: id,
      } = await held(rig, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a distributed cache']);
      const second = rig.start(['inject', '-s', id, '-o', 'final', 'Focus on memory safety over throughput']);
      await rig.sim.control.injected(job);
      rig.sim.control.release(job);
      const [r1, r2] = await Promise.all([first.result, second.result]);
      expect(r2.code, r2.stderr).toBe(0);
      expect(r1.code, r1.stderr).toBe(0);
      expect(r2.stderr).toMatch(/injected into deliberation \S+ at round \d+ \(sequence 1\)/);
      const events = parseNdjson(r1.stdout);
      const injections = events.filter((e) => e['type'] === 'injection');
      expect(injections).toEqual([
        expect.objectContaining({ message: 'Focus on memory safety over throughput', sequence: 1 }),
      ]);
      const finish = events.at(-1) as { content: string };
      expect(r2.stdout.trimEnd()).toBe(finish.content);
      const saved = await rig.session<Saved>(id);
      expect(saved.turns.filter((t) => t.kind === 'injection')).toEqual([
        expect.objectContaining({ role: 'user', content: 'Focus on memory safety over throughput', sequence: 1 }),
      ]);
      expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([
        expect.objectContaining({ status: 'complete', content: finish.content }),
      ]);
      expect(saved.pending_job).toBeUndefined();

      const late = await rig.run(['inject', '-s', id, 'too late']);
      expect(late.code).toBe(7);
      expect(late.stderr).toMatch(/nothing is running in session/);
    }));

  it('--no-wait returns after the acknowledgement, while the deliberation is still held', () =>
    withHeld(async (rig) => {
      const {
        run: first,
        job,
        session: id,
      } = await held(rig, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a scheduler']);
      const r = await rig.run(['inject', '-s', id, '--no-wait', 'prefer fairness']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(rig.sim.control.job(job)).toMatchObject({ ended: false, injected: 1 });
      rig.sim.control.release(job);
      expect((await first.result).code).toBe(0);
    }));
});

describe('nsed inject against an orchestrator without the inject route', () => {
  it('falls back to the compat routing rule: same x-opencode-session, stream false, and prints the answer', () =>
    withHeld(
      async (old) => {
        const {
          run: first,
          job,
          session: id,
        } = await held(old, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a distributed cache']);
        const second = old.start(['inject', '-s', id, '-o', 'final', 'Focus on memory safety over throughput']);
        await old.sim.control.injected(job);
        old.sim.control.release(job);
        const [r1, r2] = await Promise.all([first.result, second.result]);
        expect(r2.code, r2.stderr).toBe(0);
        expect(r2.stderr).toMatch(/no inject route/);
        const chats = old.sim.requests.filter((q) => q.path === '/v1/chat/completions');
        expect(chats.length).toBe(2);
        expect(chats[1]?.headers['x-opencode-session']).toBe(chats[0]?.headers['x-opencode-session']);
        expect(chats[1]?.body).toMatchObject({
          stream: false,
          messages: [{ role: 'user' }, { role: 'user', content: 'Focus on memory safety over throughput' }],
        });
        const events = parseNdjson(r1.stdout);
        expect(events.filter((e) => e['type'] === 'injection').length).toBe(1);
        expect(r2.stdout.trimEnd()).toBe((events.at(-1) as { content: string }).content);
        const saved = await old.session<Saved>(id);
        // Recorded by both terminals (the fallback without a sequence), merged into one.
        expect(saved.turns.filter((t) => t.kind === 'injection')).toEqual([
          expect.objectContaining({ content: 'Focus on memory safety over throughput', sequence: 1 }),
        ]);
        expect(saved.turns.filter((t) => t.role === 'assistant').length).toBe(1);
      },
      { withoutRoutes: ['inject'] },
    ));
});

describe('a running deliberation refuses a second turn, and can be cancelled', () => {
  it('continue while running exits 7 naming inject and resume; cancel ends the job and marks the turn', () =>
    withHeld(async (rig) => {
      const {
        run: first,
        job,
        session: id,
      } = await held(rig, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a ledger']);
      const cont = await rig.run(['continue', '-s', id, 'another question']);
      expect(cont.code).toBe(7);
      expect(cont.stderr).toMatch(/nsed inject/);
      expect(cont.stderr).toMatch(/nsed resume/);
      const cancel = await rig.run(['cancel', '-s', id]);
      expect(cancel.code, cancel.stderr).toBe(0);
      const r1 = await first.result;
      // Cancelled is not a server failure: its own code and NDJSON error code.
      expect(r1.code).toBe(9);
      expect(parseNdjson(r1.stdout).at(-1)).toMatchObject({ type: 'error', code: 'cancelled', exit_code: 9 });
      expect(rig.sim.control.job(job)).toMatchObject({ ended: true, phases: 1 });
      const saved = await rig.session<Saved>(id);
      expect(saved.pending_job).toBeUndefined();
      const answers = saved.turns.filter((t) => t.role === 'assistant');
      expect(answers).toEqual([expect.objectContaining({ status: 'cancelled' })]);
      expect(saved.turns.filter((t) => t.role === 'user').length).toBe(1);
    }));
});
