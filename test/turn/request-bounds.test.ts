import { describe, expect, it } from 'vitest';
import { chunk } from '../api/fixtures.js';
import { instantClock, runCliInProcess } from '../harness/cli.js';
import { parseNdjson } from '../harness/ndjson.js';
import { scriptedRig, sendJson } from '../harness/scripted-rig.js';
import { sseHead, type Route, type Seen } from '../harness/scripted-server.js';

/**
 * Every loop that sends requests has a bound that holds whatever the server answers
 * (docs/reliability.md #90-#95): each test scripts a loopback server built to break one bound,
 * runs the real CLI against it and counts the requests the server saw. The clock is the one
 * stand-in: back-off sleeps end at once, so a bound is reached without waiting it out.
 */

const JOB = 'oc-storm-1700000000000';
const ev = (json: string): string => `data: ${json}\n\n`;
const DONE = ev('[DONE]');

const rig = scriptedRig('bounds');

const posts = (path: string): number => rig.server.seen.filter((s) => s.method === 'POST' && s.url === path).length;
const requests = (suffix: string): number => rig.server.seen.filter((s) => s.url.endsWith(suffix)).length;

async function ask(route: Route, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const server = await rig.serve(route);
  const home = await rig.home({ fresh: true });
  return runCliInProcess(['ask', '--url', server.url, ...args], {
    env: { NSED_HOME: home, NO_COLOR: '1' },
    clock: instantClock(),
  });
}

/** The server's answer to every chat request: a stream (or, for stream:false, one completion) ending with tool_calls. */
function toolCallsEnding(toolCalls: (n: number) => unknown[] | undefined): Route {
  let n = 0;
  return (_req, res, seen: Seen) => {
    if (seen.url !== '/v1/chat/completions') return sendJson(res, 404, { error: 'not found' });
    n += 1;
    const calls = toolCalls(n);
    const streaming = (JSON.parse(seen.body) as { stream?: boolean }).stream === true;
    if (!streaming) {
      const message = { role: 'assistant', content: null, ...(calls === undefined ? {} : { tool_calls: calls }) };
      res.writeHead(200, { 'content-type': 'application/json', 'x-nsed-session-id': JOB });
      res.end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
        }),
      );
      return;
    }
    sseHead(res, { 'x-nsed-session-id': JOB });
    const delta = calls === undefined ? {} : { tool_calls: calls.map((c, index) => ({ index, ...(c as object) })) };
    res.end(ev(chunk({ role: 'assistant', nsed_session_id: JOB })) + ev(chunk(delta, 'tool_calls')) + DONE);
  };
}

const fn = (name: string | undefined, args: string): Record<string, unknown> => ({
  type: 'function',
  function: { ...(name === undefined ? {} : { name }), arguments: args },
});

const UNUSABLE: Array<[string, (n: number) => unknown[] | undefined]> = [
  ['no call at all', () => undefined],
  ['an empty list of calls', () => []],
  ['a call without an id', () => [fn('calculator', '{"x":1}')]],
  ['a call without a name', () => [{ id: 'call_1', ...fn(undefined, '{"x":1}') }]],
  ['arguments that are not JSON', () => [{ id: 'call_1', ...fn('calculator', '{"x":') }]],
];

describe('a tool_calls ending with no usable call (reliability #90)', () => {
  for (const mode of ['stream', 'no-stream'] as const) {
    for (const [what, calls] of UNUSABLE) {
      it(`sends nothing again and exits 5 on ${what} (${mode}, reliability #90)`, async () => {
        const extra = mode === 'no-stream' ? ['--no-stream'] : [];
        const r = await ask(toolCallsEnding(calls), ['-o', 'ndjson', ...extra, 'x']);
        expect(posts('/v1/chat/completions')).toBe(1);
        expect(r.code).toBe(5);
        const events = parseNdjson(r.stdout);
        const terminal = events.filter((e) => e['type'] === 'finish' || e['type'] === 'error');
        expect(terminal).toHaveLength(1);
        expect(terminal[0]).toMatchObject({ type: 'error', code: 'server', exit_code: 5 });
        const lines = r.stderr.split('\n').filter((l) => l.startsWith('nsed: '));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain("finish_reason 'tool_calls'");
        expect(lines[0]).toContain('nothing was sent again');
      });
    }
  }

  it('stops when the follow-up is answered with the same call again (reliability #90)', async () => {
    const same = [{ id: 'call_same', ...fn('calculator', '{"x":1}') }];
    const r = await ask(
      toolCallsEnding(() => same),
      ['-o', 'ndjson', 'x'],
    );
    // The first answer's call is refused (not declared) and handed back once; the repeat ends the turn.
    expect(posts('/v1/chat/completions')).toBe(2);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('no new tool call');
  });
});

