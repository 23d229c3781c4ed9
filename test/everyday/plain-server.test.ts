import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess, type CliOptions } from '../harness/cli.js';
import { parseNdjson } from '../harness/rig.js';
import { startPlainServer, type PlainServer } from './plain-server.js';

const ANSWER = 'Hello from a plain server.';
let plain: PlainServer;
let home: string;
const run = (args: string[], opts: CliOptions = {}) =>
  runCliInProcess(args, { ...opts, env: { NSED_HOME: home, NSED_URL: plain.url, NO_COLOR: '1', ...opts.env } });

beforeAll(async () => {
  plain = await startPlainServer(ANSWER);
  home = await mkdtemp(join(tmpdir(), 'nsed-plain-'));
});
afterAll(async () => {
  await plain.close();
  await rm(home, { recursive: true, force: true });
});

const models = () =>
  plain.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => (r.body as { model: string }).model);

describe('-m/--model against a plain OpenAI-compatible server (no x-nsed-session-id, no rounds, no /deliberation)', () => {
  it('ask -m sends the model exactly as given; text mode prints the answer', async () => {
    const r = await run(['ask', '-m', 'gpt-4o-mini', 'hello']);
    expect(r.stderr).not.toContain('nsed:');
    expect(r.code).toBe(0);
    // A finished answer ends its line, as on an NSED orchestrator.
    expect(r.stdout).toBe(`${ANSWER}\n`);
    expect(models().at(-1)).toBe('gpt-4o-mini');
  });

  it('every output mode works: final, json, ndjson, and --no-stream', async () => {
    const final = await run(['ask', '-m', 'llama3', '-o', 'final', 'hello']);
    expect(final.code).toBe(0);
    expect(final.stdout).toBe(`${ANSWER}\n`);
    const json = await run(['ask', '-m', 'llama3', '-o', 'json', 'hello']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ content: ANSWER, job_id: null, policy: 'llama3', rounds: [], finish_reason: 'stop' });
    const nd = await run(['ask', '-m', 'llama3', '-o', 'ndjson', 'hello']);
    expect(nd.code).toBe(0);
    const events = parseNdjson(nd.stdout);
    expect(events.at(-1)).toMatchObject({ type: 'finish', content: ANSWER, job_id: null });
    expect(events.some((e) => e.type === 'round' || e.type === 'job')).toBe(false);
    const blocking = await run(['ask', '-m', 'llama3', '--no-stream', '-o', 'final', 'hello']);
    expect(blocking.code).toBe(0);
    expect(blocking.stdout).toBe(`${ANSWER}\n`);
    expect((plain.requests.at(-1)?.body as { stream: boolean }).stream).toBe(false);
  });

  it('continue and fork keep the model as sent, and resend the whole conversation', async () => {
    const first = await run(['ask', '-m', 'qwen2.5:7b', '-o', 'json', 'first question']);
    const id = (JSON.parse(first.stdout) as { session: string }).session;
    const next = await run(['continue', '-s', id, '-o', 'final', 'second question']);
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
    expect(models().at(-1)).toBe('qwen2.5:7b');
    const body = plain.requests.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const forked = await run(['fork', id, '--at', '2', '-o', 'final', 'a third way']);
    expect(forked.code).toBe(0);
    expect(models().at(-1)).toBe('qwen2.5:7b');
    const swapped = await run(['continue', '-s', id, '-m', 'other-model', '-o', 'final', 'again']);
    expect(swapped.code).toBe(0);
    expect(models().at(-1)).toBe('other-model');
  });

  it('inject and cancel on such a session fail with one line: the server is not an NSED orchestrator', async () => {
    const first = await run(['ask', '-m', 'gpt-4o-mini', '-o', 'json', 'hi']);
    const id = (JSON.parse(first.stdout) as { session: string }).session;
    for (const args of [
      ['inject', '-s', id, 'focus'],
      ['cancel', '-s', id],
    ]) {
      const r = await run(args);
      expect(r.stderr, args[0]).toMatch(/^nsed: .*not an NSED orchestrator.*\n(hint: [^\n]*\n)?$/);
      expect(r.stderr, args[0]).not.toContain('/v1');
      expect(r.code, args[0]).toBe(2);
    }
  });

  it('resume on such a session says the turn had no deliberation to follow, exit 7 as after any finished turn', async () => {
    const first = await run(['ask', '-m', 'gpt-4o-mini', '-o', 'json', 'hi']);
    const id = (JSON.parse(first.stdout) as { session: string }).session;
    const r = await run(['resume', '-s', id]);
    expect(r.stderr).toMatch(/^nsed: nothing is running in session \S+: its last turn had no deliberation to follow\n/);
    expect(r.code).toBe(7);
  });

  it('--agents (the native path) fails with one line saying the server is not an NSED orchestrator', async () => {
    const r = await run(['ask', '--agents', 'A,B', 'hi']);
    expect(r.stderr).toMatch(/^nsed: .*not an NSED orchestrator/);
    expect(r.stderr).not.toContain('/v1');
    expect(r.code).toBe(2);
  });

  it("-m sets aside the config file's policy, council and rounds; --verbose names the file as the URL's source", async () => {
    const config = join(home, 'config.json');
    await writeFile(config, JSON.stringify({ url: plain.url, policy: 'deep', agents: ['A', 'B'], rounds: 2 }));
    const r = await run(['ask', '-m', 'phi3', '--verbose', '-o', 'final', 'hello'], {
      env: { NSED_CONFIG: config, NSED_URL: undefined },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${ANSWER}\n`);
    expect(r.stderr).toContain(`url ${plain.url} (from the config file)`);
    // The file's agents and rounds would have sent this to /deliberation, which the server lacks.
    expect(plain.requests.at(-1)?.path).toBe('/v1/chat/completions');
    expect(models().at(-1)).toBe('phi3');
  });

  it('-m and -p are exclusive (usage, exit 2)', async () => {
    const r = await run(['ask', '-m', 'x', '-p', 'deep', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^nsed: .*(model|policy)/);
    const files = await readdir(join(home, 'sessions'));
    for (const f of files.filter((n) => n.endsWith('.json'))) {
      expect(await readFile(join(home, 'sessions', f), 'utf8')).not.toContain('nsed:gpt');
    }
  });
});
