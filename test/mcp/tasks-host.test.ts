// MCP Tasks (2025-11-25) as a host with Tasks runs them: the SDK's own client task API
// (client.experimental.tasks) against the real `nsed mcp` spawned over stdio, a simulator on
// loopback that holds each job until the test releases it, and a temp store. The task's state
// lives in the store, so a second server process started on the same store answers for a task
// the first one created (reliability #213: a host that goes away leaves the deliberation resumable).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ResponseMessage } from '@modelcontextprotocol/sdk/experimental/tasks';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectMcp, structured, text, type McpHost } from '../harness/mcp-host.js';
import { testRig, type Rig } from '../harness/rig.js';
import { getJson } from '../harness/sse.js';

type Stream = AsyncGenerator<ResponseMessage<CallToolResult>, void, void>;

/** Long enough for a deliberation released in full: the SDK client's own 60 s default would cut a slow machine short. */
const REQUEST = { timeout: 120_000 };

/** A host that runs each turn tool as a task: the tools listed first, so the client knows which may be. */
async function taskHost(rig: Rig, opts: Parameters<typeof connectMcp>[1] = {}): Promise<McpHost> {
  const host = await connectMcp(rig, opts);
  await host.client.listTools();
  return host;
}

/** The task stream of a tool call, and the id of the task the server created for it. */
async function startTask(client: Client, name: string, args: Record<string, unknown>) {
  const stream: Stream = client.experimental.tasks.callToolStream(
    { name, arguments: args },
    CallToolResultSchema,
    REQUEST,
  );
  const first = await stream.next();
  if (first.done === true || first.value.type !== 'taskCreated')
    throw new Error(`no task was created: ${JSON.stringify(first.value)}`);
  return { stream, task: first.value.task };
}

/**
 * The stream's messages up to the first `until` accepts (the SDK polls tasks/get at the task's
 * pollInterval), read one at a time: a for-await loop left early would close the stream.
 */
async function next(stream: Stream, until: (m: ResponseMessage<CallToolResult>) => boolean) {
  const seen: string[] = [];
  for (;;) {
    const got = await stream.next();
    if (got.done === true) break;
    const m = got.value;
    if (until(m)) return m;
    seen.push(m.type === 'taskStatus' ? `${m.task.status}: ${m.task.statusMessage ?? ''}` : m.type);
  }
  throw new Error(`the task stream ended before the awaited message; saw: ${seen.join(' | ')}`);
}

const statusIs =
  (status: string, message?: RegExp) =>
  (m: ResponseMessage<CallToolResult>): boolean =>
    m.type === 'taskStatus' && m.task.status === status && (message?.test(m.task.statusMessage ?? '') ?? true);

/** The JSON-RPC error code a request failed with. */
async function errorCode(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return err.code;
    throw err;
  }
  throw new Error('the request succeeded');
}

/** The simulator's own job list (GET /deliberations): what it says of one job. */
async function simStatus(rig: Rig, job: string): Promise<string | undefined> {
  const { jobs } = (await getJson(`${rig.sim.url}/deliberations`)).body as {
    jobs: Array<{ job_id: string; status: string }>;
  };
  return jobs.find((j) => j.job_id === job)?.status;
}

