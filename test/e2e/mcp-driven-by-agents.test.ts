// `nsed mcp` as a coding agent drives it, through the MCP TypeScript SDK's own client against a
// held simulator: a call the host cancels, a wait without `after`, a question the person answers
// while the model could, and the protocol's own errors.
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectMcp, isError, structured, text, waitToEnd, type McpHost } from '../harness/mcp-host.js';
import { useRig, waitForOutput, type Rig } from '../harness/rig.js';

/** The simulator's own list of jobs (GET /deliberations), as any client of the orchestrator sees it. */
async function simJobs(rig: Rig): Promise<Array<{ job_id: string; status: string }>> {
  const r = await fetch(`${rig.sim.url}/deliberations`);
  return ((await r.json()) as { jobs: Array<{ job_id: string; status: string }> }).jobs;
}

/** The id of the council's ask_user call, as the orchestrator lists its pending calls (docs/protocol.md §10.2). */
async function askUserCallId(rig: Rig, job: string): Promise<string> {
  const r = await fetch(`${rig.sim.url}/deliberation/${job}/tool-calls?status=pending`);
  const { tool_calls: calls } = (await r.json()) as { tool_calls: Array<{ call_id: string; tool_name: string }> };
  const id = calls.find((c) => c.tool_name.endsWith('ask_user'))?.call_id;
  if (id === undefined) throw new Error(`no pending ask_user call in ${JSON.stringify(calls)}`);
  return id;
}

/** The newest session in the store, as the sessions tool lists it. */
async function newestSession(host: McpHost): Promise<string> {
  const listed = structured(await host.client.callTool({ name: 'sessions', arguments: { limit: 1 } }));
  return String((listed['sessions'] as Array<{ id: string }>)[0]?.id);
}

/** Starts a deliberate the host will abort, and the job it started on the simulator. */
async function abortableDeliberate(
  host: McpHost,
  rig: Rig,
  question: string,
): Promise<{ abort: AbortController; call: Promise<unknown>; job: string }> {
  const abort = new AbortController();
  const call = host.client.callTool(
    { name: 'deliberate', arguments: { question, policy: 'fast', timeout_s: 55 } },
    CallToolResultSchema,
    { signal: abort.signal },
  );
  // Rejected once aborted; kept so no unhandled rejection escapes before the test awaits it.
  call.catch(() => undefined);
  const job = await rig.sim.control.nextJob();
  return { abort, call, job };
}

describe('nsed mcp: a call the host cancels', { timeout: 180_000 }, () => {
  const held = useRig({ hold: true });

  it('cancels its deliberation on the orchestrator and records the turn cancelled (reliability #281)', async () => {
    const host = await connectMcp(held);
    try {
      const { abort, call, job } = await abortableDeliberate(host, held, 'Choose a message queue');
      abort.abort('the person pressed Esc');
      await expect(call).rejects.toThrow();
      await held.sim.control.ended(job);
      // A cancelled job ends failed with the reason `cancelled` (docs/protocol.md §3.9).
      expect((await simJobs(held)).find((j) => j.job_id === job)?.status).toBe('failed: cancelled');
      expect(held.sim.requests.filter((q) => q.path === `/deliberation/${job}/cancel`)).toHaveLength(1);
      const session = await newestSession(host);
      const end = await waitToEnd(host.client, session);
      expect(end).toMatchObject({ done: true, status: 'cancelled', job_id: job });
      const stored = await held.session<{ pending_job?: unknown; turns: Array<{ role: string; status: string }> }>(
        session,
      );
      expect(stored.pending_job).toBeUndefined();
      expect(stored.turns.at(-1)).toMatchObject({ role: 'assistant', status: 'cancelled' });
    } finally {
      await host.close();
    }
  });

  it('a host that disconnects mid-call keeps the --on-exit rule: detached, not cancelled (reliability #213)', async () => {
    const host = await connectMcp(held);
    const { call, job } = await abortableDeliberate(host, held, 'Design a rate limiter');
    // Closing ends the server's stdin; the process has exited, its runs stopped, once close resolves.
    await host.close();
    await Promise.allSettled([call]);
    expect(held.sim.requests.some((q) => q.path === `/deliberation/${job}/cancel`)).toBe(false);
    expect(held.sim.control.job(job)?.ended).toBe(false);
    held.sim.control.release(job);
  });

  it('with --on-cancel keep leaves the deliberation running, to its answer (reliability #281)', async () => {
    const host = await connectMcp(held, { args: ['--on-cancel', 'keep'] });
    try {
      const { abort, call, job } = await abortableDeliberate(host, held, 'Plan the database migration');
      abort.abort('the person pressed Esc');
      await expect(call).rejects.toThrow();
      // The server's word that it saw the cancel and kept the job: after it, nothing more is sent.
      await host.logged(/the host cancelled its call; session \S+ goes on \(--on-cancel keep\)/);
      expect(held.sim.requests.some((q) => q.path === `/deliberation/${job}/cancel`)).toBe(false);
      expect((await simJobs(held)).find((j) => j.job_id === job)?.status).toBe('running');
      held.sim.control.release(job);
      const session = await newestSession(host);
      const end = await waitToEnd(host.client, session);
      expect(end, host.said()).toMatchObject({ done: true, status: 'complete', job_id: job });
    } finally {
      await host.close();
    }
  });
});

