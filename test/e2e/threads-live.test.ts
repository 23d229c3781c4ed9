import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRig, parseNdjson, waitForOutput, type Rig } from './harness.js';

interface Saved {
  pending_job?: { job_id: string };
  turns: Array<{ role: string; kind: string; content: string; status: string; job_id?: string; sequence?: number }>;
}

let slow: Rig;
// Slow enough that a second terminal acts while the deliberation still runs (deep: ~15 phases).
let slower: Rig;
beforeAll(async () => {
  slow = await makeRig({ roundMs: 120 });
  slower = await makeRig({ roundMs: 600 });
});
afterAll(async () => {
  await slow.close();
  await slower.close();
});

async function read(rig: Rig, id: string): Promise<Saved> {
  return JSON.parse(await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8')) as Saved;
}

function sessionOf(stdout: string): string {
  return String(parseNdjson(stdout)[0]?.['session']);
}

/** Starts `nsed <args>` (with -o ndjson) and waits until its stdout shows `marker`; returns its session. */
async function streamUntil(rig: Rig, args: string[], marker = '"type":"round"') {
  const child = rig.spawn(args);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitForOutput(child, (o) => o.includes(marker));
  return { child, session: sessionOf(out) };
}

describe('nsed resume', () => {
  it('after kill -9 of an ask mid-stream, records the answer an uninterrupted run gives and clears pending_job', async () => {
    const reference = await slow.run(['ask', '-o', 'json', 'Design a rate limiter']);
    const expected = (JSON.parse(reference.stdout) as { content: string }).content;

    const { child, session: id } = await streamUntil(slow, ['ask', '-o', 'ndjson', 'Design a rate limiter']);
    child.kill('SIGKILL');
    await child.result;
    expect((await read(slow, id)).pending_job).toBeDefined();

    const r = await slow.run(['resume', '-s', id, '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { content: string }).content).toBe(expected);
    const saved = await read(slow, id);
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([expect.objectContaining({ content: expected, status: 'complete' })]);
  });

  it('after the job finished, takes the answer from /result', async () => {
    const { child, session: id } = await streamUntil(slow, ['ask', '-o', 'ndjson', '-p', 'fast', 'Name three queues'], '"type":"job"');
    child.kill('SIGKILL');
    await child.result;
    await new Promise((r) => setTimeout(r, 1500));
    const r = await slow.run(['resume', '-s', id, '-o', 'final']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^## /);
    expect((await read(slow, id)).pending_job).toBeUndefined();
  });

  it('with nothing pending exits 3 with a hint', async () => {
    const done = await slow.run(['ask', '-o', 'ndjson', '-p', 'passthrough', 'hi']);
    const r = await slow.run(['resume', '-s', sessionOf(done.stdout)]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/hint: /);
  });
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
            const text = await rig.run(['ask', '-p', 'deep', prompt]);
            expect(text.code, `drop-after=${n}: ${text.stderr}`).toBe(0);
            expect(text.stdout, `drop-after=${n}`).toBe(cleanText);
            expect(text.stderr).toMatch(/reconnecting \(attempt 1\)/);
            // The start POST is never sent again once its response began (docs/reliability.md #40, C8).
            expect(rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').length).toBe(1);
            const nd = await rig.run(['ask', '-p', 'deep', '-o', 'ndjson', prompt]);
            expect(nd.code).toBe(0);
            const events = parseNdjson(nd.stdout);
            expect(events.filter((e) => e['type'] === 'reconnect').length).toBe(1);
            expect(normalise(events), `drop-after=${n}`).toEqual(cleanEvents);
          } finally {
            await rig.close();
          }
        }),
      );
    }
  }, 120_000);
});

