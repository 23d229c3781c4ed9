import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeToolKit } from './fixtures/tools.js';
import { instantClock, parseNdjson, useRig } from '../harness/rig.js';

/**
 * True states. Every state a session can be in is recorded as it happened and
 * listed by `sessions ls` (and accepted by `--state`); a request that never reached the
 * orchestrator leaves no session behind (docs/reliability.md #43).
 */

const rig = useRig();
/** Rounds that never end on their own: a job stays running until it is cancelled. */
const slow = useRig({ roundMs: 600_000 });

const ids = async (state: string): Promise<string[]> => {
  const r = await rig.run(['sessions', 'ls', '--state', state, '--ids']);
  expect(r.code).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
};

const sessionOf = (r: { stdout: string }): string => {
  const start = parseNdjson(r.stdout).find((e) => e['type'] === 'turn-start');
  return String(start?.['session']);
};

describe('true states in the store and the listing', () => {
  it('lists ok, running, interrupted, failed and cancelled sessions, each under its own --state', async () => {
    const ok = await rig.run(['ask', '-o', 'ndjson', '-p', 'fast', 'an answered question']);
    expect(ok.code).toBe(0);

    rig.sim.setFaults(['fail-at-round=1']);
    const failed = await rig.run(['ask', '-o', 'ndjson', '-p', 'fast', 'a failing question']);
    rig.sim.setFaults([]);
    expect(failed.code).toBe(5);

    // The stream stalls after two events (the job itself finishes on the simulator): while the
    // client waits the session is running; Ctrl-C then leaves it interrupted (docs/reliability.md #42).
    rig.sim.setFaults(['stall-after=2;stall-ms=600000']);
    const stalled = rig.start(['ask', '-o', 'ndjson', '-p', 'fast', 'a question cut short']);
    await stalled.output((out) => out.includes('"type":"job"'), 60_000);
    rig.sim.setFaults([]);
    const running = await ids('running');
    expect(running).toHaveLength(1);
    // What SIGINT does to the process (ask-exit-codes shows the real signal's exit 130).
    stalled.interrupt(130);
    const cut = await stalled.result;
    expect(cut.code).toBe(130);
    expect(sessionOf(cut)).toBe(running[0]);

    // Cancelled from a second terminal while its rounds are still going on.
    const live = slow.start(['ask', '-o', 'ndjson', '-p', 'fast', 'a question to cancel'], {
      env: { NSED_HOME: rig.home },
    });
    await live.output((out) => out.includes('"type":"job"'), 60_000);
    const cancel = await slow.run(['cancel', '--last'], { env: { NSED_HOME: rig.home } });
    expect(cancel.code).toBe(0);
    const cancelled = await live.result;
    expect(cancelled.code).not.toBe(0);

    expect(await ids('ok')).toEqual([sessionOf(ok)]);
    expect(await ids('failed')).toEqual([sessionOf(failed)]);
    expect(await ids('interrupted')).toEqual([sessionOf(cut)]);
    expect(await ids('cancelled')).toEqual([sessionOf(cancelled)]);
    expect(await ids('running')).toEqual([]);

    const listed = JSON.parse((await rig.run(['sessions', 'ls', '--json'])).stdout) as Array<{ state: string }>;
    expect(listed.map((s) => s.state).sort()).toEqual(['cancelled', 'failed', 'interrupted', 'ok']);
  }, 180_000);

  it('a request refused before it reached the orchestrator creates no session, so --last keeps the previous one (reliability #43)', async () => {
    const before = await rig.run(['ask', '-o', 'ndjson', '-p', 'fast', 'the last real question']);
    expect(before.code).toBe(0);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const count = async (): Promise<number> =>
      (await rig.run(['sessions', 'ls', '--ids'])).stdout.split('\n').filter((l) => l !== '').length;
    const sessions = await count();
    // The connect back-off is waited on an instant clock, which records the pauses the CLI chose.
    const clock = instantClock();
    const refused = await rig.run(['ask', '-p', 'fast', 'never sent'], {
      env: { NSED_URL: `http://127.0.0.1:${port}` },
      clock,
    });
    expect(refused.code).toBe(6);
    expect(clock.sleeps).toEqual([200, 400]);
    expect(refused.stderr).toMatch(/connection refused/);
    expect(await count()).toBe(sessions);

    // `continue` takes its user turn back the same way, and the tools it would have offered.
    const tools = await makeToolKit();
    const offer = await tools.offerOnlyFile();
    const cont = await rig.run(['continue', '--last', '--tools', offer, 'never sent either'], {
      env: { NSED_URL: `http://127.0.0.1:${port}` },
      clock,
    });
    expect(cont.code).toBe(6);
    expect((await rig.run(['sessions', 'ls', '--ids'])).stdout.split('\n')[0]).toBe(sessionOf(before));
    const shown = await rig.run(['sessions', 'show', sessionOf(before), '--json']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('the last real question');
    expect(shown.stdout).not.toContain('never sent either');
    const file = JSON.parse(await readFile(join(rig.home, 'sessions', `${sessionOf(before)}.json`), 'utf8')) as {
      tools?: unknown;
      claim?: unknown;
    };
    expect(file.tools).toBeUndefined();
    // Nor does its turn lease outlive it: the next turn is not refused as busy.
    expect(file.claim).toBeUndefined();
    const next = await rig.run(['continue', '--last', '-o', 'final', 'sent this time']);
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
  }, 120_000);
});