describe('nsed mcp: wait without after', { timeout: 180_000 }, () => {
  const held = useRig({ hold: true });

  it('waits for what is new since the last answer on this connection, not what it was given already (reliability #282)', async () => {
    const host = await connectMcp(held);
    try {
      const started = structured(
        await host.client.callTool({
          name: 'deliberate',
          arguments: { question: 'Design a rate limiter', policy: 'deep', wait: false },
        }),
      );
      const session = String(started['session']);
      const job = String(started['job_id']);
      // Round 1 proposed and scored, and seen through a wait with `after`: old news from here on.
      held.sim.control.release(job, 2);
      const first = structured(
        await host.client.callTool({ name: 'wait', arguments: { session, after: Number(started['seq']) } }),
      );
      expect((first['rounds'] as Array<{ round: number }>).map((r) => r.round)).toEqual([1]);
      await held.sim.control.parked(job);
      let entered: () => void = () => undefined;
      const inWait = new Promise<void>((resolve) => (entered = resolve));
      let returned = false;
      const call = host.client
        .callTool({ name: 'wait', arguments: { session, timeout_s: 55 } }, CallToolResultSchema, {
          // The server sends the first progress notification as it starts waiting.
          onprogress: () => entered(),
          resetTimeoutOnProgress: true,
        })
        .finally(() => (returned = true));
      await inWait;
      // A round trip after the wait began: an answer sent at once would have arrived before it.
      await host.client.ping();
      expect(returned).toBe(false);
      // Round 2's proposals and evaluation: a scored round is news.
      held.sim.control.release(job, 2);
      const moved = structured(await call);
      expect(moved, host.said()).toMatchObject({ session, done: false, status: 'running' });
      expect(Number(moved['seq'])).toBeGreaterThan(Number(first['seq']));
      expect((moved['rounds'] as Array<{ round: number }>).map((r) => r.round)).toEqual([2]);
      held.sim.control.release(job);
      expect(await waitToEnd(host.client, session)).toMatchObject({ done: true, status: 'complete' });
    } finally {
      await host.close();
    }
  });
});

describe('nsed mcp: the person answers a council question while the model could', { timeout: 180_000 }, () => {
  const rig = useRig();

  it("keeps the question from the model while the person's dialog is open, and refuses the model's answer, naming who answered (reliability #283)", async () => {
    let opened: (message: string) => void = () => undefined;
    const asked = new Promise<string>((resolve) => (opened = resolve));
    let answer: (value: string) => void = () => undefined;
    const answered = new Promise<string>((resolve) => (answer = resolve));
    const host = await connectMcp(rig, {
      // The person's dialog stays open until the test answers it.
      elicit: async (message) => {
        opened(message);
        return { action: 'accept', content: { answer: await answered } };
      },
    });
    try {
      const started = structured(
        await host.client.callTool({
          name: 'deliberate',
          arguments: {
            question: 'Ask me which environment to deploy to',
            agents: ['CortexA', 'CortexB'],
            rounds: 2,
            ask_user: true,
            wait: false,
          },
        }),
      );
      const session = String(started['session']);
      // The host follows the deliberation meanwhile, as an agent would.
      const follow = waitToEnd(host.client, session);
      expect(await asked).toMatch(/^The council asks: /);
      // The call is in the session as the council made it; the model is not offered it.
      const state = structured(await host.client.callTool({ name: 'wait', arguments: { session, after: 0 } }));
      expect(state, host.said()).toMatchObject({ done: false, pending_calls: [] });
      expect(state['status']).not.toBe('waiting');
      const callId = await askUserCallId(rig, String(started['job_id']));
      // A model that answers anyway (it kept the id from somewhere) is refused while the person has the question.
      const early = await host.client.callTool({
        name: 'answer_tool_call',
        arguments: { session, call_id: callId, value: 'staging' },
      });
      expect(isError(early)).toBe(true);
      expect(text(early)).toMatch(
        /^conflict \(exit 7\): call \S+ is being answered by the person, in the host's question dialog/,
      );
      answer('prod');
      expect(await follow, host.said()).toMatchObject({ done: true, status: 'complete' });
      const late = await host.client.callTool({
        name: 'answer_tool_call',
        arguments: { session, call_id: callId, value: 'staging' },
      });
      expect(isError(late)).toBe(true);
      expect(text(late)).toMatch(
        /^conflict \(exit 7\): call \S+ was already answered by the person, in the host's question dialog\nhint: call wait with session/,
      );
      const after = await rig.session<{ turns: Array<{ tool_calls?: Array<{ name: string; result?: string }> }> }>(
        session,
      );
      expect(after.turns.flatMap((t) => t.tool_calls ?? [])).toMatchObject([{ name: 'ask_user', result: 'prod' }]);
    } finally {
      await host.close();
    }
  });
});

