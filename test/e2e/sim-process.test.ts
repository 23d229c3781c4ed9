import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli, waitForOutput } from '../harness/rig.js';

const run = promisify(execFile);

/** `nsed sim` as a user starts it; resolves with its base URL from the first stdout line. */
async function startSimProcess(args: string[]): Promise<{
  child: ChildProcess & { result: Promise<{ code: number | null; stdout: string; stderr: string }> };
  url: string;
}> {
  const child = spawnCli(['sim', '--port', '0', '--host', '127.0.0.1', ...args], { stdin: 'inherit-open' });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitForOutput(child, (o) => o.includes('\n'));
  const first = out.split('\n')[0] ?? '';
  const m = /^nsed sim listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first);
  expect(m, first).not.toBeNull();
  return { child, url: m?.[1] ?? '' };
}

let current: ChildProcess | undefined;
afterEach(() => {
  current?.kill('SIGKILL');
  current = undefined;
});

async function curl(args: string[]): Promise<string> {
  const { stdout } = await run('curl', ['-sS', ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

describe("nsed sim as a process, driven by the seeds' curl examples", () => {
  it('runs the two-terminal mid-flight injection example as seed chat-completions describes it', async () => {
    // --hold keeps the deliberation at its phase boundaries until the /_sim/ control releases it.
    const { child, url } = await startSimProcess(['--round-ms', '5', '--token', 'demo-token', '--hold']);
    current = child;
    const auth = ['-H', 'Authorization: Bearer demo-token', '-H', 'x-opencode-session: ses_example'];
    const terminal1 = curl([
      '-N',
      '-X',
      'POST',
      `${url}/v1/chat/completions`,
      ...auth,
      '-d',
      JSON.stringify({
        model: 'nsed:deep',
        messages: [{ role: 'user', content: 'Design a distributed cache' }],
        stream: true,
      }),
    ]);
    const { jobId } = JSON.parse(await curl([`${url}/_sim/next-job`])) as { jobId: string };
    const released = JSON.parse(
      await curl(['-X', 'POST', `${url}/_sim/jobs/${jobId}/release`, '-d', '{"phases":1}']),
    ) as { phases: number };
    expect(released.phases).toBeLessThanOrEqual(1);
    expect(JSON.parse(await curl([`${url}/_sim/jobs/${jobId}/wait?for=parked`]))).toMatchObject({
      phases: 1,
      parked: true,
      ended: false,
    });
    const body = {
      model: 'nsed:deep',
      messages: [
        { role: 'user', content: 'Design a distributed cache' },
        { role: 'user', content: 'Focus on memory safety over throughput' },
      ],
      stream: false,
    };
    const answer = curl(['-X', 'POST', `${url}/v1/chat/completions`, ...auth, '-d', JSON.stringify(body)]);
    expect(JSON.parse(await curl([`${url}/_sim/jobs/${jobId}/wait?for=injected`]))).toMatchObject({
      injected: 1,
      ended: false,
    });
    await curl(['-X', 'POST', `${url}/_sim/jobs/${jobId}/release`]);
    const terminal2 = JSON.parse(await answer) as {
      object: string;
      choices: Array<{ message: { content: string }; finish_reason: string }>;
    };
    const stream = await terminal1;
    expect(terminal2.object).toBe('chat.completion');
    expect(terminal2.choices[0]?.finish_reason).toBe('stop');
    const lines = stream.split('\n').filter((l) => l.startsWith('data: '));
    expect(lines.at(-1)).toBe('data: [DONE]');
    const chunks = lines
      .slice(0, -1)
      .map((l) => JSON.parse(l.slice(6)) as { choices: Array<{ delta: Record<string, unknown> }> });
    const injected = chunks.map((c) => c.choices[0]?.delta['nsed_injected']).filter(Boolean);
    expect(injected).toEqual([
      expect.objectContaining({ message: 'Focus on memory safety over throughput', sequence: 1 }),
    ]);
    const content = chunks.map((c) => c.choices[0]?.delta['content'] ?? '').join('');
    expect(content).toBe(terminal2.choices[0]?.message.content);
    expect(chunks[0]?.choices[0]?.delta['nsed_session_id']).toMatch(/^oc-ses_example-\d+/);

    child.kill('SIGTERM');
    const r = await child.result;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^POST \/v1\/chat\/completions 200 \d+ms$/m);
    // The control routes are not orchestrator requests: not logged.
    expect(r.stderr).not.toContain('/_sim/');
  });

  it("answers the thread tutorial's /deliberation requests, and refuses messages with user_query", async () => {
    const { child, url } = await startSimProcess(['--round-ms', '5']);
    current = child;
    const base = {
      conversation_id: 'thread-9f2c',
      agent_names: ['Corepunk01', 'Corepunk02', 'Corepunk03'],
      deliberation_rounds: 2,
    };
    const first = JSON.parse(
      await curl([
        `${url}/deliberation`,
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({ ...base, room_id: 'room-1a2b3c4d', user_query: 'What is the sound of one hand clapping?' }),
      ]),
    ) as { job_id: string };
    expect(first.job_id).toBe('room-1a2b3c4d');
    const both = await run('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      `${url}/deliberation`,
      '-d',
      JSON.stringify({
        ...base,
        room_id: 'room-5e6f7a8b',
        user_query: 'x',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ]);
    expect(both.stdout).toBe('400');
    const messages = [
      { role: 'user', content: 'What is the sound of one hand clapping?' },
      { role: 'assistant', content: 'A Zen koan attributed to Hakuin Ekaku…' },
      { role: 'user', content: 'yo what about forests?' },
    ];
    const second = JSON.parse(
      await curl([`${url}/deliberation`, '-d', JSON.stringify({ ...base, room_id: 'room-9c0d1e2f', messages })]),
    ) as { job_id: string };
    const details = JSON.parse(await curl([`${url}/deliberation/${second.job_id}/details`])) as {
      query: string;
      messages: unknown;
    };
    expect(details.query).toBe(
      '[user] What is the sound of one hand clapping?\n\n[assistant] A Zen koan attributed to Hakuin Ekaku…\n\n[user] yo what about forests?',
    );
    expect(details.messages).toEqual(messages);
    child.kill('SIGINT');
    expect((await child.result).code).toBe(0);
  });
});

describe('nsed sim options', () => {
  it("--help lists the simulator's options only, none of the client's", async () => {
    const r = await spawnCli(['sim', '--help']).result;
    expect(r.code).toBe(0);
    for (const own of ['--port', '--profile', '--dedup', '--round-ms', '--fault', '--token '])
      expect(r.stdout).toContain(own);
    for (const client of [
      '--url',
      '--token-file',
      '--home',
      '--output',
      '--quiet',
      '--timeout',
      '--idle-timeout',
      '--color',
      '--sim ',
    ]) {
      expect(r.stdout).not.toContain(client);
    }
  });

  it('NSED_SIM_PROFILE=strict serves the strict profile: a passthrough answer carries no session id', async () => {
    const child = spawnCli(['sim', '--port', '0'], {
      stdin: 'inherit-open',
      timeoutMs: 60_000,
      env: { NSED_SIM_PROFILE: 'strict' },
    });
    current = child;
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitForOutput(child, (o) => o.includes('\n'));
    const url = /listening on (\S+)/.exec(out)?.[1] ?? '';
    const headers = await curl([
      '-s',
      '-D',
      '-',
      '-o',
      '/dev/null',
      `${url}/v1/chat/completions`,
      '-d',
      JSON.stringify({ model: 'nsed:passthrough', messages: [{ role: 'user', content: 'hi' }] }),
    ]);
    expect(headers).toMatch(/^HTTP\/1\.1 200/);
    expect(headers.toLowerCase()).not.toContain('x-nsed-session-id');
  });

  it('refuses an unknown profile with exit 2 and names the choices', async () => {
    const r = await spawnCli(['sim', '--port', '0'], { env: { NSED_SIM_PROFILE: 'lenient' } }).result;
    expect(r.code).toBe(2);
    // The setting's one rule and line, whatever names the value (docs/reference.md).
    expect(r.stderr).toMatch(/^nsed: NSED_SIM_PROFILE must be one of default, strict, not 'lenient'\n$/);
  });
});

describe('--sim with NSED_SIM_PROFILE', () => {
  it('runs a turn on an in-process strict simulator, and refuses an unknown profile with exit 2', async () => {
    const home = await mkdtemp(join(tmpdir(), 'nsed-sim-profile-'));
    try {
      const env = { NSED_HOME: home, NSED_SIM_ROUND_MS: '0' };
      const ok = await spawnCli(['ask', '--sim', '-o', 'json', '-p', 'fast', 'Pick a queue'], {
        env: { ...env, NSED_SIM_PROFILE: 'strict' },
      }).result;
      expect(ok.code, ok.stderr).toBe(0);
      expect((JSON.parse(ok.stdout) as { content: string }).content).toMatch(/^## Pick a queue/);
      const bad = await spawnCli(['ask', '--sim', 'Pick a queue'], { env: { ...env, NSED_SIM_PROFILE: 'loose' } })
        .result;
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^nsed: NSED_SIM_PROFILE must be one of default, strict, not 'loose'$/m);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
