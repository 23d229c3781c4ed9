import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, type CliProcess, spawnCli, waitForOutput } from '../harness/process.js';

/**
 * Schemas whose smallest valid value no answer could carry. Before the simulator bounded what it
 * generates, each one held its only thread at full CPU: every route stopped answering and SIGTERM
 * was never handled (docs/reliability.md #276).
 */
const WEDGING: Array<[string, Record<string, unknown>]> = [
  ['a string of minLength 1e9', { type: 'string', minLength: 1_000_000_000 }],
  ['an array of minItems 1e8', { type: 'array', items: { type: 'string' }, minItems: 100_000_000 }],
  [
    '100,000 required long strings',
    {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 100_000 }, (_, i) => [`f${i}`, { type: 'string', minLength: 40 }]),
      ),
      required: Array.from({ length: 100_000 }, (_, i) => `f${i}`),
    },
  ],
];

/** `nsed sim` as a user starts it (the real process: only a process shows how it takes SIGTERM). */
async function startSimProcess(): Promise<{ child: CliProcess; url: string }> {
  const child = spawnCli(['sim', '--port', '0', '--host', '127.0.0.1', '--round-ms', '5'], { stdin: 'inherit-open' });
  let out = '';
  child.stdout?.on('data', (d: Buffer | string) => (out += d.toString()));
  await waitForOutput(child, (o) => o.includes('\n'));
  const m = /^nsed sim listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
  expect(m, out).not.toBeNull();
  return { child, url: m?.[1] ?? '' };
}

let current: CliProcess | undefined;
afterEach(() => {
  current?.kill('SIGKILL');
  current = undefined;
});

async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('a schema that asks for more than any answer holds', () => {
  it('is a 400 on every route that takes a schema, the simulator answers on, and SIGTERM still ends it', async () => {
    const { child, url } = await startSimProcess();
    current = child;
    const question = 'Review the retry loop';
    for (const [what, schema] of WEDGING) {
      const chat = await postJson(`${url}/v1/chat/completions`, {
        model: 'nsed:fast',
        messages: [{ role: 'user', content: question }],
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
      });
      expect(chat.status, what).toBe(400);
      expect(chat.body, what).toMatchObject({ error: { param: 'response_format', code: 'invalid_request' } });
      expect((chat.body as { error: { message: string } }).error.message, what).toMatch(
        /past the \d+ (?:characters|values) the simulator generates \(lower (?:minLength|minItems|minProperties)/,
      );

      const responses = await postJson(`${url}/v1/responses`, {
        model: 'nsed:fast',
        input: question,
        text: { format: { type: 'json_schema', name: 'answer', schema } },
      });
      expect(responses.status, what).toBe(400);
      expect(responses.body, what).toMatchObject({ error: { param: 'text.format' } });

      // The native route: nsed words the schema into system_instructions.
      const native = await postJson(`${url}/deliberation`, {
        room_id: 'room-bounds',
        user_query: question,
        agent_names: ['CortexA', 'CortexB'],
        system_instructions: `Answer with JSON that matches this JSON Schema:\n${JSON.stringify(schema)}`,
      });
      expect(native.status, what).toBe(400);
      expect((native.body as { error: string }).error, what).toMatch(/system_instructions/);

      // A tool whose parameters ask as much is refused the same way, naming the tool.
      const tool = await postJson(`${url}/v1/chat/completions`, {
        model: 'nsed:fast',
        messages: [{ role: 'user', content: 'Use huge on the retry loop' }],
        tools: [
          {
            type: 'function',
            function: { name: 'huge', parameters: { type: 'object', properties: { x: schema }, required: ['x'] } },
          },
        ],
      });
      expect(tool.status, what).toBe(400);
      expect((tool.body as { error: { message: string } }).error.message, what).toContain("'huge'");

      // Nothing was started, and the simulator still answers its other routes.
      const listing = (await (await fetch(`${url}/deliberations`)).json()) as { jobs: unknown[] };
      expect(listing.jobs, what).toEqual([]);
      expect((await fetch(`${url}/v1/models`)).status, what).toBe(200);
    }

    // A schema within the bounds is still answered with a value that fits it.
    const fits = await postJson(`${url}/v1/chat/completions`, {
      model: 'nsed:fast',
      messages: [{ role: 'user', content: question }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'review',
          schema: { type: 'object', properties: { verdict: { enum: ['approve'] } }, required: ['verdict'] },
        },
      },
    });
    expect(fits.status).toBe(200);
    const content = (fits.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content;
    expect(JSON.parse(content ?? 'null')).toEqual({ verdict: 'approve' });

    child.kill('SIGTERM');
    const r = await child.result;
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
  });

  it('nsed ask --schema gets one line on stderr naming the schema, exit 2', async () => {
    const { child, url } = await startSimProcess();
    current = child;
    const dir = await mkdtemp(join(tmpdir(), 'nsed-schema-bounds-'));
    try {
      const file = join(dir, 'huge.schema.json');
      await writeFile(file, JSON.stringify(WEDGING[0]?.[1]));
      const ask = spawnCli(['ask', '-p', 'fast', '--schema', file, 'Review the retry loop'], {
        env: { NSED_URL: url, NSED_HOME: join(dir, 'home') },
      });
      const r = await ask.result;
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines[0]).toMatch(
        /^nsed: .*'response_format' schema asks for a string of at least 1000000000 characters.*lower minLength/,
      );
      expect(r.stdout).toBe('');
      // The simulator is still there for the next question.
      expect((await fetch(`${url}/v1/models`)).status).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('MCP deliberate with such a schema is a tool error naming it, and the next deliberation is answered', async () => {
    const { child, url } = await startSimProcess();
    current = child;
    const dir = await mkdtemp(join(tmpdir(), 'nsed-schema-bounds-mcp-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, NSED_HOME: join(dir, 'home'), NSED_URL: url },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'nsed-test-host', version: '1.0.0' });
    try {
      await client.connect(transport);
      const question = 'Pick a queue for the billing events';
      const huge = (await client.callTool({
        name: 'deliberate',
        arguments: { question, policy: 'fast', schema: WEDGING[1]?.[1] },
      })) as CallToolResult;
      const said = JSON.stringify(huge);
      expect(huge.isError, said).toBe(true);
      expect(said).toMatch(/array of at least 100000000 items.*lower minItems/);
      const fine = (await client.callTool({
        name: 'deliberate',
        arguments: {
          question,
          policy: 'fast',
          schema: { type: 'object', properties: { choice: { type: 'string' } }, required: ['choice'] },
        },
      })) as CallToolResult;
      expect(fine.structuredContent, JSON.stringify(fine)).toMatchObject({ done: true, status: 'complete' });
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
