// What a person at a terminal sees of the cost as it becomes known (docs/ndjson.md §4d): the
// real CLI on a pseudo-terminal, its bytes drawn by a terminal emulator. An orchestrator without
// /resume (its first answer 404) has nsed follow the native job stream, whose `job_complete`
// carries the job's totals: a `usage` event before the answer. The job is held until that stream
// is attached (so its end is on it), and the reads after it (`/details`) are held by a proxy, so
// the status row stays on the screen, with the cost, for as long as the test looks.
import { describe, expect, it, onTestFinished } from 'vitest';
import { startHoldingProxy } from '../harness/holding-proxy.js';
import { testRig } from '../harness/rig.js';
import { HAS_PTY, NO_PTY, onScreen, texts, type ScreenState } from '../harness/screen.js';

const SPINNER = /[\u2800-\u28ff] \S/;
const COST = /· \$0\.\d+(?: \(estimated\))? ·/;

/** `-o final` on a terminal (the answer piped), on the native path, with `/details` held. */
async function heldAtTheEnd(faults: string[]) {
  const rig = await testRig({ hold: true, faults: ['resume:status=404;times=1', ...faults] });
  const proxy = await startHoldingProxy(rig.sim.url, 'hold-headers', (seen) => /\/details$/.test(seen.url));
  // When the test ends, whatever the proxy still holds is let go and the proxy closed.
  onTestFinished(async () => {
    proxy.release();
    await proxy.close();
  });
  const run = onScreen(['ask', '--agents', 'CortexA,CortexB', '-o', 'final', 'Plan the database migration'], {
    columns: 79,
    env: { NSED_HOME: rig.home, NSED_URL: proxy.url },
    stdout: 'pipe',
    live: SPINNER,
  });
  const job = await rig.sim.control.nextJob();
  await rig.sim.control.attached(job);
  rig.sim.control.release(job);
  // The job has ended and its stream is read: the answer's text put the row in its last phase.
  await proxy.started;
  const statusRow = (s: ScreenState): string | undefined =>
    s.rows.find((r) => SPINNER.test(r.text) && r.text.includes('consensus'))?.text;
  let row = '';
  await run.until('the status row after the job ended', (s) => (row = statusRow(s) ?? '') !== '');
  return { rig, proxy, run, row: () => row, statusRow };
}

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'the cost on the status row' : NO_PTY, () => {
  it('shows what the job reported it cost (· $0.0…) once the usage event says it, and the row leaves nothing when the run ends', async () => {
    const { proxy, run, statusRow } = await heldAtTheEnd([]);
    let row = '';
    await run.until('the cost on the status row', (s) => COST.test((row = statusRow(s) ?? '')));
    expect(row).toMatch(/^[\u2800-\u28ff] consensus · round \d+\/\d+ · \d+s · \$0\.\d+ · /);
    proxy.release();
    const r = await run.result;
    expect(r.code, texts(r.rows).join('\n')).toBe(0);
    expect(r.problems).toEqual([]);
    expect(r.rows.filter((x) => SPINNER.test(x.text))).toEqual([]);
  });

  it('says nothing of a cost the server does not report: no $ on the row, never $0 (reliability #250)', async () => {
    const { proxy, run, row } = await heldAtTheEnd(['all:meter=none']);
    expect(row()).toMatch(/^[\u2800-\u28ff] consensus · round \d+\/\d+ · \d+s/);
    expect(row()).not.toContain('$');
    proxy.release();
    const r = await run.result;
    expect(r.code, texts(r.rows).join('\n')).toBe(0);
    expect(r.problems).toEqual([]);
    expect(texts(r.rows).join('\n')).not.toContain('$');
  });
});
