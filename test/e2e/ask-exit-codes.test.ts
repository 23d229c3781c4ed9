import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESUME_ATTEMPTS } from '../../src/turn/follow/reconnect.js';
import { instantClock, makeRig, parseNdjson, waitForOutput, useRig } from '../harness/rig.js';

const rig = useRig();
afterEach(() => {
  rig.sim.setFaults([]);
});

const session = (id: string): Promise<Record<string, unknown>> => rig.session(id);

async function newestSession(): Promise<Record<string, unknown>> {
  const names = (await readdir(join(rig.home, 'sessions'))).filter((n) => n.endsWith('.json'));
  const all = await Promise.all(names.map((n) => session(n.replace(/\.json$/, ''))));
  return all.sort((a, b) => String(b['created']).localeCompare(String(a['created'])))[0] as Record<string, unknown>;
}

describe('exit codes of nsed ask', () => {
  // The CLI's waits (a Retry-After, the reconnect back-off) go through an instant clock that
  // records them: `sleeps` is what the CLI chose to wait, or undefined where that is not the point.
  it.each<[string, string[], string[], number, RegExp, number[] | undefined]>([
    ['a bad flag exits 2 (usage)', ['ask', '--bogus', 'q'], [], 2, /Unknown argument: bogus/, []],
    ['an unknown output mode exits 2', ['ask', '-o', 'xml', 'q'], [], 2, /Invalid values/, []],
    ['an unknown policy exits 3 (reliability #48)', ['ask', '-p', 'no-such-policy', 'q'], [], 3, /no-such-policy/, []],
    ['a 503 on start exits 5 without a retry (reliability #46)', ['ask', 'q'], ['status=503'], 5, /503/, []],
    [
      'a 429 on start exits 5 and says how long to wait (reliability #45)',
      ['ask', 'q'],
      ['status=429;retry-after=1'],
      5,
      /429/,
      // Each refusal proves nothing started, so the start is sent again after the second asked for.
      [1000, 1000, 1000],
    ],
    [
      'a chunk that stays malformed on every resume exits 5 (reliability #17)',
      ['ask', 'q'],
      ['all:malformed-at=5'],
      5,
      /malformed chunk at event 5/,
      undefined,
    ],
    [
      'a failed deliberation exits 5 (reliability #19)',
      ['ask', 'q'],
      ['fail-at-round=1'],
      5,
      /deliberation failed/,
      undefined,
    ],
  ])('%s', async (_name, args, faults, code, stderr, sleeps) => {
    rig.sim.setFaults(faults);
    const clock = instantClock();
    const r = await rig.run(args, { clock });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(stderr);
    expect(r.stderr).toMatch(/^nsed: /m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    if (sleeps !== undefined) expect(clock.sleeps).toEqual(sleeps);
  });

  it('an NDJSON run that fails before its turn begins still ends with one error event', async () => {
    for (const [args, code] of [
      [['continue', '-s', 'no-such-session', '-o', 'ndjson', 'q'], 3],
      [['ask', '-o', 'ndjson', '--agents', 'OnlyOne', 'q'], 2],
    ] as const) {
      const r = await rig.run([...args]);
      expect(r.code).toBe(code);
      expect(parseNdjson(r.stdout)).toEqual([
        expect.objectContaining({ v: 1, seq: 1, type: 'error', exit_code: code }),
      ]);
    }
  });

  it('connection refused exits 6 and names the host (reliability #43)', async () => {
    const clock = instantClock();
    const r = await rig.run(['ask', 'q'], { env: { NSED_URL: 'http://127.0.0.1:9' }, clock });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/127\.0\.0\.1:9/);
    // Nothing reached the server, so the connect was tried again after the back-off's pauses.
    expect(clock.sleeps).toEqual([200, 400]);
  });

  it('a 401 exits 4 and never echoes the token (reliability #47)', async () => {
    const locked = await makeRig({ token: 'sim-secret-token' });
    try {
      const r = await locked.run(['ask', 'q'], { env: { NSED_TOKEN: 'wrong-canary-token' } });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/authentication failed/);
      expect(r.stderr + r.stdout).not.toContain('wrong-canary-token');
    } finally {
      await locked.close();
    }
  });

  it('a stream that closes without [DONE] on every try is settled by /result, not resumed forever (reliability #26)', async () => {
    const reference = parseNdjson((await rig.run(['ask', '-o', 'ndjson', 'Design a cache'])).stdout);
    rig.sim.setFaults(['all:eof-without-done']);
    const r = await rig.run(['ask', '-o', 'ndjson', 'Design a cache']);
    expect(r.code, r.stderr).toBe(0);
    const events = parseNdjson(r.stdout);
    // The job had finished when its stream closed: /result says so, and no resume is needed.
    expect(events.filter((e) => e['type'] === 'reconnect')).toEqual([]);
    const content = (reference.at(-1) as { content: string }).content;
    expect(events.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'stop', content });
    expect(
      events
        .filter((e) => e['type'] === 'text')
        .map((e) => e['text'])
        .join(''),
    ).toBe(content);
    const saved = await newestSession();
    expect((saved['turns'] as Array<Record<string, unknown>>).at(-1)).toMatchObject({
      role: 'assistant',
      status: 'complete',
      content,
    });
    expect(saved['pending_job']).toBeUndefined();
  });

  it('an idle stall exits 124 once resuming does not help (reliability #28)', async () => {
    // The stall outlasts any test, so only the CLI's own idle timer can end the turn.
    rig.sim.setFaults(['all:stall-ms=600000;stall-after=3']);
    // The back-off between resumes is the CLI's choice, recorded by the instant clock: one per resume.
    const clock = instantClock();
    const r = await rig.run(['ask', '--idle-timeout', '0.3', 'Design a cache'], { clock });
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(/idle-timeout/);
    expect(clock.sleeps).toHaveLength(MAX_RESUME_ATTEMPTS);
  });

  it('--timeout bounds the whole turn with exit 124 (reliability #52)', async () => {
    rig.sim.setFaults(['stall-ms=600000;stall-after=2']);
    const r = await rig.run(['ask', '--timeout', '0.5', 'Design a cache']);
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(/--timeout/);
  });

  it('the process exits with the code the command returned (usage 2, server 5, network 6)', async () => {
    rig.sim.setFaults(['status=503']);
    const [usage, server, network] = await Promise.all([
      rig.runProcess(['ask', '--bogus', 'q']),
      rig.runProcess(['ask', 'q']),
      rig.runProcess(['ask', 'q'], { env: { NSED_URL: 'http://127.0.0.1:9' } }),
    ]);
    expect([usage.code, server.code, network.code]).toEqual([2, 5, 6]);
    expect(server.stderr).toMatch(/^nsed: .*503/m);
  });
});

