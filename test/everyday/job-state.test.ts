import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { openFileStore } from '../../src/session/file-store.js';
import type { Session } from '../../src/session/model.js';
import { chunk } from '../api/fixtures.js';
import { runCliInProcess } from '../harness/cli.js';
import { testRig, type Rig } from '../harness/rig.js';
import { sseHead, startServer, type ScriptedServer } from '../harness/scripted-server.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

// One reading of GET /result: a job the orchestrator reports `cancelled` outright is
// cancelled everywhere nsed asks, so `continue` records it and goes on instead of waiting on a
// job that will never run again (docs/reliability.md #46: a pending marker is settled from /result).

const OLD = 'oc-thread-c-1700000000000';
const NEXT = 'oc-thread-c-1700000001000';
const ev = (json: string): string => `data: ${json}\n\n`;

const json = (res: ServerResponse, status: number, value: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

let server: ScriptedServer | undefined;
let rig: Rig | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a pending job whose /result says {"status":"cancelled"}', () => {
  it('continue records the turn cancelled, frees the session and asks the next question', async () => {
    const s = await startServer((_req, res, seen) => {
      if (seen.method === 'GET' && seen.url === `/deliberation/${OLD}/result`)
        return json(res, 200, { job_id: OLD, status: 'cancelled', result: null });
      if (seen.method === 'POST' && seen.url === '/v1/chat/completions') {
        sseHead(res, { 'x-nsed-session-id': NEXT });
        return res.end(
          ev(chunk({ role: 'assistant' })) +
            ev(chunk({ content: 'Next answer.' })) +
            ev(chunk({}, 'stop')) +
            ev('[DONE]'),
        );
      }
      return json(res, 404, { error: 'not found' });
    });
    server = s;
    const home = await tempHome();
    await openFileStore(home).create(
      session('20261201-0000c0de', {
        orchestrator: s.url,
        active_policy: 'nsed:fast',
        conversation_id: 'thread-c',
        turns: [turn('u1', { content: 'first question' })],
        pending_job: {
          job_id: OLD,
          turn: 'u1',
          path: 'compat',
          policy: 'nsed:fast',
          started: '2026-01-01T00:00:00.000Z',
        },
      }),
    );
    const r = await runCliInProcess(['continue', '-s', '20261201-0000c0de', '-o', 'final', 'next'], {
      env: { NSED_HOME: home, NO_COLOR: '1' },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Next answer.\n');
    const saved = await openFileStore(home).read('20261201-0000c0de');
    expect(saved.pending_job).toBeUndefined();
    const assistants = saved.turns.filter((t): t is Session['turns'][number] => t.role === 'assistant');
    expect(assistants.map((t) => [t.job_id, t.status, t.content])).toEqual([
      [OLD, 'cancelled', ''],
      [NEXT, 'complete', 'Next answer.'],
    ]);
    // The cancelled turn is not sent back as part of the conversation.
    const chat = s.seen.find((q) => q.url === '/v1/chat/completions');
    const sent = (JSON.parse(chat?.body ?? '{}') as { messages: Array<{ role: string }> }).messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'user']);
  });

  it('resume records it cancelled and exits with the cancelled code', async () => {
    const s = await startServer((_req, res, seen) =>
      seen.url === `/deliberation/${OLD}/result`
        ? json(res, 200, { job_id: OLD, status: 'cancelled', result: null })
        : json(res, 404, { error: 'not found' }),
    );
    server = s;
    const home = await tempHome();
    await openFileStore(home).create(
      session('20261201-0000c0df', {
        orchestrator: s.url,
        turns: [turn('u1')],
        pending_job: {
          job_id: OLD,
          turn: 'u1',
          path: 'compat',
          policy: 'nsed:fast',
          started: '2026-01-01T00:00:00.000Z',
        },
      }),
    );
    const r = await runCliInProcess(['resume', '-s', '20261201-0000c0df'], { env: { NSED_HOME: home, NO_COLOR: '1' } });
    expect(r.stderr).toMatch(/^nsed: deliberation \S+ was cancelled\n/);
    expect(r.code).toBe(ExitCode.cancelled);
    const saved = await openFileStore(home).read('20261201-0000c0df');
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.at(-1)).toMatchObject({ role: 'assistant', job_id: OLD, status: 'cancelled' });
  });
});

describe('resume after a passthrough answer under --profile strict', () => {
  it('says the turn had no deliberation to follow and exits 7, as the default profile does', async () => {
    rig = await testRig({ profile: 'strict' });
    const first = await rig.run(['ask', '-p', 'passthrough', '-o', 'json', 'hi']);
    expect(first.code).toBe(0);
    expect((JSON.parse(first.stdout) as { job_id: unknown }).job_id).toBeNull();
    const r = await rig.run(['resume', '--last']);
    expect(r.stderr).toMatch(/^nsed: nothing is running in session \S+: its last turn had no deliberation to follow\n/);
    expect(r.code).toBe(7);
  });
});