/** The JSON-RPC error code a request was refused with (the SDK's client rejects with an McpError). */
async function rpcCode(request: Promise<unknown>): Promise<number | undefined> {
  try {
    await request;
  } catch (err) {
    return (err as { code?: number }).code;
  }
  throw new Error('the request was not refused');
}

describe("nsed mcp: the protocol's own errors, as the spec has them", { timeout: 180_000 }, () => {
  const rig = useRig();

  it('an unknown tool is -32602, an unknown resource -32002, and a cursor it never gave -32602; the server goes on (reliability #285)', async () => {
    const host = await connectMcp(rig);
    try {
      expect(await rpcCode(host.client.callTool({ name: 'no_such_tool', arguments: {} }))).toBe(-32602);
      expect(await rpcCode(host.client.readResource({ uri: 'nsed://sessions/20990101-00000000' }))).toBe(-32002);
      expect(await rpcCode(host.client.readResource({ uri: 'file:///etc/passwd' }))).toBe(-32002);
      expect(await rpcCode(host.client.listTools({ cursor: 'page-2' }))).toBe(-32602);
      expect(await rpcCode(host.client.listResources({ cursor: 'page-2' }))).toBe(-32602);
      expect(await rpcCode(host.client.listResourceTemplates({ cursor: 'page-2' }))).toBe(-32602);
      expect((await host.client.listTools()).tools.map((t) => t.name)).toContain('deliberate');
    } finally {
      await host.close();
    }
  });
});

describe('nsed mcp --http: the Origin of a request', { timeout: 180_000 }, () => {
  const rig = useRig();
  const token = 'mcp-origin-token-0123456789abcdef';

  it('refuses a page of a foreign origin with 403, admits loopback pages, clients without Origin and --allow-origin ones (reliability #284)', async () => {
    const server = rig.spawn(['mcp', '--http', '0', '--allow-origin', 'https://app.example.com'], {
      env: { NSED_MCP_TOKEN: token },
      stdin: 'inherit-open',
    });
    try {
      let said = '';
      await waitForOutput(server, (o) => (said = o).includes('/mcp\n'));
      const url = String(/nsed mcp listening on (\S+)/.exec(said)?.[1]);
      const initialize = (origin: string | undefined): Promise<Response> =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${token}`,
            ...(origin === undefined ? {} : { origin }),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
          }),
        });
      const foreign = await initialize('http://evil.example.com');
      expect(foreign.status).toBe(403);
      expect(await foreign.text()).toMatch(
        /^forbidden: Origin http:\/\/evil\.example\.com is not loopback; nsed mcp --allow-origin/,
      );
      expect((await initialize('null')).status).toBe(403);
      expect((await initialize('http://localhost:5173')).status).toBe(200);
      expect((await initialize('https://app.example.com')).status).toBe(200);
      expect((await initialize(undefined)).status).toBe(200);
    } finally {
      server.kill('SIGTERM');
      await server.result;
    }
  });

  it('--allow-origin without --http, or with something that is not an origin, is refused with exit 2', async () => {
    const alone = await rig.runProcess(['mcp', '--allow-origin', 'https://app.example.com']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--allow-origin goes with --http');
    const path = await rig.runProcess(['mcp', '--http', '0', '--allow-origin', 'https://app.example.com/page'], {
      env: { NSED_MCP_TOKEN: token },
    });
    expect(path.code).toBe(2);
    expect(path.stderr).toContain("--allow-origin 'https://app.example.com/page' is not an origin");
  });
});

describe('nsed mcp: errors in the tools’ terms', { timeout: 180_000 }, () => {
  const rig = useRig();

  it('a continue on a session whose council waits for a call names answer_tool_call and its arguments, not a command line', async () => {
    const host = await connectMcp(rig);
    try {
      const s = structured(
        await host.client.callTool({
          name: 'deliberate',
          arguments: {
            question: 'Use the calculator to compute 2+2',
            policy: 'fast',
            tools: [{ name: 'calculator', parameters: { type: 'object', properties: { expr: { type: 'string' } } } }],
          },
        }),
      );
      expect(s).toMatchObject({ status: 'waiting' });
      const session = String(s['session']);
      const [call] = s['pending_calls'] as Array<{ id: string }>;
      const r = await host.client.callTool({ name: 'continue', arguments: { session, question: 'And 3+3?' } });
      expect(isError(r)).toBe(true);
      expect(text(r)).toBe(
        `conflict (exit 7): session ${session} waits for the result of tool call ${call?.id} (calculator)\n` +
          `hint: answer_tool_call with session "${session}" and call_id "${call?.id}"`,
      );
    } finally {
      await host.close();
    }
  });
});
