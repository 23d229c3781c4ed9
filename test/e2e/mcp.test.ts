// `nsed mcp` driven by the MCP TypeScript SDK's own client: the real CLI spawned over stdio
// (StdioClientTransport) against a simulator on loopback, a temp store shared with CLI runs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import ajvModule from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { MCP_TOOLS } from '../../src/mcp/tool-defs.js';
import { parseNdjson, waitForOutput, type Rig, useRig } from '../harness/rig.js';
import { CLI } from '../harness/process.js';
import { Arrivals } from '../harness/arrivals.js';

type Structured = Record<string, unknown>;

const ajv = new ajvModule.default({ allErrors: true, strict: false });

interface Connected {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** `nsed mcp` as a host starts it: the bin, over stdio, with the rig's store and orchestrator. */
async function connect(
  rig: Rig,
  opts: { elicit?: (message: string) => string; env?: Record<string, string> } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...rig.env, ...opts.env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client(
    { name: 'nsed-test-host', version: '1.0.0' },
    { capabilities: opts.elicit === undefined ? {} : { elicitation: { form: {} } } },
  );
  const elicit = opts.elicit;
  if (elicit !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (req) => ({
      action: 'accept',
      content: { answer: elicit(String(req.params.message)) },
    }));
  await client.connect(transport);
  // The server's log messages, kept for the message of a failing assertion.
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    err += `log ${n.params.level}: ${String(n.params.data)}\n`;
  });
  return { client, stderr: () => err, close: () => client.close() };
}

const resourceText = (c: { text: string } | { blob: string } | undefined): string =>
  c !== undefined && 'text' in c ? c.text : '';
