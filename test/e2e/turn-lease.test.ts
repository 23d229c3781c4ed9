import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import { parseNdjson, type RunResult, useRig } from '../harness/rig.js';

/**
 * The turn lease: one turn at a time per session, decided in one locked step
 * before the request leaves: real processes where they race or die (kill -9), in-process for
 * the turns around them. Timing is driven by the simulator: its
 * deliberations wait at their first phase boundary until the test releases them, so "still
 * running" is a fact the test sets, not a race against the clock.
 */

const rig = useRig();
afterAll(async () => {
  rig.sim.control.releaseAll();
});

const file = (id: string): string => join(rig.home, 'sessions', `${id}.json`);
const read = async (id: string): Promise<Session> => JSON.parse(await readFile(file(id), 'utf8')) as Session;

/** Resolves with the id of the next deliberation that waits at a phase boundary. */
function nextParked(): Promise<string> {
  return new Promise((resolve) => {
    const off = rig.sim.control.on('parked', (jobId) => {
      off();
      resolve(jobId);
    });
  });
}

async function newSession(): Promise<string> {
  rig.sim.control.releaseAll();
  const first = await rig.run(['ask', '-p', 'fast', '-o', 'ndjson', 'Design a cache']);
  expect(first.code, first.stderr).toBe(0);
  return String(parseNdjson(first.stdout)[0]?.['session']);
}

/** Resolves with the first `n` results, in the order the processes exit. */
function firstExits(results: Array<Promise<RunResult>>, n: number): Promise<RunResult[]> {
  const done: RunResult[] = [];
  return new Promise((resolve) => {
    for (const r of results) {
      void r.then((x) => {
        done.push(x);
        if (done.length === n) resolve([...done]);
      });
    }
  });
}

describe('one turn at a time per session', () => {
  it('8 parallel continues: exactly one runs, seven exit 7 with the inject/resume hint and write nothing', async () => {
    const id = await newSession();
    const before = await read(id);
    rig.sim.control.hold = true;
    const children = Array.from({ length: 8 }, (_, k) =>
      rig.spawn(['continue', '-s', id, '-o', 'ndjson', `follow-up ${k}`], { timeoutMs: 120_000 }),
    );
    const results = children.map((c) => c.result);
    // The winner's job is held open, so all seven others meet a running turn however slow they are.
    const losers = await firstExits(results, 7);
    rig.sim.control.releaseAll();
    const all = await Promise.all(results);

    expect(losers.map((r) => r.code)).toEqual(Array(7).fill(7));
    for (const r of losers) {
      expect(r.stderr).toMatch(
        /^nsed: session \S+ has (a deliberation still running|a turn being sent by another nsed process)/m,
      );
      expect(r.stderr).toMatch(/nsed inject -s/);
      expect(r.stderr).toMatch(/nsed resume -s/);
      expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', code: 'conflict', exit_code: 7 });
    }
    const winners = all.filter((r) => r.code === 0);
    expect(winners.length).toBe(1);
    const winner = winners[0] as RunResult;
    const asked = String((parseNdjson(winner.stdout).at(-1) as { content: string }).content);

    const after = await read(id);
    const added = after.turns.slice(before.turns.length);
    expect(added.map((t) => `${t.role}/${t.kind}/${t.status}`)).toEqual([
      'user/message/complete',
      'assistant/message/complete',
    ]);
    expect(added[1]?.content).toBe(asked);
    expect(after.claim).toBeUndefined();
    expect(after.pending_job).toBeUndefined();
    // One POST for the first ask, one for the winner: no loser ever reached the orchestrator.
    expect(rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').length).toBeGreaterThanOrEqual(2);
    const chatsForSession = rig.sim.requests.filter(
      (q) => q.path === '/v1/chat/completions' && q.headers['x-opencode-session'] === before.conversation_id,
    );
    expect(chatsForSession.length).toBe(2);
  }, 180_000);

  it('kill -9 between the POST and the first byte: the dead claim is reconciled through GET /deliberations, then released', async () => {
    const id = await newSession();
    const before = await read(id);
    rig.sim.control.hold = true;
    // --no-stream: the answer (and with it the job id) comes only when the deliberation ends,
    // so while it is held the process has sent the POST and seen no byte of the response.
    const parked = nextParked();
    const victim = rig.spawn(['continue', '-s', id, '--no-stream', 'a question lost in flight'], {
      timeoutMs: 120_000,
    });
    await parked;
    victim.kill('SIGKILL');
    await victim.result;
    const orphan = await read(id);
    expect(orphan.claim).toMatchObject({ pid: victim.pid, host: os.hostname() });
    expect(orphan.pending_job).toBeUndefined();

    // The next continue finds the job the dead process started, adopts it and refuses: it runs.
    const second = await rig.run(['continue', '-s', id, 'another question']);
    expect(second.code, second.stderr).toBe(7);
    expect(second.stderr).toMatch(/has a deliberation still running \(oc-/);
    const adopted = await read(id);
    expect(adopted.claim).toBeUndefined();
    expect(adopted.pending_job).toMatchObject({
      job_id: expect.stringMatching(new RegExp(`^oc-${before.conversation_id}-\\d+`)),
      turn: orphan.turns.at(-1)?.id,
    });

    // Its answer is recovered, and the session is free again.
    rig.sim.control.releaseAll();
    const resumed = await rig.run(['resume', '-s', id, '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const next = await rig.run(['continue', '-s', id, '-p', 'fast', 'and now?']);
    expect(next.code, next.stderr).toBe(0);
    const after = await read(id);
    expect(after.turns.slice(before.turns.length).map((t) => `${t.role}/${t.status}`)).toEqual([
      'user/complete',
      'assistant/complete',
      'user/complete',
      'assistant/complete',
    ]);
  }, 180_000);

  it('a dead claim whose request never reached the orchestrator is released, and the turn goes ahead', async () => {
    const id = await newSession();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const s = await read(id);
    s.claim = {
      turn: 'tlost0000000',
      pid: gone,
      host: os.hostname(),
      token: 'deadbeefdeadbeef',
      since: new Date().toISOString(),
    };
    await writeFile(file(id), JSON.stringify(s));
    const r = await rig.run(['continue', '-s', id, '-p', 'fast', 'go on']);
    expect(r.code, r.stderr).toBe(0);
    const after = await read(id);
    expect(after.claim).toBeUndefined();
    expect(after.turns.at(-1)).toMatchObject({ role: 'assistant', status: 'complete' });
  }, 120_000);

  it('a live claim (a turn still being sent) refuses a second turn with exit 7', async () => {
    const id = await newSession();
    const s = await read(id);
    s.claim = {
      turn: 'tlive0000000',
      pid: process.pid,
      host: os.hostname(),
      token: 'feedfacefeedface',
      since: new Date().toISOString(),
    };
    await writeFile(file(id), JSON.stringify(s));
    const r = await rig.run(['continue', '-s', id, 'go on']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/a turn being sent by another nsed process \(pid \d+\)/);
    expect((await read(id)).turns.length).toBe(s.turns.length);
  });
});
