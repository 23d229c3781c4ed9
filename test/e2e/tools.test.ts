import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/protocol/wire.js';
import { makeToolKit, type ToolKit } from './fixtures/tools.js';
import { parseNdjson, waitForOutput, withRig, type Rig, useRig } from '../harness/rig.js';

// Calls wait up to ten minutes for their result: every answer in these tests comes from the
// test's own step, never from a race against the simulator's clock.
const rig = useRig({ toolWaitMs: 10 * 60_000 });
let kit: ToolKit;
beforeAll(async () => {
  kit = await makeToolKit();
});
afterAll(async () => {
  await rm(kit.dir, { recursive: true, force: true });
});

interface Saved {
  pending_job?: { job_id: string };
  tools?: unknown[];
  turns: Array<{
    role: string;
    content: string;
    status: string;
    job_id?: string;
    tool_calls?: Array<Record<string, unknown>>;
  }>;
}
const read = async (id: string): Promise<Saved> =>
  JSON.parse(await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8')) as Saved;
const chatBodies = () =>
  rig.sim.requests
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => r.body as { messages: ChatMessage[]; tools?: unknown[] });
const events = (stdout: string) => parseNdjson(stdout);
const CALCULATE = 'Use the calculator to compute 2+2';
/** `ask` on the compat path (a policy), offering the tools of `tools`. */
const compatAsk = (tools: string, output: string, prompt = CALCULATE): string[] => [
  'ask',
  '-p',
  'fast',
  '--tools',
  tools,
  '-o',
  output,
  prompt,
];
/** `ask` on the native path (a council of two agents, two rounds), offering the tools of `tools`. */
const nativeAsk = (tools: string, output: string, prompt = CALCULATE): string[] => [
  'ask',
  '--agents',
  'CortexA,CortexB',
  '--rounds',
  '2',
  '--tools',
  tools,
  '-o',
  output,
  prompt,
];
const ofType = (stdout: string, type: string) => events(stdout).filter((e) => e['type'] === type);