const structured = (r: unknown): Structured => (r as CallToolResult).structuredContent as Structured;
const text = (r: unknown): string =>
  ((r as CallToolResult).content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');

/** Calls `wait` until the deliberation is done, each call bounded by its own timeout_s. */
async function waitToEnd(
  client: Client,
  session: string,
): Promise<{ last: Structured; calls: number; rounds: number[] }> {
  let after = 0;
  const rounds: number[] = [];
  for (let calls = 1; calls <= 200; calls++) {
    const r = await client.callTool({ name: 'wait', arguments: { session, after, timeout_s: 30 } });
    expect((r as CallToolResult).isError, text(r)).toBeFalsy();
    const s = structured(r);
    for (const round of s['rounds'] as Array<{ round: number }>) rounds.push(round.round);
    after = Number(s['seq']);
    if (s['done'] === true) return { last: s, calls, rounds };
  }
  throw new Error('wait never reported done');
}

/** Answers the council's call `callId` with `value` through `answer_tool_call`, then waits for the deliberation's end. */
async function answerAndWait(
  client: Client,
  session: string,
  callId: string,
  value: string,
): ReturnType<typeof waitToEnd> {
  const a = await client.callTool({ name: 'answer_tool_call', arguments: { session, call_id: callId, value } });
  expect((a as CallToolResult).isError, text(a)).toBeFalsy();
  return waitToEnd(client, session);
}

describe('nsed mcp over stdio, with the SDK client', { timeout: 180_000 }, () => {
  const rig = useRig();
  let host: Connected;
  beforeAll(async () => {
    host = await connect(rig);
  });
  afterAll(async () => {
    await host.close();
  });

  it('lists every tool with an input and an output schema that compile', async () => {
    const { tools } = await host.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(() => ajv.compile(t.inputSchema)).not.toThrow();
      expect(() => ajv.compile(t.outputSchema ?? {})).not.toThrow();
    }
  });

  it('deliberate with wait:true returns the answer, verdict and usage, valid against its outputSchema', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Design a cache for a read-heavy API', policy: 'fast' },
    });
    expect((r as CallToolResult).isError, text(r)).toBeFalsy();
    const s = structured(r);
    const check = ajv.compile(MCP_TOOLS.find((t) => t.name === 'deliberate')?.outputSchema ?? {});
    expect(check(s), JSON.stringify(check.errors)).toBe(true);
    expect(s['done']).toBe(true);
    expect(s['status']).toBe('complete');
    expect(String(s['content'])).toContain('cache');
    expect(s['verdict']).toMatchObject({ convergence: { final: expect.any(Number) } });
    expect(s['usage']).toMatchObject({ cost_source: 'reported', cost_usd: expect.any(Number) });
    expect(text(r)).toContain(String(s['content']));
    // The same session, as the CLI's store holds it.
    const stored = await rig.session<{ turns: Array<{ role: string; content: string }> }>(String(s['session']));
    expect(stored.turns.at(-1)?.content).toBe(s['content']);
  });

  it('a deliberation that fails is a tool error with the error line and hint, its session still named (reliability #215)', async () => {
    const down = await connect(rig, { env: { NSED_URL: 'http://127.0.0.1:9' } });
    try {
      const r = await down.client.callTool({ name: 'deliberate', arguments: { question: 'Is anyone there?' } });
      expect((r as CallToolResult).isError).toBe(true);
      expect(text(r)).toMatch(/^network \(exit 6\): cannot reach the orchestrator at 127\.0\.0\.1:9/);
      expect(text(r)).toMatch(/\nsession \d{8}-[0-9a-f]+$/);
      expect(structured(r)).toMatchObject({ done: true, status: 'failed', error: { code: 'network', exit_code: 6 } });
    } finally {
      await down.close();
    }
  });

  it('fork branches a session and runs its question; verdict reads the last answer with its ballots', async () => {
    const first = structured(
      await host.client.callTool({
        name: 'deliberate',
        arguments: { question: 'Choose a database for an event log', policy: 'fast' },
      }),
    );
    const f = await host.client.callTool({
      name: 'fork',
      arguments: { session: String(first['session']), question: 'And if writes dominate?', at: '1' },
    });
    const forked = structured(f);
    expect(forked, text(f)).toMatchObject({ done: true, status: 'complete' });
    expect(forked['session']).not.toBe(first['session']);
    const stored = await rig.session<{ forked_from: { session: string }; turns: Array<{ role: string }> }>(
      String(forked['session']),
    );
    expect(stored.forked_from.session).toBe(first['session']);
    expect(stored.turns.map((t) => t.role)).toEqual(['user', 'user', 'assistant']);
    const v = structured(
      await host.client.callTool({ name: 'verdict', arguments: { session: String(first['session']) } }),
    );
    expect(v).toMatchObject({ session: first['session'], status: 'complete', content: first['content'] });
    expect(v['usage']).toEqual(first['usage']);
    expect(v['verdict']).toEqual(first['verdict']);
    // Who voted how on the chosen proposal, as the verdict keeps it.
    const ballots = (first['verdict'] as { ballots: { chosen: Array<{ evaluator: string }> } }).ballots.chosen;
    expect((v['ballots'] as Array<{ evaluator: string }>).map((b) => b.evaluator)).toEqual(
      ballots.map((b) => b.evaluator),
    );
  });

  it('a schema shapes the answer (structured in the result) and gates judge it, as -o json shows them', async () => {
    const schema = {
      type: 'object',
      properties: { choice: { type: 'string' }, reasons: { type: 'array', items: { type: 'string' } } },
      required: ['choice', 'reasons'],
    };
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: {
        question: 'Pick a queue for the billing events',
        policy: 'fast',
        schema,
        gates: { 'min-convergence': 0.999 },
      },
    });
    const s = structured(r);
    expect(s, text(r)).toMatchObject({ done: true, status: 'complete' });
    expect(s['structured']).toMatchObject({ choice: expect.any(String), reasons: expect.any(Array) });
    expect(s['gate']).toMatchObject({ status: 'fail', checks: [{ name: 'min-convergence' }] });
    expect(s['error']).toMatchObject({ code: 'gate_failed', exit_code: ExitCode.gateFailed });
  });

  it('the same idempotency key on a retry replays the recorded answer: one deliberation, one session', async () => {
    const args = { question: 'Review the retry policy', policy: 'fast', idempotency_key: 'mcp-retry-1' };
    const before = rig.sim.control.stats().started;
    const one = structured(await host.client.callTool({ name: 'deliberate', arguments: args }));
    const two = structured(await host.client.callTool({ name: 'deliberate', arguments: args }));
    expect(rig.sim.control.stats().started - before).toBe(1);
    expect(two).toMatchObject({ session: one['session'], content: one['content'], done: true });
  });

  it('a bad argument is a tool error with the nsed error code and hint, and the server goes on (reliability #214, #215)', async () => {
    const r = await host.client.callTool({ name: 'deliberate', arguments: { question: 'x', agents: ['A'] } });
    expect((r as CallToolResult).isError).toBe(true);
    // The council's rule, in the words the CLI uses for --agents.
    expect(text(r)).toMatch(/^usage \(exit 2\): agents needs at least two agent names\nhint: e\.g\. CortexA,CortexB/);
    const missing = await host.client.callTool({ name: 'wait', arguments: { session: 'nosuchsession' } });
    expect((missing as CallToolResult).isError).toBe(true);
    expect(text(missing)).toMatch(/^not_found \(exit 3\)/);
    const outside = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'what is in it?', files: ['/etc/hostname'] },
    });
    expect((outside as CallToolResult).isError).toBe(true);
    expect(text(outside)).toContain('is outside the workspace');
    expect((await host.client.listTools()).tools.length).toBe(MCP_TOOLS.length);
  });
});