describe('automatic resume against a struggling orchestrator (reliability #39, #45, #46)', () => {
  it('retries a resume answered 503 after the Retry-After it asked for, then finishes', async () => {
    const rig = await makeRig({ roundMs: 0, faults: ['drop-after=5;times=1', 'resume:status=503;retry-after=1;times=1'] });
    try {
      const started = Date.now();
      const r = await rig.run(['ask', '-o', 'ndjson', 'Design a cache']);
      expect(r.code, r.stderr).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
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

describe('nsed inject from a second terminal', () => {
  it('lands in the running deliberation: the first stream shows it, the session holds it once', async () => {
    const { child: first, session: id } = await streamUntil(slower, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a distributed cache']);
    const second = await slower.run(['inject', '-s', id, '-o', 'final', 'Focus on memory safety over throughput']);
    const r1 = await first.result;
    expect(second.code, second.stderr).toBe(0);
    expect(r1.code, r1.stderr).toBe(0);
    expect(second.stderr).toMatch(/injected into deliberation \S+ at round \d+ \(sequence 1\)/);
    const events = parseNdjson(r1.stdout);
    const injections = events.filter((e) => e['type'] === 'injection');
    expect(injections).toEqual([expect.objectContaining({ message: 'Focus on memory safety over throughput', sequence: 1 })]);
    const finish = events.at(-1) as { content: string };
    expect(second.stdout.trimEnd()).toBe(finish.content);
    const saved = await read(slower, id);
    expect(saved.turns.filter((t) => t.kind === 'injection')).toEqual([
      expect.objectContaining({ role: 'user', content: 'Focus on memory safety over throughput', sequence: 1 }),
    ]);
    expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([expect.objectContaining({ status: 'complete', content: finish.content })]);
    expect(saved.pending_job).toBeUndefined();

    const late = await slower.run(['inject', '-s', id, 'too late']);
    expect(late.code).toBe(7);
    expect(late.stderr).toMatch(/nothing is running in session/);
  }, 30_000);

  it('--no-wait returns after the acknowledgement', async () => {
    const { child: first, session: id } = await streamUntil(slower, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a scheduler']);
    const r = await slower.run(['inject', '-s', id, '--no-wait', 'prefer fairness']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect((await first.result).code).toBe(0);
  }, 30_000);
});

describe('nsed inject against an orchestrator without the inject route', () => {
  it('falls back to the compat routing rule: same x-opencode-session, stream false, and prints the answer', async () => {
    const old = await makeRig({ roundMs: 600, withoutRoutes: ['inject'] });
    try {
      const { child: first, session: id } = await streamUntil(old, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a distributed cache']);
        const second = await old.run(['inject', '-s', id, '-o', 'final', 'Focus on memory safety over throughput']);
      const r1 = await first.result;
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/no inject route/);
      const chats = old.sim.requests.filter((q) => q.path === '/v1/chat/completions');
      expect(chats.length).toBe(2);
      expect(chats[1]?.headers['x-opencode-session']).toBe(chats[0]?.headers['x-opencode-session']);
      expect(chats[1]?.body).toMatchObject({ stream: false, messages: [{ role: 'user' }, { role: 'user', content: 'Focus on memory safety over throughput' }] });
      const events = parseNdjson(r1.stdout);
      expect(events.filter((e) => e['type'] === 'injection').length).toBe(1);
      expect(second.stdout.trimEnd()).toBe((events.at(-1) as { content: string }).content);
      const saved = await read(old, id);
      // Recorded by both terminals (the fallback without a sequence), merged into one.
      expect(saved.turns.filter((t) => t.kind === 'injection')).toEqual([
        expect.objectContaining({ content: 'Focus on memory safety over throughput', sequence: 1 }),
      ]);
      expect(saved.turns.filter((t) => t.role === 'assistant').length).toBe(1);
    } finally {
      await old.close();
    }
  }, 30_000);
});

describe('a running deliberation refuses a second turn, and can be cancelled', () => {
  it('continue while running exits 7 naming inject and resume; cancel ends the job and marks the turn', async () => {
    const { child: first, session: id } = await streamUntil(slower, ['ask', '-p', 'deep', '-o', 'ndjson', 'Design a ledger']);
    const cont = await slower.run(['continue', '-s', id, 'another question']);
    expect(cont.code).toBe(7);
    expect(cont.stderr).toMatch(/nsed inject/);
    expect(cont.stderr).toMatch(/nsed resume/);
    const cancel = await slower.run(['cancel', '-s', id]);
    expect(cancel.code, cancel.stderr).toBe(0);
    const r1 = await first.result;
    expect(r1.code).toBe(5);
    const saved = await read(slower, id);
    expect(saved.pending_job).toBeUndefined();
    const answers = saved.turns.filter((t) => t.role === 'assistant');
    expect(answers).toEqual([expect.objectContaining({ status: 'cancelled' })]);
    expect(saved.turns.filter((t) => t.role === 'user').length).toBe(1);
  }, 30_000);
});
