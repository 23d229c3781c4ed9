import { afterAll, describe, expect, it } from 'vitest';
import { parseNdjson, useRig } from '../harness/rig.js';

/**
 * `inject --no-wait` and `cancel` speak every output mode: one terminal event
 * with -o ndjson, one object with -o json, on success as on failure. The deliberation they act
 * on is held open by the simulator, so it is running for as long as the test needs.
 */

const rig = useRig();
afterAll(async () => {
  rig.sim.control.releaseAll();
});

/** Starts an ask whose deliberation stays running; resolves once its job id is recorded. */
async function running() {
  rig.sim.control.hold = true;
  const child = rig.start(['ask', '-p', 'fast', '-o', 'ndjson', 'Design a cache']);
  await child.output((o) => o.includes('"type":"job"'), 60_000);
  const events = parseNdjson(
    child.stdout.text
      .split('\n')
      .filter((l) => l.includes('"type":"turn-start"') || l.includes('"type":"job"'))
      .join('\n'),
  );
  return { child, session: String(events[0]?.['session']), job: String(events[1]?.['job_id']) };
}

describe('inject --no-wait and cancel in every output mode', () => {
  it('-o ndjson: exactly one line each, the terminal event injected or cancelled', async () => {
    const { child, session, job } = await running();
    const injected = await rig.run(['inject', '-s', session, '--no-wait', '-o', 'ndjson', 'Keep it small']);
    expect(injected.code, injected.stderr).toBe(0);
    expect(parseNdjson(injected.stdout)).toEqual([
      { v: 1, seq: 1, type: 'injected', session, job_id: job, sequence: 1, round: 1 },
    ]);

    const cancelled = await rig.run(['cancel', '-s', session, '-o', 'ndjson']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(parseNdjson(cancelled.stdout)).toEqual([{ v: 1, seq: 1, type: 'cancelled', session, job_id: job }]);
    rig.sim.control.releaseAll();
    expect((await child.result).code).toBe(9);

    // Nothing running any more: one error event, exit 7, from both.
    for (const args of [['inject', '--no-wait', 'late'], ['cancel']]) {
      const r = await rig.run([...args, '-s', session, '-o', 'ndjson']);
      expect(r.code).toBe(7);
      expect(parseNdjson(r.stdout)).toEqual([
        expect.objectContaining({ type: 'error', code: 'conflict', exit_code: 7 }),
      ]);
    }
  }, 180_000);

  it('-o json: one object each, the acknowledgement (sequence, round) and the cancelled job', async () => {
    const { child, session, job } = await running();
    const injected = await rig.run(['inject', '-s', session, '--no-wait', '-o', 'json', 'Keep it small']);
    expect(injected.code, injected.stderr).toBe(0);
    expect(JSON.parse(injected.stdout)).toEqual({ type: 'injected', session, job_id: job, sequence: 1, round: 1 });
    expect(injected.stdout.trim().split('\n')).toHaveLength(1);

    const cancelled = await rig.run(['cancel', '-s', session, '-o', 'json']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toEqual({ type: 'cancelled', session, job_id: job });
    rig.sim.control.releaseAll();
    expect((await child.result).code).toBe(9);
  }, 180_000);

  it('text: the acknowledgement on stderr; final: nothing (there is no answer); stdout empty in both', async () => {
    const { child, session, job } = await running();
    const injected = await rig.run(['inject', '-s', session, '--no-wait', 'Keep it small']);
    expect(injected.code, injected.stderr).toBe(0);
    expect(injected.stdout).toBe('');
    expect(injected.stderr).toContain(`injected into deliberation ${job} at round 1 (sequence 1)`);
    const quiet = await rig.run(['inject', '-s', session, '--no-wait', '-o', 'final', 'And cheap']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).not.toContain('injected into');
    const cancelled = await rig.run(['cancel', '-s', session]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe('');
    expect(cancelled.stderr).toContain(`cancelled deliberation ${job} of session ${session}`);
    rig.sim.control.releaseAll();
    expect((await child.result).code).toBe(9);
  }, 180_000);
});