/** Progress messages as they arrive, and a wait for the next one that matches: no clock involved. */
function progressLog(): {
  onprogress: (p: { message?: string }) => void;
  messages: string[];
  seen(re: RegExp): Promise<string>;
} {
  const arrivals = new Arrivals('progress message');
  return {
    messages: arrivals.lines,
    onprogress: (p) => arrivals.push(p.message ?? ''),
    seen: (re) => arrivals.first(re),
  };
}

describe('nsed mcp on a held simulator: progress, steering and cancelling', { timeout: 180_000 }, () => {
  const held = useRig({ hold: true });
  let host: Connected;
  beforeAll(async () => {
    host = await connect(held);
  });
  afterAll(async () => {
    await host.close();
  });

  it('sends a progress notification for the start, each phase and the answer, as each happens (reliability #212)', async () => {
    const log = progressLog();
    const call = host.client.callTool(
      { name: 'deliberate', arguments: { question: 'Plan the database migration', policy: 'fast', timeout_s: 55 } },
      CallToolResultSchema,
      { onprogress: log.onprogress, resetTimeoutOnProgress: true },
    );
    const job = await held.sim.control.nextJob();
    await log.seen(/deliberation (starting|.* started)/);
    held.sim.control.release(job, 1);
    await log.seen(/^round 1\/\d+: proposals in$/);
    held.sim.control.release(job, 1);
    await log.seen(/^round 1\/\d+ · (convergence \d\.\d\d · )?leader Cortex\w+ \(\d\.\d\d\)/);
    held.sim.control.release(job);
    const r = await call;
    expect(structured(r)['done'], text(r)).toBe(true);
    expect(log.messages.at(-1)).toBe('answer ready');
  });

  it('wait:false returns the session and job at once; wait then loops to the end, each call bounded (reliability #211)', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Design a rate limiter', policy: 'fast', wait: false },
    });
    const s = structured(r);
    expect(s).toMatchObject({ done: false, status: 'running', content: null, verdict: null });
    const job = String(s['job_id']);
    expect(held.sim.control.job(job)?.ended).toBe(false);
    // One short wait while the job is held: it returns, not done, within its own bound.
    const short = await host.client.callTool({
      name: 'wait',
      arguments: { session: String(s['session']), after: Number(s['seq']), timeout_s: 1 },
    });
    expect(structured(short)).toMatchObject({ done: false, status: 'running' });
    expect(text(short)).toContain('call wait with session');
    held.sim.control.release(job);
    const end = await waitToEnd(host.client, String(s['session']));
    expect(end.last).toMatchObject({ done: true, status: 'complete', job_id: job });
    expect(String(end.last['content'])).toContain('rate limit');
  });

  it('inject from the CLI reaches a deliberation started over MCP (reliability #210)', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Plan the database migration', policy: 'deep', wait: false },
    });
    const { session, job_id: job } = structured(r) as { session: string; job_id: string };
    held.sim.control.release(job, 2);
    await held.sim.control.parked(job);
    const cli = await held.run(['inject', '-s', session, '--no-wait', 'Keep the old API running for a year']);
    expect(cli.code, cli.stderr).toBe(0);
    await held.sim.control.injected(job);
    held.sim.control.release(job);
    const end = await waitToEnd(host.client, session);
    expect(end.last['status']).toBe('complete');
    const stored = await held.session<{ turns: Array<{ kind: string; content: string }> }>(session);
    expect(stored.turns.filter((t) => t.kind === 'injection').map((t) => t.content)).toEqual([
      'Keep the old API running for a year',
    ]);
  });

  it('inject over MCP reaches a deliberation a terminal started, and wait follows it to its answer (reliability #210)', async () => {
    const owner = held.start(['ask', '-p', 'deep', '-o', 'ndjson', 'Design a cache for a read-heavy API']);
    await owner.output((o) => o.includes('"type":"job"'));
    const events = parseNdjson(owner.stdout.text.slice(0, owner.stdout.text.lastIndexOf('\n') + 1));
    const session = String(events.find((e) => e['type'] === 'turn-start')?.['session']);
    const job = String(events.find((e) => e['type'] === 'job')?.['job_id']);
    held.sim.control.release(job, 2);
    await held.sim.control.parked(job);
    const r = await host.client.callTool({
      name: 'inject',
      arguments: { session, message: 'Prefer a write-through cache' },
    });
    expect((r as CallToolResult).isError, text(r)).toBeFalsy();
    expect(structured(r)).toMatchObject({ session, job_id: job });
    await held.sim.control.injected(job);
    held.sim.control.release(job);
    const end = await waitToEnd(host.client, session);
    expect(end.last).toMatchObject({ done: true, status: 'complete' });
    const done = await owner.result;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('Prefer a write-through cache');
  });

  it('cancel stops the deliberation on the orchestrator; wait then reports it cancelled (reliability #210)', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Choose a message queue', policy: 'fast', wait: false },
    });
    const { session, job_id: job } = structured(r) as { session: string; job_id: string };
    const c = await host.client.callTool({ name: 'cancel', arguments: { session } });
    expect((c as CallToolResult).isError, text(c)).toBeFalsy();
    expect(structured(c)).toEqual({ session, job_id: job });
    await held.sim.control.ended(job);
    const end = await waitToEnd(host.client, session);
    expect(end.last).toMatchObject({ done: true, status: 'cancelled' });
    const again = await host.client.callTool({ name: 'cancel', arguments: { session } });
    expect((again as CallToolResult).isError).toBe(true);
    expect(text(again)).toMatch(/^conflict \(exit 7\): nothing is running/);
  });
});