describe('signals mid-stream, through a real process (held deliberations)', () => {
  const held = useRig({ hold: true });

  /** Starts `nsed <args>`, lets the held job run `phases` phases, and waits until `marker` shows. */
  async function midStream(args: string[], marker: string, phases = 1) {
    const child = held.spawn(args);
    const job = await held.sim.control.nextJob();
    held.sim.control.release(job, phases);
    await waitForOutput(child, (out) => out.includes(marker));
    return { child, job };
  }

  it('SIGINT mid-stream exits 130, saves the partial answer and keeps pending_job (reliability #42)', async () => {
    const { child, job } = await midStream(['ask', '-o', 'ndjson', 'Design a cache'], '"type":"round"');
    child.kill('SIGINT');
    const r = await child.result;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/hint: nsed resume -s \S+/);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'error', exit_code: 130 });
    const saved = await held.session(String(events[0]?.['session']));
    expect((saved['turns'] as Array<Record<string, unknown>>).at(-1)).toMatchObject({
      role: 'assistant',
      status: 'interrupted',
    });
    expect(saved['pending_job']).toMatchObject({ job_id: job });
    expect(held.sim.control.job(job)).toMatchObject({ ended: false });
  });

  it('SIGHUP (a closed terminal) detaches like Ctrl-C, exit 129 with the partial saved (reliability #71)', async () => {
    const { child } = await midStream(['ask', '-o', 'ndjson', 'Design a cache'], '"type":"round"');
    child.kill('SIGHUP');
    const r = await child.result;
    expect(r.code).toBe(129);
    const saved = await held.session(String(parseNdjson(r.stdout)[0]?.['session']));
    expect((saved['turns'] as Array<Record<string, unknown>>).at(-1)).toMatchObject({ status: 'interrupted' });
    expect(saved['pending_job']).toBeDefined();
  });

  it('SIGTERM mid-stream exits 143 (reliability #71)', async () => {
    // Text mode notes a round once it is scored: after its second phase.
    const { child } = await midStream(['ask', 'Design a cache'], 'round 1/', 2);
    child.kill('SIGTERM');
    const r = await child.result;
    expect(r.code).toBe(143);
  });
});

describe('a busy orchestrator', () => {
  it('a first request refused with 429 and Retry-After, and no job id, is sent again and answered (reliability #45)', async () => {
    rig.sim.setFaults(['status=429;retry-after=1;times=1']);
    const before = rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').length;
    const clock = instantClock();
    const r = await rig.run(['ask', '-p', 'fast', 'a busy question'], { clock });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/429/);
    expect(rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').length - before).toBe(2);
    // The second asked for, waited on the CLI's clock before the start was sent again.
    expect(clock.sleeps).toEqual([1000]);
  });
});
