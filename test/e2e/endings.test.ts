import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_RESUME_ATTEMPTS } from '../../src/turn/follow/reconnect.js';
import { instantClock, parseNdjson, type Rig, useRig } from '../harness/rig.js';

/**
 * Endings through the CLI (in-process) against `nsed sim`: the simulator ends
 * completed, failed and cancelled jobs with a bare [DONE] or a close (fault `end=`), and nsed
 * records what GET /result says, with the exit code of that outcome.
 */

interface Saved {
  pending_job?: { job_id: string };
  turns: Array<{ role: string; status: string; content: string }>;
}

const fast = useRig();
// Deliberations the simulator holds at a phase boundary, so the cancel from a second terminal
// lands while the job runs, however slow the machine.
const held = useRig();
afterAll(async () => {
  held.sim.control.releaseAll();
});

const read = async (rig: Rig, id: string): Promise<Saved> =>
  JSON.parse(await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8')) as Saved;
const sessionOf = (stdout: string): string => String(parseNdjson(stdout)[0]?.['session']);
const lastAnswer = (s: Saved) => s.turns.filter((t) => t.role === 'assistant').at(-1);

describe.each(['bare-done', 'close'])('a job whose streams end with end=%s', (ending) => {
  it('completed: the answer, exit 0', async () => {
    fast.sim.setFaults([]);
    const reference = parseNdjson((await fast.run(['ask', '-p', 'fast', '-o', 'ndjson', 'Name three queues'])).stdout);
    fast.sim.setFaults([`end=${ending}`]);
    const r = await fast.run(['ask', '-p', 'fast', '-o', 'ndjson', 'Name three queues']);
    fast.sim.setFaults([]);
    expect(r.code, r.stderr).toBe(0);
    const content = (reference.at(-1) as { content: string }).content;
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'finish', finish_reason: 'stop', content });
    const saved = await read(fast, sessionOf(r.stdout));
    expect(lastAnswer(saved)).toMatchObject({ status: 'complete', content });
    expect(saved.pending_job).toBeUndefined();
  });

  it('failed: recorded failed, exit 5, NDJSON error code server', async () => {
    fast.sim.setFaults([`end=${ending};fail-at-round=1`]);
    const r = await fast.run(['ask', '-o', 'ndjson', 'This one fails']);
    fast.sim.setFaults([]);
    expect(r.code, r.stderr).toBe(5);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({
      type: 'error',
      code: 'server',
      exit_code: 5,
      message: expect.stringMatching(/quorum lost/),
    });
    const saved = await read(fast, sessionOf(r.stdout));
    expect(lastAnswer(saved)).toMatchObject({ status: 'failed' });
    expect(saved.pending_job).toBeUndefined();
  });

  it('cancelled from a second terminal: recorded cancelled, exit 9, NDJSON error code cancelled', async () => {
    held.sim.setFaults([`end=${ending}`]);
    held.sim.control.hold = true;
    const first = held.start(['ask', '-p', 'deep', '-o', 'ndjson', 'Rewrite the billing service']);
    await first.output((o) => o.includes('"type":"job"'), 60_000);
    const id = sessionOf(first.stdout.text);
    const cancel = await held.run(['cancel', '-s', id]);
    held.sim.control.releaseAll();
    expect(cancel.code, cancel.stderr).toBe(0);
    const r = await first.result;
    held.sim.setFaults([]);
    expect(r.code, r.stderr).toBe(9);
    expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', code: 'cancelled', exit_code: 9 });
    const saved = await read(held, id);
    expect(lastAnswer(saved)).toMatchObject({ status: 'cancelled' });
    expect(saved.pending_job).toBeUndefined();
  }, 120_000);
});

describe('no answer given up (reliability #46, C6)', () => {
  it('resume answering 503 every time: exit 6, turn interrupted with its marker; nsed resume then recovers the answer', async () => {
    fast.sim.setFaults([]);
    const reference = parseNdjson((await fast.run(['ask', '-o', 'ndjson', 'Design a rate limiter'])).stdout);
    fast.sim.setFaults(['chat:drop-after=4;times=1', 'resume:status=503;times=5']);
    // The back-off before each resume is the CLI's choice: recorded by the instant clock, not waited.
    const clock = instantClock();
    const r = await fast.run(['ask', '-o', 'ndjson', 'Design a rate limiter'], { clock });
    expect(r.code, r.stderr).toBe(6);
    expect(clock.sleeps).toHaveLength(MAX_RESUME_ATTEMPTS);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'network', exit_code: 6 });
    expect(r.stderr).toMatch(/hint: nsed resume -s /);
    const id = sessionOf(r.stdout);
    const cut = await read(fast, id);
    expect(cut.pending_job).toBeDefined();
    expect(lastAnswer(cut)).toMatchObject({ status: 'interrupted' });

    const again = await fast.run(['resume', '-s', id, '-o', 'json']);
    fast.sim.setFaults([]);
    expect(again.code, again.stderr).toBe(0);
    const content = (reference.at(-1) as { content: string }).content;
    expect((JSON.parse(again.stdout) as { content: string }).content).toBe(content);
    const saved = await read(fast, id);
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([
      expect.objectContaining({ status: 'complete', content }),
    ]);
  }, 120_000);

  it('resume with nothing running exits 7, as inject and cancel do', async () => {
    fast.sim.setFaults([]);
    const done = await fast.run(['ask', '-p', 'fast', '-o', 'ndjson', 'A quick one']);
    const id = sessionOf(done.stdout);
    for (const args of [['resume'], ['inject', 'more'], ['cancel']]) {
      const r = await fast.run([...args, '-s', id]);
      expect(r.code, `${args[0] ?? ''}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toMatch(/^nsed: nothing is running in session /m);
    }
  });
});