describe('nsed mcp: the council asks, the host answers', { timeout: 180_000 }, () => {
  const rig = useRig();

  it('a council tool call surfaces in the result and is answered through answer_tool_call', async () => {
    const host = await connect(rig);
    try {
      const r = await host.client.callTool({
        name: 'deliberate',
        arguments: {
          question: 'Use the calculator to compute 2+2',
          agents: ['CortexA', 'CortexB'],
          rounds: 2,
          tools: [{ name: 'calculator', parameters: { type: 'object', properties: { expr: { type: 'string' } } } }],
        },
      });
      const s = structured(r);
      expect(s['status'], text(r)).toBe('waiting');
      const calls = s['pending_calls'] as Array<{ id: string; name: string }>;
      expect(calls.map((c) => c.name)).toEqual(['calculator']);
      expect(text(r)).toContain(calls[0]?.id);
      const end = await answerAndWait(host.client, String(s['session']), String(calls[0]?.id), '4');
      expect(end.last).toMatchObject({ done: true, status: 'complete', pending_calls: [] });
      expect(String(end.last['content'])).toContain('4');
    } finally {
      await host.close();
    }
  });

  it('a call the answer stopped at (the chat surface) is answered on the same thread, and the turn goes on to its answer', async () => {
    const host = await connect(rig);
    try {
      const r = await host.client.callTool({
        name: 'deliberate',
        arguments: {
          question: 'Use the calculator to compute 2+2',
          policy: 'fast',
          tools: [{ name: 'calculator', parameters: { type: 'object', properties: { expr: { type: 'string' } } } }],
        },
      });
      const s = structured(r);
      expect(s, text(r)).toMatchObject({ status: 'waiting', done: false, content: null });
      const [call] = s['pending_calls'] as Array<{ id: string; name: string; arguments: string }>;
      expect(call).toMatchObject({ name: 'calculator', arguments: '{"expr":"2+2"}' });
      const end = await answerAndWait(host.client, String(s['session']), String(call?.id), '4');
      expect(end.last).toMatchObject({ done: true, status: 'complete', pending_calls: [] });
      expect(String(end.last['content'])).toContain('returned “4”');
    } finally {
      await host.close();
    }
  });

  it('an ask_user question goes to the person through elicitation when the host supports it (reliability #218)', async () => {
    const asked: string[] = [];
    const host = await connect(rig, {
      elicit: (message) => {
        asked.push(message);
        return 'Redis';
      },
    });
    try {
      const r = await host.client.callTool({
        name: 'deliberate',
        arguments: {
          question: 'Ask me which storage the cache should use',
          agents: ['CortexA', 'CortexB'],
          rounds: 2,
          ask_user: true,
        },
      });
      const s = structured(r);
      expect(s, `${text(r)}\n${host.stderr()}`).toMatchObject({ done: true, status: 'complete', pending_calls: [] });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(/^The council asks: Which matters more/);
      const stored = await rig.session<{ turns: Array<{ tool_calls?: Array<{ name: string; result?: string }> }> }>(
        String(s['session']),
      );
      expect(stored.turns.at(-1)?.tool_calls).toMatchObject([{ name: 'ask_user', result: 'Redis' }]);
    } finally {
      await host.close();
    }
  });
});