describe('tool rounds per turn (reliability #91)', () => {
  for (const max of [0, 2]) {
    it(`sends at most --max-tool-calls + 1 follow-ups to a council that always asks again (max ${max}, reliability #91)`, async () => {
      const r = await ask(
        toolCallsEnding((n) => [{ id: `call_${n}`, ...fn('calculator', '{"x":1}') }]),
        ['-o', 'ndjson', '--max-tool-calls', String(max), 'x'],
      );
      expect(posts('/v1/chat/completions')).toBe(1 + max + 1);
      expect(r.code).toBe(5);
      expect(r.stderr).toContain(`after ${max + 1} tool round`);
      expect(parseNdjson(r.stdout).at(-1)).toMatchObject({ type: 'error', exit_code: 5 });
    });
  }
});

/**
 * Every connection replays the job and adds one event, then closes without [DONE]: progress each
 * time, so the attempts in a row never run out; the resumes in all do.
 */
function oneMoreEachTime(start: 'chat' | 'submit'): Route {
  let connections = 0;
  return (_req, res, seen) => {
    if (seen.url.endsWith('/result')) return sendJson(res, 200, { job_id: JOB, status: 'running', result: null });
    if (start === 'submit' && seen.url === '/deliberation') return sendJson(res, 202, { job_id: JOB });
    if (start === 'chat' && seen.url === '/v1/chat/completions') connections = 0;
    else if (!seen.url.endsWith('/resume')) return sendJson(res, 404, { error: 'not found' });
    connections += 1;
    sseHead(res, { 'x-nsed-session-id': JOB });
    let body = ev(chunk({ role: 'assistant', nsed_session_id: JOB }));
    for (let i = 0; i < connections; i++) body += ev(chunk({ content: `${i} ` }));
    res.end(body);
  };
}

describe('resumes per turn (reliability #92)', () => {
  it('stops resuming a compat stream that drops after one more event every time (reliability #92, #31)', async () => {
    const r = await ask(oneMoreEachTime('chat'), ['-o', 'ndjson', 'x']);
    expect(posts('/v1/chat/completions')).toBe(1);
    expect(requests('/resume')).toBe(200);
    expect(r.code).toBe(6);
    const events = parseNdjson(r.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'error', exit_code: 6 });
  });

  it('stops resuming a native job whose stream drops after one more event every time (reliability #92)', async () => {
    const r = await ask(oneMoreEachTime('submit'), ['-o', 'ndjson', '--agents', 'A,B', 'x']);
    expect(posts('/deliberation')).toBe(1);
    // The first /resume follows the job; the 200 after it are the resumes of the turn.
    expect(requests('/resume')).toBe(201);
    expect(r.code).toBe(6);
  });
});

