import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, waitForOutput, useRig } from '../harness/rig.js';

/**
 * A deliberation started with --sim lives in its owner's process. A second
 * terminal reaches it there while the owner lives, and is told plainly once the owner is gone.
 */

const rig = useRig();
// No NSED_URL: the sessions run on the owner's in-process simulator, whose rounds never end on
// their own, so the job is certainly still running when the second terminal acts.
let env: Record<string, string | undefined>;

beforeAll(async () => {
  env = { NSED_URL: undefined, NSED_SIM_ROUND_MS: '600000' };
});

async function session(id: string): Promise<{
  pending_job?: { sim?: { url: string; pid: number } };
  turns: Array<{ kind: string; content: string; status: string }>;
}> {
  return JSON.parse(await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8')) as never;
}

describe('--sim sessions from a second terminal', () => {
  it("inject and cancel reach the owner's in-process simulator while the owner runs", async () => {
    const owner = rig.spawn(['ask', '--sim', '-p', 'deep', '-o', 'ndjson', 'Plan the migration'], {
      env,
      timeoutMs: 120_000,
    });
    await waitForOutput(owner, (out) => out.includes('"type":"job"'), 60_000);

    const inject = await rig.run(['inject', '--last', '--no-wait', 'Keep the old API for a year'], { env });
    expect(inject.stderr).not.toMatch(/nothing is running/);
    expect(inject.code).toBe(0);

    const cancel = await rig.run(['cancel', '--last'], { env });
    expect(cancel.code).toBe(0);
    const ended = await owner.result;
    const events = parseNdjson(ended.stdout);
    const id = String(events.find((e) => e['type'] === 'turn-start')?.['session']);
    expect(events.at(-1)?.['type']).toBe('error');
    const s = await session(id);
    expect(s.turns.some((t) => t.kind === 'injection' && t.content === 'Keep the old API for a year')).toBe(true);
    expect(s.turns.at(-1)?.status).toBe('cancelled');
  }, 180_000);

  it('once the owner has exited, says exactly that, exit 7', async () => {
    const owner = rig.spawn(['ask', '--sim', '-p', 'deep', '-o', 'ndjson', 'Plan the rollout'], {
      env,
      timeoutMs: 120_000,
    });
    await waitForOutput(owner, (out) => out.includes('"type":"job"'), 60_000);
    owner.kill('SIGKILL');
    await owner.result;

    // tool-result too: a fresh simulator of its own would only answer that the job is unknown.
    const late = [
      ['inject', '--last', 'too late'],
      ['cancel', '--last'],
      ['resume', '--last'],
      ['tool-result', '--last', 'call_1', 'v'],
    ];
    for (const args of late) {
      const r = await rig.run(args, { env });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(
        new RegExp(
          `^nsed: nothing is running: deliberation \\S+ ran on the in-process simulator of process ${owner.pid} \\(--sim\\), which has exited$`,
          'm',
        ),
      );
    }
  }, 180_000);
});