describe('a declared tool runs and the council uses its result', () => {
  it('compat: runs the calculator for 2+2, sends the result back on the same thread, and the same job answers with it', async () => {
    const tools = await kit.toolsFile(['calculator']);
    const before = chatBodies().length;
    const r = await rig.run(compatAsk(tools, 'ndjson'));
    expect(r.code, r.stderr).toBe(0);
    const [call] = ofType(r.stdout, 'tool-call');
    expect(call).toMatchObject({ name: 'calculator', arguments: '{"expr":"2+2"}' });
    expect(ofType(r.stdout, 'tool-result')).toEqual([
      expect.objectContaining({ id: call?.['id'], content: '4', exit_code: 0, status: 'ok' }),
    ]);
    const finish = ofType(r.stdout, 'finish')[0];
    expect(finish?.['content']).toContain('`calculator` returned “4”');
    // On the wire: the follow-up carries the assistant tool_calls message and the tool message with its id.
    const [first, follow] = chatBodies().slice(before);
    expect(follow?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call?.['id'], type: 'function', function: { name: 'calculator', arguments: '{"expr":"2+2"}' } },
        ],
      },
      { role: 'tool', tool_call_id: call?.['id'], content: '4' },
    ]);
    expect(follow?.tools).toEqual(first?.tools);
    const sent = rig.sim.requests.filter((q) => q.path === '/v1/chat/completions').slice(-2);
    expect(sent[0]?.headers['x-opencode-session']).toBe(sent[1]?.headers['x-opencode-session']);
    const saved = await read(String(finish?.['session']));
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns[1]?.tool_calls).toEqual([
      expect.objectContaining({ id: call?.['id'], result: '4', status: 'ok', exit_code: 0 }),
    ]);
    // The tool definitions are kept for later turns; how to run them is not.
    expect(JSON.stringify(saved.tools)).not.toContain('calc.js');
  });

  it('native: offers the tool as user_tools and answers the live call through the tool-call endpoint', async () => {
    const tools = await kit.toolsFile(['calculator']);
    const r = await rig.run(nativeAsk(tools, 'json'));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { content: string; job_id: string };
    expect(out.content).toContain('`calculator` returned “4”');
    const submit = rig.sim.requests.filter((q) => q.path === '/deliberation').at(-1)?.body as {
      user_tools: Array<{ name: string }>;
    };
    expect(submit.user_tools.map((t) => t.name)).toEqual(['calculator']);
    const answer = rig.sim.requests.find(
      (q) => q.method === 'POST' && q.path.startsWith(`/deliberation/${out.job_id}/tool-calls/`),
    );
    expect(answer?.body).toEqual({ result: '4' });
  });

  it('passes the arguments on stdin and in NSED_TOOL_* variables, and never the bearer token', async () => {
    const tools = await kit.toolsFile(['env']);
    const r = await rig.run(compatAsk(tools, 'ndjson', 'Use the env tool on 6*7'), {
      env: { NSED_TOKEN: 'secret-token-123' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(ofType(r.stdout, 'tool-result')[0]?.['content']).toBe('env|call_|{"expr":"6*7"}|no-token');
    expect(r.stdout + r.stderr).not.toContain('secret-token-123');
  });
});

describe('only declared tools run, and a failing tool still lets the turn end', () => {
  it('answers a call to an undeclared tool with an error result and runs nothing (the canary stays absent)', async () => {
    rig.sim.setFaults(['call-tool=touch_canary;times=1']);
    const tools = await kit.toolsFile(['calculator']);
    const r = await rig.run(compatAsk(tools, 'ndjson', 'Plan a cache'), {
      env: { PATH: `${kit.dir}:${process.env['PATH'] ?? ''}` },
    });
    rig.sim.setFaults([]);
    expect(r.code, r.stderr).toBe(0);
    expect(ofType(r.stdout, 'tool-result')).toEqual([
      expect.objectContaining({ name: 'touch_canary', status: 'refused', exit_code: null }),
    ]);
    expect(existsSync(kit.canary)).toBe(false);
    expect(String(ofType(r.stdout, 'finish')[0]?.['content'])).toContain("tool 'touch_canary' was not declared");
  });

  it.each([
    ['slow', 'timeout', { timeout: 1 }, /did not finish within 1 s/],
    ['fail', 'error', {}, /exited with status 3: the database is down/],
    ['big', 'capped', {}, /was cut at 1048576 bytes/],
  ])('a %s tool yields a %s result and the deliberation still answers', async (name, status, extra, text) => {
    const tools = await kit.toolsFile([name], { [name]: extra });
    const r = await rig.run(compatAsk(tools, 'ndjson', `Use the ${name} tool to check 2+2`));
    expect(r.code, r.stderr).toBe(0);
    const [result] = ofType(r.stdout, 'tool-result');
    expect(result).toMatchObject({ status });
    expect(String(result?.['content'])).toMatch(text);
    expect(String(result?.['content']).length).toBeLessThan(1024 * 1024 + 200);
    expect(ofType(r.stdout, 'finish')[0]?.['finish_reason']).toBe('stop');
  });
});

describe('a call nsed cannot run waits for its result', () => {
  it('refuses a tools file whose command is a shell string, with one usage line (exit 2)', async () => {
    const file = join(kit.dir, 'shell.json');
    await writeFile(file, JSON.stringify([{ type: 'function', function: { name: 'calc' }, command: 'node calc.js' }]));
    const r = await rig.run(['ask', '-p', 'fast', '--tools', file, 'Use calc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^nsed: tool 1 in .*shell\.json \(calc\): command must be an argv array, not a string\nhint: /,
    );
  });

  it('stops with exit 10 and the call on stderr; continue --tool-result sends it and the same job answers', async () => {
    const tools = await kit.offerOnlyFile();
    const r = await rig.run(['ask', '-p', 'fast', '--tools', tools, 'Use the calculator to compute 2+2']);
    expect(r.code, r.stderr).toBe(10);
    expect(r.stdout).toBe('');
    const callId = /tool call calculator \{"expr":"2\+2"\} · (call_[0-9a-f]+)/.exec(r.stderr)?.[1] ?? '';
    expect(callId).not.toBe('');
    expect(r.stderr).toContain(`--tool-result ${callId}=FILE`);
    const session = /session (\S+)/.exec(r.stderr)?.[1] ?? '';
    const waiting = await read(session);
    expect(waiting.pending_job).toBeDefined();
    const jobId = waiting.pending_job?.job_id ?? '';
    const status = await fetch(`${rig.sim.url}/deliberation/${jobId}/result`).then(
      (x) => x.json() as Promise<{ status: string }>,
    );
    expect(status.status).toBe('running');

    // A plain follow-up would not answer the call: refused with the way to answer it.
    const busy = await rig.run(['continue', '-s', session, 'and 3+3?']);
    expect(busy.code).toBe(7);
    expect(busy.stderr).toContain(`hint: nsed continue -s ${session} --tool-result ${callId}=FILE`);

    const done = await rig.run(['continue', '-s', session, '--tool-result', `${callId}=-`, '-o', 'json'], {
      stdin: '4\n',
    });
    expect(done.code, done.stderr).toBe(0);
    const out = JSON.parse(done.stdout) as { content: string; job_id: string };
    expect(out.job_id).toBe(jobId);
    expect(out.content).toContain('`calculator` returned “4”');
    const saved = await read(session);
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([
      expect.objectContaining({
        job_id: jobId,
        status: 'complete',
        tool_calls: [expect.objectContaining({ id: callId, result: '4', status: 'answered' })],
      }),
    ]);
  });

  it('two continue --tool-result on one session: one answers, the other exits 7 and sends nothing (the turn lease)', async () => {
    await withRig({ hold: true, toolWaitMs: 10 * 60_000 }, async (held) => {
      const tools = await kit.offerOnlyFile();
      const asking = held.start(['ask', '-p', 'fast', '--tools', tools, 'Use the calculator to compute 2+2']);
      const jobId = await held.sim.control.nextJob();
      // Phase by phase until the council calls the tool: that phase parks nowhere (the job waits
      // for the result) and the ask stops with exit 10, leaving the job no phase to run after it.
      let stopped: Awaited<typeof asking.result> | undefined;
      while (stopped === undefined) {
        const ran = held.sim.control.job(jobId)?.phases ?? 0;
        held.sim.control.release(jobId, 1);
        const next = held.sim.control.phases(jobId, ran + 1).then(() => held.sim.control.parked(jobId));
        stopped = await Promise.race([asking.result, next.then(() => undefined)]);
      }
      expect(stopped.code, stopped.stderr).toBe(10);
      const callId = /(call_[0-9a-f]+)/.exec(stopped.stderr)?.[1] ?? '';
      const session = /session (\S+)/.exec(stopped.stderr)?.[1] ?? '';
      const sent = () => held.sim.requests.filter((r) => r.path === '/v1/chat/completions').length;

      // The first answer reaches the job, which then parks at its next phase: that command is
      // now following the turn it claimed.
      const first = held.start(['continue', '-s', session, '--tool-result', `${callId}=-`, '-o', 'json'], {
        stdin: '4\n',
      });
      await held.sim.control.parked(jobId);
      const before = sent();
      const second = await held.run(['continue', '-s', session, '--tool-result', `${callId}=-`], { stdin: '5\n' });
      expect(second.code).toBe(7);
      expect(second.stderr).toMatch(/^nsed: session \S+ has a turn being sent by another nsed process \(pid \d+\)\n/);
      expect(sent()).toBe(before);

      held.sim.control.release(jobId);
      const done = await first.result;
      expect(done.code, done.stderr).toBe(0);
      expect((JSON.parse(done.stdout) as { content: string }).content).toContain('`calculator` returned “4”');
      const saved = await held.session<Saved & { claim?: unknown }>(session);
      expect(saved.claim).toBeUndefined();
      expect(saved.pending_job).toBeUndefined();
      expect(saved.turns.filter((t) => t.role === 'assistant')).toEqual([
        expect.objectContaining({
          status: 'complete',
          tool_calls: [expect.objectContaining({ id: callId, result: '4', status: 'answered' })],
        }),
      ]);
      // Once the call is answered, another result for it is refused before anything is sent.
      const late = await held.run(['continue', '-s', session, '--tool-result', `${callId}=-`], { stdin: '6\n' });
      expect(late.code).toBe(7);
      expect(late.stderr).toContain(`nothing in session ${session} waits for a tool result`);
    });
  });

  it('prints the call as a tool-call event and ends with finish_reason tool_calls in NDJSON, and in the -o json object', async () => {
    const tools = await kit.offerOnlyFile();
    const nd = await rig.run(compatAsk(tools, 'ndjson'));
    expect(nd.code).toBe(10);
    const evs = events(nd.stdout);
    expect(evs.filter((e) => e['type'] === 'tool-call')).toHaveLength(1);
    expect(evs.at(-1)).toMatchObject({ type: 'finish', finish_reason: 'tool_calls' });
    const js = await rig.run(compatAsk(tools, 'json'));
    expect(js.code).toBe(10);
    expect(JSON.parse(js.stdout)).toMatchObject({
      finish_reason: 'tool_calls',
      tool_calls: [expect.objectContaining({ name: 'calculator' })],
    });
  });

  it('native: a second process answers the pending call while the first streams, and the first shows it arriving', async () => {
    const tools = await kit.offerOnlyFile();
    const first = rig.spawn(nativeAsk(tools, 'ndjson'), { timeoutMs: 120_000 });
    let out = '';
    first.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitForOutput(first, (o) => o.includes('"type":"tool-call"'), 60_000);
    const call = events(out).find((e) => e['type'] === 'tool-call');
    const session = String(events(out)[0]?.['session']);
    const second = await rig.runProcess(['tool-result', '-s', session, String(call?.['id']), '4']);
    expect(second.code, second.stderr).toBe(0);
    const r = await first.result;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`nsed tool-result -s ${session} ${String(call?.['id'])} VALUE`);
    expect(ofType(r.stdout, 'tool-result')).toEqual([
      expect.objectContaining({ id: call?.['id'], content: '4', status: 'answered' }),
    ]);
    expect(String(ofType(r.stdout, 'finish')[0]?.['content'])).toContain('`calculator` returned “4”');
    // Once answered, the call cannot be answered again; nothing is running any more either.
    const late = await rig.runProcess(['tool-result', '-s', session, String(call?.['id']), '5']);
    expect(late.code).toBe(7);
  });
});

describe('a call nobody answers', () => {
  it('native: the call expires, is shown and recorded as expired, and the council answers without it', async () => {
    await withRig({ toolWaitMs: 1 }, async (quick) => {
      const tools = await kit.offerOnlyFile();
      const r = await quick.run(nativeAsk(tools, 'ndjson'));
      expect(r.code, r.stderr).toBe(0);
      const [call] = ofType(r.stdout, 'tool-call');
      expect(ofType(r.stdout, 'tool-result')).toEqual([
        expect.objectContaining({ id: call?.['id'], status: 'expired', content: '' }),
      ]);
      expect(String(ofType(r.stdout, 'finish')[0]?.['content'])).not.toContain('Tool result');
      const session = String(events(r.stdout)[0]?.['session']);
      const saved = JSON.parse(await readFile(join(quick.home, 'sessions', `${session}.json`), 'utf8')) as Saved;
      expect(saved.turns[1]?.tool_calls).toEqual([expect.objectContaining({ id: call?.['id'], status: 'expired' })]);
      const shown = await quick.run(['sessions', 'show', session]);
      expect(shown.stdout).toContain('→ no answer (expired)');
    });
  });
});

// The strict profile offers no /resume for a native job: the client follows it on the live-only
// named-event stream, where the tool calls arrive as tool_call_pending/responded/expired events.
/**
 * A native ask offering `tools` on a held strict simulator: the job waits until the client
 * listens on its live-only named-event stream and has shown the first round, then runs free.
 */
async function askWhileListening(strict: Rig, tools: string) {
  const running = strict.start(nativeAsk(tools, 'ndjson'));
  const jobId = await strict.sim.control.nextJob();
  await strict.sim.control.attached(jobId);
  strict.sim.control.release(jobId, 1);
  await running.output((o) => o.includes('"type":"round"'), 60_000);
  strict.sim.control.release(jobId);
  return { ...(await running.result), jobId };
}

describe('the native tool loop on the named-event stream (profile strict)', () => {
  it('a declared calculator answers 2+2 through the tool-call endpoint, and the answer uses it', async () => {
    // Held until the process reads its stream (it shows the first proposals, so it has listed
    // the pending calls already): the call can reach it only as tool_call_pending.
    await withRig({ profile: 'strict', hold: true, toolWaitMs: 10 * 60_000 }, async (strict) => {
      const r = await askWhileListening(strict, await kit.toolsFile(['calculator']));
      expect(r.code, r.stderr).toBe(0);
      const [call] = ofType(r.stdout, 'tool-call');
      expect(call).toMatchObject({ arguments: '{"expr":"2+2"}' });
      expect(ofType(r.stdout, 'tool-result')).toEqual([
        expect.objectContaining({ id: call?.['id'], content: '4', exit_code: 0, status: 'ok' }),
      ]);
      const finish = ofType(r.stdout, 'finish')[0];
      expect(String(finish?.['content'])).toContain('`calculator` returned “4”');
      const jobId = String(finish?.['job_id']);
      const sent = strict.sim.requests;
      expect(sent.some((q) => q.method === 'GET' && q.path === `/job/${jobId}/stream`)).toBe(true);
      const answer = sent.find((q) => q.method === 'POST' && q.path.startsWith(`/deliberation/${jobId}/tool-calls/`));
      expect(answer?.body).toEqual({ result: '4' });
    });
  });

  it('an expired call arrives as tool_call_expired, and is shown and recorded as expired', async () => {
    // Held until the client reads its live-only stream, so the call and its expiry happen while
    // it listens; then the call expires at once and the council goes on without it.
    await withRig({ profile: 'strict', hold: true, toolWaitMs: 1 }, async (strict) => {
      const r = await askWhileListening(strict, await kit.offerOnlyFile());
      const jobId = r.jobId;
      expect(r.code, r.stderr).toBe(0);
      const [call] = ofType(r.stdout, 'tool-call');
      expect(call).toMatchObject({ arguments: '{"expr":"2+2"}' });
      expect(ofType(r.stdout, 'tool-result')).toEqual([
        expect.objectContaining({ id: call?.['id'], status: 'expired', content: '' }),
      ]);
      expect(String(ofType(r.stdout, 'finish')[0]?.['content'])).not.toContain('Tool result');
      const session = String(events(r.stdout)[0]?.['session']);
      const saved = await strict.session<Saved>(session);
      expect(saved.turns[1]?.tool_calls).toEqual([expect.objectContaining({ id: call?.['id'], status: 'expired' })]);
      const shown = await strict.run(['sessions', 'show', session]);
      expect(shown.stdout).toContain('→ no answer (expired)');
      expect(strict.sim.requests.some((q) => q.method === 'GET' && q.path === `/job/${jobId}/stream`)).toBe(true);
    });
  });
});

describe('replaying a tool turn', () => {
  it('continue, fork and export --format messages carry the call and its result in the OpenAI shape', async () => {
    const tools = await kit.toolsFile(['calculator']);
    const r = await rig.run(compatAsk(tools, 'json'));
    expect(r.code, r.stderr).toBe(0);
    const { session } = JSON.parse(r.stdout) as { session: string };
    const callId = (await read(session)).turns[1]?.tool_calls?.[0]?.['id'];
    const c = await rig.run(['continue', '-s', session, '-o', 'json', 'and what about latency?']);
    expect(c.code, c.stderr).toBe(0);
    const sent = chatBodies().at(-1);
    expect(sent?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(sent?.messages[1]?.tool_calls?.[0]?.id).toBe(callId);
    expect(sent?.messages[2]).toEqual({ role: 'tool', tool_call_id: callId, content: '4' });
    // The definitions are offered again on continue, so the council can call the tool again.
    expect(sent?.tools).toEqual([
      expect.objectContaining({ function: expect.objectContaining({ name: 'calculator' }) }),
    ]);

    const exported = await rig.run(['sessions', 'export', session, '--format', 'messages']);
    const messages = JSON.parse(exported.stdout) as ChatMessage[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    const forked = await rig.run(['fork', session, '-o', 'json', 'shorter please']);
    expect(forked.code, forked.stderr).toBe(0);
    const forkSent = chatBodies().at(-1);
    expect(forkSent?.messages.filter((m) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: callId, content: '4' },
    ]);
    // A fork keeps its parent's settings, the tools it offers among them, as continue does.
    expect(forkSent?.tools).toEqual(sent?.tools);
    const forkId = (JSON.parse(forked.stdout) as { session: string }).session;
    expect((await read(forkId)).tools).toEqual((await read(session)).tools);

    const shown = await rig.run(['sessions', 'show', session]);
    expect(shown.stdout).toContain('tool calculator {"expr":"2+2"} → 4 (ok, exit 0');
    const md = await rig.run(['sessions', 'export', session, '--format', 'markdown']);
    expect(md.stdout).toContain('- Tool `calculator` called with `{"expr":"2+2"}` → `4` (ok, exit 0)');
  });
});

const resultRequests = (): number =>
  rig.sim.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/result')).length;

// A `tool_calls` finish ends the answer's stream and starts the tool round; the job's own end,
// however the server sends it (a bare [DONE], a close), is settled by /result as for any turn.
describe.each(['bare-done', 'close'])('a tool round on a server whose job streams end with end=%s', (ending) => {
  it('compat: the call runs, the same job is followed, and its end is settled to the answer', async () => {
    const tools = await kit.toolsFile(['calculator']);
    const asked = resultRequests();
    rig.sim.setFaults([`end=${ending}`]);
    const r = await rig.run(compatAsk(tools, 'ndjson'));
    rig.sim.setFaults([]);
    expect(r.code, r.stderr).toBe(0);
    expect(ofType(r.stdout, 'tool-result')).toEqual([expect.objectContaining({ content: '4', status: 'ok' })]);
    const finish = ofType(r.stdout, 'finish')[0];
    expect(finish).toMatchObject({
      finish_reason: 'stop',
      content: expect.stringContaining('`calculator` returned “4”'),
    });
    expect(events(r.stdout).at(-1)?.['type']).toBe('finish');
    expect(resultRequests()).toBeGreaterThan(asked);
    const saved = await read(String(finish?.['session']));
    expect(saved.pending_job).toBeUndefined();
    expect(saved.turns.at(-1)).toMatchObject({ role: 'assistant', status: 'complete', content: finish?.['content'] });
  });

  it('native: the live call is answered and the closing of the stream is settled to the answer', async () => {
    const tools = await kit.toolsFile(['calculator']);
    const asked = resultRequests();
    rig.sim.setFaults([`submit:end=${ending}`]);
    const r = await rig.run(nativeAsk(tools, 'json'));
    rig.sim.setFaults([]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { content: string; finish_reason: string };
    expect(out).toMatchObject({ finish_reason: 'stop', content: expect.stringContaining('`calculator` returned “4”') });
    expect(resultRequests()).toBeGreaterThan(asked);
  });
});

describe('native tool names', () => {
  it('keeps the declared name on the native path in NDJSON, text, the store and every export', async () => {
    const tools = await kit.toolsFile(['calculator']);
    const council = ['--agents', 'CortexA,CortexB', '--rounds', '2', '--tools', tools];
    const r = await rig.run(['ask', ...council, '-o', 'ndjson', 'Use the calculator to compute 2+2']);
    expect(r.code, r.stderr).toBe(0);
    expect(ofType(r.stdout, 'tool-call').map((e) => e['name'])).toEqual(['calculator']);
    expect(ofType(r.stdout, 'tool-result').map((e) => e['name'])).toEqual(['calculator']);
    const id = String(ofType(r.stdout, 'turn-start')[0]?.['session']);

    const saved = await rig.session<{ turns: Array<{ tool_calls?: Array<{ name: string }> }> }>(id);
    expect(saved.turns.flatMap((t) => t.tool_calls ?? []).map((c) => c.name)).toEqual(['calculator']);
    for (const format of ['json', 'ndjson', 'markdown', 'messages', 'thread']) {
      const out = await rig.run(['sessions', 'export', id, '--format', format]);
      expect(out.code).toBe(0);
      expect(out.stdout, format).not.toContain('user_calculator');
    }
    const exported = parseNdjson((await rig.run(['sessions', 'export', id, '--format', 'ndjson'])).stdout);
    expect(exported.filter((e) => e['type'] === 'tool-call').map((e) => e['name'])).toEqual(['calculator']);

    const text = await rig.run(['ask', ...council, 'Use the calculator to compute 2+2']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/tool call calculator/);
    expect(text.stderr + text.stdout).not.toContain('user_calculator');
  });
});