describe('live tool calls answered per turn (reliability #93)', () => {
  it('answers at most --max-tool-calls + 16 live calls of a stream that never stops asking (reliability #93)', async () => {
    const CALLS = 100;
    const ids = Array.from({ length: CALLS }, (_, i) => `call_${i}`);
    let release: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const answers = (): number =>
      rig.server.seen.filter((s) => s.method === 'POST' && s.url.includes('/tool-calls/')).length;
    const route: Route = (_req, res, seen) => {
      if (seen.url === '/deliberation') return sendJson(res, 202, { job_id: JOB });
      if (seen.url.includes('/tool-calls?')) {
        const pending = ids.map((call_id) => ({ call_id, tool_name: 'calculator', status: 'Pending', arguments: {} }));
        return sendJson(res, 200, { tool_calls: pending });
      }
      if (seen.url.includes('/tool-calls/')) {
        sendJson(res, 200, { ok: true });
        if (answers() === 16) release();
        return;
      }
      if (!seen.url.endsWith('/resume')) return sendJson(res, 404, { error: 'not found' });
      sseHead(res, { 'x-nsed-session-id': JOB });
      let body = ev(chunk({ role: 'assistant', nsed_session_id: JOB }));
      for (const call_id of ids)
        body += ev(chunk({ nsed_tool_call_pending: { call_id, tool_name: 'calculator', arguments: { x: 1 } } }));
      res.write(body);
      // The answer ends only once the bound was reached, so nothing is cut short by the end of the turn.
      void answered.then(() => res.end(ev(chunk({ content: 'done' })) + ev(chunk({}, 'stop')) + DONE));
    };
    const r = await ask(route, ['-o', 'ndjson', '--agents', 'A,B', '--max-tool-calls', '0', 'x']);
    expect(r.code).toBe(0);
    expect(answers()).toBe(16);
    expect(r.stderr).toContain('left to expire');
  });
});

describe('sends of a start request (reliability #94, #45, #46, #44)', () => {
  for (const status of [429, 503]) {
    it(`sends a start turned away with ${status} and Retry-After at most 4 times (reliability #94, #45)`, async () => {
      const r = await ask(
        (_req, res) => {
          res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
          res.end(JSON.stringify({ error: { message: 'busy' } }));
        },
        ['-o', 'ndjson', 'x'],
      );
      expect(posts('/v1/chat/completions')).toBe(4);
      expect(r.code).toBe(5);
    });
  }

  it('never sends again a start answered 500, or 429 without Retry-After (reliability #46)', async () => {
    for (const [status, headers] of [
      [500, { 'retry-after': '0' }],
      [429, {}],
    ] as const) {
      const r = await ask(
        (_req, res) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify({ error: { message: 'no' } }));
        },
        ['-o', 'ndjson', 'x'],
      );
      expect(posts('/v1/chat/completions')).toBe(1);
      expect(r.code).toBe(5);
    }
  });

  it('never sends again a start whose connection closed before the answer (reliability #94, #44)', async () => {
    const r = await ask((_req, res) => res.destroy(), ['-o', 'ndjson', 'x']);
    expect(posts('/v1/chat/completions')).toBe(1);
    expect(r.code).toBe(6);
  });
});

describe('reconciling what an earlier run left (reliability #95)', () => {
  it('asks /result once before continue and resume, and sends no turn while the job runs (reliability #95)', async () => {
    const route: Route = (_req, res, seen) => {
      if (seen.url.endsWith('/result')) return sendJson(res, 200, { job_id: JOB, status: 'running', result: null });
      if (seen.url.endsWith('/resume')) return sendJson(res, 503, { error: 'busy' });
      if (seen.url !== '/v1/chat/completions') return sendJson(res, 404, { error: 'not found' });
      sseHead(res, { 'x-nsed-session-id': JOB });
      res.end(ev(chunk({ role: 'assistant', nsed_session_id: JOB })) + ev(chunk({ content: 'part' })));
    };
    const first = await ask(route, ['-o', 'ndjson', 'x']);
    expect(first.code).toBe(6);
    const session = String(parseNdjson(first.stdout)[0]?.['session']);
    const url = rig.server.url;
    const env = { NSED_HOME: rig.homeDir, NO_COLOR: '1' };
    const since = rig.server.seen.length;
    const cont = await runCliInProcess(['continue', '--url', url, '-s', session, 'y'], { env, clock: instantClock() });
    expect(cont.code).toBe(7);
    const during = rig.server.seen.slice(since);
    expect(during.map((s) => `${s.method} ${s.url}`)).toEqual([`GET /deliberation/${JOB}/result`]);
    const before = rig.server.seen.length;
    const resumed = await runCliInProcess(['resume', '--url', url, '-s', session], { env, clock: instantClock() });
    expect(resumed.code).not.toBe(0);
    const asked = rig.server.seen.slice(before).map((s) => `${s.method} ${s.url}`);
    expect(asked.filter((a) => a.endsWith('/result'))).toHaveLength(1);
    expect(asked.filter((a) => a.startsWith('POST') && !a.endsWith('/resume'))).toEqual([]);
  });
});