describe('nsed mcp: hosts that come and go, and Streamable HTTP', { timeout: 180_000 }, () => {
  const held = useRig({ hold: true });

  it('a host that disconnects mid-deliberation leaves it running and resumable; a new host waits it to its end (reliability #213)', async () => {
    const first = await connect(held);
    const r = await first.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Plan the database migration', policy: 'fast', wait: false },
    });
    const { session, job_id: job } = structured(r) as { session: string; job_id: string };
    await first.close();
    // Detached, not cancelled: the job is still there, held, and nobody asked to cancel it.
    expect(held.sim.requests.some((q) => q.path === `/deliberation/${job}/cancel`)).toBe(false);
    expect(held.sim.control.job(job)?.ended).toBe(false);
    const stored = await held.session<{ pending_job?: { job_id: string } }>(session);
    expect(stored.pending_job?.job_id).toBe(job);
    const second = await connect(held);
    try {
      held.sim.control.release(job);
      const end = await waitToEnd(second.client, session);
      expect(end.last).toMatchObject({ done: true, status: 'complete', job_id: job });
      // The job its owner left is resumed and recorded, as `nsed resume` records it.
      const after = await held.session<{
        pending_job?: unknown;
        turns: Array<{ role: string; status: string; content: string }>;
      }>(session);
      expect(after.pending_job).toBeUndefined();
      expect(after.turns.filter((t) => t.role === 'assistant').map((t) => t.status)).toEqual(['complete']);
      expect(after.turns.at(-1)?.content).toBe(end.last['content']);
    } finally {
      await second.close();
    }
  });

  it('a host that disconnects with --on-exit cancel set cancels its deliberation on the way out (reliability #213)', async () => {
    const first = await connect(held, { env: { NSED_ON_EXIT: 'cancel' } });
    const r = await first.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Choose a message queue', policy: 'fast', wait: false },
    });
    const { session, job_id: job } = structured(r) as { session: string; job_id: string };
    await first.close();
    await held.sim.control.ended(job);
    expect(held.sim.requests.some((q) => q.path === `/deliberation/${job}/cancel`)).toBe(true);
    const stored = await held.session<{ pending_job?: unknown; turns: Array<{ role: string; status: string }> }>(
      session,
    );
    expect(stored.pending_job).toBeUndefined();
    expect(stored.turns.at(-1)).toMatchObject({ role: 'assistant', status: 'cancelled' });
  });

  it('serves Streamable HTTP on loopback to a client that presents the token, and 401 to one that does not (reliability #216)', async () => {
    const token = 'mcp-test-token-0123456789abcdef';
    const server = held.spawn(['mcp', '--http', '0'], { env: { NSED_MCP_TOKEN: token }, stdin: 'inherit-open' });
    try {
      let said = '';
      await waitForOutput(server, (o) => (said = o).includes('/mcp\n'));
      const url = /nsed mcp listening on (\S+)/.exec(said)?.[1];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const refused = await fetch(String(url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(401);
      const client = new Client({ name: 'nsed-http-host', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(String(url)), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('deliberate');
        const listed = await client.callTool({ name: 'sessions', arguments: { limit: 5 } });
        expect((listed as CallToolResult).isError, text(listed)).toBeFalsy();
        expect(JSON.stringify(listed)).not.toContain(token);
      } finally {
        await client.close();
      }
    } finally {
      server.kill('SIGTERM');
      await server.result;
    }
  });

  it('--http without NSED_MCP_TOKEN is refused with exit 2 before it listens (reliability #216)', async () => {
    const r = await held.runProcess(['mcp', '--http', '0']);
    expect(r.code).toBe(ExitCode.usage);
    expect(r.stderr).toContain('--http needs NSED_MCP_TOKEN');
  });
});

describe('nsed mcp: resources and the bearer token', { timeout: 180_000 }, () => {
  const token = 'mcp-canary-token-9f8e7d6c5b4a';
  const rig = useRig({ token });
  let host: Connected;
  beforeAll(async () => {
    host = await connect(rig, { env: { NSED_TOKEN: token } });
  });
  afterAll(async () => {
    await host.close();
  });

  it('lists each session as a resource, reads it as markdown and JSON and its report as HTML, and says when a subscribed one gets a turn', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Design a cache for a read-heavy API', policy: 'fast' },
    });
    const session = String(structured(r)['session']);
    const links = ((r as CallToolResult).content ?? []).flatMap((c) => (c.type === 'resource_link' ? [c.uri] : []));
    expect(links).toEqual([`nsed://sessions/${session}`, `nsed://sessions/${session}/report.html`]);
    const { resources } = await host.client.listResources();
    expect(resources.map((x) => x.uri)).toContain(`nsed://sessions/${session}`);
    const read = await host.client.readResource({ uri: `nsed://sessions/${session}` });
    expect(read.contents.map((c) => c.mimeType)).toEqual(['text/markdown', 'application/json']);
    expect(JSON.parse(resourceText(read.contents[1]))).toMatchObject({ id: session });
    const html = await host.client.readResource({ uri: `nsed://sessions/${session}/report.html` });
    expect(resourceText(html.contents[0])).toMatch(/^<!doctype html>/i);

    const updated: string[] = [];
    let heard: () => void = () => undefined;
    const told = new Promise<void>((resolve) => (heard = resolve));
    host.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
      heard();
    });
    await host.client.subscribeResource({ uri: `nsed://sessions/${session}` });
    const next = await host.client.callTool({
      name: 'continue',
      arguments: { session, question: 'And how would you invalidate it?' },
    });
    expect(structured(next), text(next)).toMatchObject({ session, done: true, status: 'complete' });
    await told;
    expect(updated).toEqual([`nsed://sessions/${session}`]);
  });

  it('never puts the bearer token in a result, a log message or a resource (reliability #217)', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: `Should the cache key of a request include ${token} as its prefix?`, policy: 'fast' },
    });
    const session = String(structured(r)['session']);
    const seen = [
      JSON.stringify(r),
      JSON.stringify(await host.client.callTool({ name: 'verdict', arguments: { session } })),
      JSON.stringify(await host.client.callTool({ name: 'sessions', arguments: {} })),
      JSON.stringify(await host.client.readResource({ uri: `nsed://sessions/${session}` })),
      JSON.stringify(await host.client.readResource({ uri: `nsed://sessions/${session}/report.html` })),
      host.stderr(),
    ];
    // The council quotes the question: the token's place shows it was there and was replaced.
    expect(seen[0]).toContain('request include *** ');
    for (const s of seen) expect(s).not.toContain(token);
  });
});

