import { afterEach, describe, expect, it } from 'vitest';
import { ask } from '../../src/commands/ask.js';
import { cancel } from '../../src/commands/cancel.js';
import { continueCommand } from '../../src/commands/continue.js';
import { resume } from '../../src/commands/resume.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import type { Session } from '../../src/session/model.js';
import { buildChatRequest } from '../../src/turn/build-request.js';
import { startSession } from '../../src/turn/start-session.js';
import { contextRig, TURN_DEFAULTS, type ContextRig } from '../harness/context-rig.js';

const TURN = TURN_DEFAULTS;

// Commands run with their typed options against a Context the test built: no process, no argv.
let rig: ContextRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function askOnce(r: ContextRig, prompt: string): Promise<Session> {
  expect(await ask.run(parseCommandLine(ask, { stream: true, prompt: [prompt] }).options, r.ctx)).toBe(0);
  return r.store.read(await r.store.latest());
}

/** Starts a job the held simulator keeps running and points the session's marker at it. */
async function runningJob(r: ContextRig, session: Session): Promise<{ session: Session; jobId: string; stop(): void }> {
  const start = buildChatRequest(session, session.active_policy, { stream: true });
  if (start.kind !== 'chat') throw new Error('compat request expected');
  const stream = await r.conn.client.chatStream(start.body, { threadKey: start.threadKey });
  const jobId = stream.jobId ?? '';
  const user = session.turns.findLast((t) => t.role === 'user');
  const marked = await r.store.update(session.id, (s) => {
    s.pending_job = {
      job_id: jobId,
      turn: user?.id ?? '',
      path: 'compat',
      policy: s.active_policy,
      started: new Date().toISOString(),
    };
  });
  return { session: marked, jobId, stop: () => stream.abort() };
}

describe('commands run against a Context', () => {
  it('ask records a session with its answer', async () => {
    rig = await contextRig();
    const session = await askOnce(rig, 'Design a cache');
    expect(session.turns.map((t) => [t.role, t.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
  });

  it('resume of a job the orchestrator no longer knows exits 3 and clears the marker', async () => {
    rig = await contextRig();
    const session = await rig.store.update((await askOnce(rig, 'q')).id, (s) => {
      s.pending_job = {
        job_id: 'job-gone',
        turn: s.turns[0]?.id ?? '',
        path: 'compat',
        policy: s.active_policy,
        started: new Date().toISOString(),
      };
    });
    await expect(
      resume.run({ target: { kind: 'id', id: session.id }, gates: { flags: {}, file: undefined } }, rig.ctx),
    ).rejects.toMatchObject({
      code: 'not_found',
      exitCode: 3,
    });
    expect((await rig.store.read(session.id)).pending_job).toBeUndefined();
  });

  it('continue while a job runs is a conflict (exit 7) naming inject and resume; cancel then ends it', async () => {
    rig = await contextRig({ sim: { hold: true } });
    const { session: first } = await startSession(rig.ctx, {
      prompt: 'q',
      opts: TURN,
      orchestrator: rig.conn.orchestrator,
    });
    const job = await runningJob(rig, first);
    const target = { kind: 'id', id: first.id } as const;
    const cont = continueCommand.run(
      parseCommandLine(continueCommand, { stream: true, session: first.id, prompt: ['more'] }).options,
      rig.ctx,
    );
    await expect(cont).rejects.toMatchObject({
      code: 'conflict',
      exitCode: 7,
      hint: expect.stringMatching(/nsed inject.*nsed resume/),
    });
    expect(await cancel.run({ target }, rig.ctx)).toBe(0);
    const saved = await rig.store.read(first.id);
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([
      expect.objectContaining({ status: 'cancelled', job_id: job.jobId }),
    ]);
    expect(saved.turns.filter((t) => t.role === 'user')).toHaveLength(1);
    // The rig speaks -o ndjson: the acknowledgement is the one terminal event.
    expect(
      rig.mem.stdout.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([{ v: 1, seq: 1, type: 'cancelled', session: first.id, job_id: job.jobId }]);
    job.stop();
  });
});