describe('MCP Tasks through the SDK client task API', { timeout: 180_000 }, () => {
  it('lists deliberate, continue and fork as optional tasks, and no other tool', async () => {
    const rig = await testRig();
    const host = await connectMcp(rig);
    try {
      const { tools } = await host.client.listTools();
      const asTask = tools.filter((t) => t.execution?.taskSupport === 'optional').map((t) => t.name);
      expect(asTask).toEqual(['deliberate', 'continue', 'fork']);
      expect(host.client.getServerCapabilities()?.tasks).toMatchObject({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
    } finally {
      await host.close();
    }
  });

  it('a host with Tasks runs a deliberation without holding a request open: working with the progress line, then the result', async () => {
    const rig = await testRig({ hold: true });
    const host = await taskHost(rig);
    try {
      const { stream, task } = await startTask(host.client, 'deliberate', {
        question: 'Plan the database migration',
        policy: 'fast',
      });
      const job = await rig.sim.control.nextJob();
      // The task was answered while the job is held: no request waits on the deliberation.
      expect(rig.sim.control.job(job)?.ended).toBe(false);
      expect(task).toMatchObject({ status: 'working', ttl: null, pollInterval: expect.any(Number) });
      const [session, turn] = task.taskId.split('.');
      const stored = await rig.session<{ pending_job?: { job_id: string; turn: string } }>(String(session));
      expect(stored.pending_job).toMatchObject({ job_id: job, turn });

      const now = await host.client.experimental.tasks.getTask(task.taskId);
      expect(now.status).toBe('working');
      expect(now.statusMessage).toMatch(/^deliberation (starting|.+ started)$/);
      rig.sim.control.release(job, 2);
      // The progress line a progress notification would carry, as the task's status message.
      await next(stream, statusIs('working', /^round 1\/\d+ · .*leader Cortex\w+ \(\d\.\d\d\)/));
      rig.sim.control.release(job);
      const end = await next(stream, (m) => m.type === 'result');
      if (end.type !== 'result') throw new Error('no result');
      expect(structured(end.result)).toMatchObject({ session, job_id: job, status: 'complete', done: true });
      expect(String(structured(end.result)['content'])).toContain('migration');
      const done = await host.client.experimental.tasks.getTask(task.taskId);
      expect(done.status).toBe('completed');
      expect(done.statusMessage).toMatch(new RegExp(`^session ${session} · chosen `));
      expect((await host.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    } finally {
      await host.close();
    }
  });

  for (const profile of ['default', 'strict'] as const)
    it(`tasks/result reads the answer after the server process restarted, the job taken up by the new one (reliability #213, --profile ${profile})`, async () => {
      const rig = await testRig({ hold: true, profile });
      const first = await taskHost(rig);
      const { task } = await startTask(first.client, 'deliberate', {
        question: 'Plan the database migration',
        policy: 'fast',
      });
      const job = await rig.sim.control.nextJob();
      await first.close();
      // The host went away: detached, not cancelled, and the job still held.
      expect(rig.sim.requests.some((q) => q.path === `/deliberation/${job}/cancel`)).toBe(false);
      expect(rig.sim.control.job(job)?.ended).toBe(false);

      const second = await taskHost(rig);
      try {
        expect((await second.client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
        rig.sim.control.release(job);
        const result = await second.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, REQUEST);
        expect(structured(result), text(result)).toMatchObject({ status: 'complete', done: true, job_id: job });
        expect((await second.client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
      } finally {
        await second.close();
      }
      // A third process reads the finished task from the store alone.
      const third = await taskHost(rig);
      try {
        const again = await third.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        expect(structured(again)).toMatchObject({ status: 'complete', job_id: job });
        const [session] = task.taskId.split('.');
        const stored = await rig.session<{ turns: Array<{ role: string; content: string }> }>(String(session));
        expect(stored.turns.at(-1)?.content).toBe(structured(again)['content']);
      } finally {
        await third.close();
      }
    });

  for (const profile of ['default', 'strict'] as const)
    it(`tasks/cancel cancels the job on the orchestrator and the task reads cancelled (--profile ${profile})`, async () => {
      const rig = await testRig({ hold: true, profile });
      const host = await taskHost(rig);
      try {
        const { task } = await startTask(host.client, 'deliberate', {
          question: 'Choose a message queue',
          policy: 'fast',
        });
        const job = await rig.sim.control.nextJob();
        const cancelled = await host.client.experimental.tasks.cancelTask(task.taskId);
        expect(cancelled.status).toBe('cancelled');
        await rig.sim.control.ended(job);
        expect(await simStatus(rig, job)).toMatch(/cancel/);
        expect((await host.client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
        const result = await host.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        expect(structured(result)).toMatchObject({ status: 'cancelled', done: true, job_id: job });
        // A task that ended cannot be cancelled again: the spec's invalid params.
        expect(await errorCode(host.client.experimental.tasks.cancelTask(task.taskId))).toBe(ErrorCode.InvalidParams);
      } finally {
        await host.close();
      }
    });

  it('a council tool call that waits makes the task input_required; answered with answer_tool_call, it completes', async () => {
    const rig = await testRig();
    const host = await taskHost(rig);
    try {
      const { stream, task } = await startTask(host.client, 'deliberate', {
        question: 'Use the calculator to compute 2+2',
        agents: ['CortexA', 'CortexB'],
        rounds: 2,
        tools: [{ name: 'calculator', parameters: { type: 'object', properties: { expr: { type: 'string' } } } }],
      });
      const waiting = await next(stream, statusIs('input_required'));
      if (waiting.type !== 'taskStatus') throw new Error('no status');
      // The status message names the session and the call, which is all a host needs to answer it.
      const said = /answer_tool_call, session (\S+)\): (\S+): calculator\(/.exec(waiting.task.statusMessage ?? '');
      expect(said, waiting.task.statusMessage).not.toBeNull();
      expect(said?.[1]).toBe(task.taskId.split('.')[0]);
      const answered = await host.client.callTool({
        name: 'answer_tool_call',
        arguments: { session: String(said?.[1]), call_id: String(said?.[2]), value: '4' },
      });
      expect((answered as CallToolResult).isError, text(answered)).toBeFalsy();
      // On input_required the SDK client reads tasks/result, which returns once the task ended.
      const end = await next(stream, (m) => m.type === 'result');
      if (end.type !== 'result') throw new Error('no result');
      expect(structured(end.result)).toMatchObject({ status: 'complete', done: true, pending_calls: [] });
      expect(String(structured(end.result)['content'])).toContain('4');
    } finally {
      await host.close();
    }
  });

  it('a call the answer stopped at (the chat surface) leaves the task input_required until answer_tool_call answers it', async () => {
    const rig = await testRig();
    const host = await taskHost(rig);
    try {
      const { stream } = await startTask(host.client, 'deliberate', {
        question: 'Use the calculator to compute 2+2',
        policy: 'fast',
        tools: [{ name: 'calculator', parameters: { type: 'object', properties: { expr: { type: 'string' } } } }],
      });
      const waiting = await next(stream, statusIs('input_required', /calculator\(\{"expr":"2\+2"\}\)/));
      if (waiting.type !== 'taskStatus') throw new Error('no status');
      const said = /session (\S+)\): (\S+): calculator/.exec(waiting.task.statusMessage ?? '');
      const answered = await host.client.callTool({
        name: 'answer_tool_call',
        arguments: { session: String(said?.[1]), call_id: String(said?.[2]), value: '4' },
      });
      expect((answered as CallToolResult).isError, text(answered)).toBeFalsy();
      const end = await next(stream, (m) => m.type === 'result');
      if (end.type !== 'result') throw new Error('no result');
      expect(structured(end.result)).toMatchObject({ status: 'complete', done: true, pending_calls: [] });
      expect(String(structured(end.result)['content'])).toContain('4');
    } finally {
      await host.close();
    }
  });

  it('an ask_user question the person has not answered yet makes the task input_required (reliability #218)', async () => {
    const rig = await testRig();
    let answer: (v: string) => void = () => undefined;
    const answered = new Promise<string>((resolve) => (answer = resolve));
    const asked: string[] = [];
    const host = await taskHost(rig, {
      elicit: async (message) => {
        asked.push(message);
        return { action: 'accept', content: { answer: await answered } };
      },
    });
    try {
      const { stream } = await startTask(host.client, 'deliberate', {
        question: 'Ask me which storage the cache should use',
        agents: ['CortexA', 'CortexB'],
        rounds: 2,
        ask_user: true,
      });
      const waiting = await next(stream, statusIs('input_required', /asks "Which matters more/));
      expect(waiting.type).toBe('taskStatus');
      expect(asked).toEqual([expect.stringMatching(/^The council asks: Which matters more/)]);
      answer('Redis');
      const end = await next(stream, (m) => m.type === 'result');
      if (end.type !== 'result') throw new Error('no result');
      expect(structured(end.result)).toMatchObject({ status: 'complete', done: true });
    } finally {
      await host.close();
    }
  });

  it('continue and fork run as tasks too: each names its own question, the earlier task keeps its answer', async () => {
    const rig = await testRig();
    const host = await taskHost(rig);
    try {
      const first = await startTask(host.client, 'deliberate', { question: 'Name a database', policy: 'fast' });
      const firstEnd = await next(first.stream, (m) => m.type === 'result');
      const [session] = first.task.taskId.split('.');
      const followUp = await startTask(host.client, 'continue', {
        session: String(session),
        question: 'And a cache in front of it?',
        policy: 'fast',
      });
      const followEnd = await next(followUp.stream, (m) => m.type === 'result');
      expect(followUp.task.taskId.split('.')[0]).toBe(session);
      expect(followUp.task.taskId).not.toBe(first.task.taskId);
      const branch = await startTask(host.client, 'fork', {
        session: String(session),
        at: '2',
        question: 'And a queue instead?',
        policy: 'fast',
      });
      const branchEnd = await next(branch.stream, (m) => m.type === 'result');
      const branched = branch.task.taskId.split('.')[0];
      expect(branched).not.toBe(session);
      if (firstEnd.type !== 'result' || followEnd.type !== 'result' || branchEnd.type !== 'result')
        throw new Error('no result');
      expect(structured(followEnd.result)).toMatchObject({ session, status: 'complete' });
      expect(structured(branchEnd.result)).toMatchObject({ session: branched, status: 'complete' });
      // Each task reads its own question's answer, the first one too after the session went on.
      const tasks = host.client.experimental.tasks;
      const again = await tasks.getTaskResult(first.task.taskId, CallToolResultSchema);
      expect(structured(again)['content']).toBe(structured(firstEnd.result)['content']);
      expect(structured(again)['content']).not.toBe(structured(followEnd.result)['content']);
      expect((await tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([
        branch.task.taskId,
        followUp.task.taskId,
        first.task.taskId,
      ]);
    } finally {
      await host.close();
    }
  });

  it('never puts the bearer token in a task, its status message or its result (reliability #217)', async () => {
    const token = 'mcp-task-token-9f8e7d6c5b4a';
    const rig = await testRig();
    const host = await taskHost(rig, { env: { NSED_TOKEN: token } });
    try {
      const { stream, task } = await startTask(host.client, 'deliberate', {
        question: `Should the cache key of a request include ${token} as its prefix?`,
        policy: 'fast',
      });
      const seen: string[] = [JSON.stringify(task)];
      for (;;) {
        const got = await stream.next();
        if (got.done === true) break;
        seen.push(JSON.stringify(got.value));
      }
      const tasks = host.client.experimental.tasks;
      seen.push(JSON.stringify(await tasks.getTask(task.taskId)));
      seen.push(JSON.stringify(await tasks.getTaskResult(task.taskId, CallToolResultSchema)));
      seen.push(JSON.stringify(await tasks.listTasks()));
      // The council quotes the question: the token's place shows it was there and was replaced.
      expect(seen.join('\n')).toContain('request include *** ');
      for (const s of [...seen, host.said()]) expect(s).not.toContain(token);
    } finally {
      await host.close();
    }
  });

  it('refuses a task id that is not one of its tasks with the spec error, and reads no file for it', async () => {
    const rig = await testRig();
    const host = await taskHost(rig);
    try {
      const { stream, task } = await startTask(host.client, 'deliberate', {
        question: 'Name a colour',
        policy: 'fast',
      });
      await next(stream, (m) => m.type === 'result');
      const [session, turn] = task.taskId.split('.');
      const bad = [
        '',
        'garbage',
        '../../etc/passwd',
        `../sessions/${session}.${turn}`,
        `${session}.${turn}.json`,
        `${session}/${turn}`,
        `${session}.`,
        `.${turn}`,
        `${session}.t000000000000`,
        `20991231-00000000.${turn}`,
        `con.${turn}`,
        `${session}.${'x'.repeat(300)}`,
        // A prefix of the session is no task id: the id names the session whole.
        `${String(session).slice(0, 10)}.${turn}`,
      ];
      const tasks = host.client.experimental.tasks;
      for (const id of bad) {
        expect(await errorCode(tasks.getTask(id)), id).toBe(ErrorCode.InvalidParams);
        expect(await errorCode(tasks.getTaskResult(id, CallToolResultSchema)), id).toBe(ErrorCode.InvalidParams);
        expect(await errorCode(tasks.cancelTask(id)), id).toBe(ErrorCode.InvalidParams);
      }
      // The real one still reads.
      expect((await tasks.getTask(task.taskId)).status).toBe('completed');
    } finally {
      await host.close();
    }
  });

  it('refuses to run as a task a tool that does not declare it, as the spec says (method not found)', async () => {
    const rig = await testRig();
    const host = await taskHost(rig);
    try {
      const stream: Stream = host.client.experimental.tasks.callToolStream(
        { name: 'sessions', arguments: {} },
        CallToolResultSchema,
        { task: {} },
      );
      const m = await next(stream, (x) => x.type === 'error');
      expect(m.type === 'error' ? m.error.code : undefined).toBe(ErrorCode.MethodNotFound);
      // Called plainly, it answers as before.
      expect((await host.client.callTool({ name: 'sessions', arguments: {} })).isError).toBeFalsy();
    } finally {
      await host.close();
    }
  });
});