describe('nsed mcp: a cost cap on deliberate', { timeout: 180_000 }, () => {
  // From round 2 every call costs fifty times more: the cap is crossed while the job is parked.
  const held = useRig({ hold: true, faults: ['all:meter=runaway'] });
  let host: Connected;
  beforeAll(async () => {
    host = await connect(held);
  });
  afterAll(async () => {
    await host.close();
  });

  it('max_cost cancels the deliberation on the orchestrator once crossed, and the result says cost_cap (reliability #230)', async () => {
    const call = host.client.callTool({
      name: 'deliberate',
      // Above the first round's estimate ($0.02 for deep), so the deliberation starts.
      arguments: { question: 'Design a cache', policy: 'deep', max_cost: 0.03, timeout_s: 55 },
    });
    const job = await held.sim.control.nextJob();
    held.sim.control.release(job, 3);
    await held.sim.control.phases(job, 3);
    await held.sim.control.parked(job);
    const r = await call;
    const cancels = held.sim.requests.filter((q) => q.method === 'POST' && q.path === `/deliberation/${job}/cancel`);
    expect(cancels).toHaveLength(1);
    expect(text(r)).toMatch(/ended cancelled: stopped at the cost cap of \$0\.03/);
    const s = structured(r);
    expect(s).toMatchObject({
      job_id: job,
      status: 'cancelled',
      done: true,
      error: { code: 'cost_cap', exit_code: 15 },
    });
    // The verdict it had reached is kept: round 1 was scored.
    expect((s['verdict'] as { rounds: { completed: number } }).rounds.completed).toBeGreaterThanOrEqual(1);
    expect((s['usage'] as { cost_usd: number }).cost_usd).toBeGreaterThanOrEqual(0.03);
  });

  it('a cap that is not a positive number is refused by the input schema, before anything is sent', async () => {
    const before = held.sim.requests.length;
    const r = await host.client.callTool({ name: 'deliberate', arguments: { question: 'x', max_cost: 0 } });
    expect((r as CallToolResult).isError).toBe(true);
    expect(text(r)).toMatch(/max_cost/);
    expect(held.sim.requests.slice(before).filter((q) => q.method === 'POST')).toEqual([]);
  });
});
