import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_INSTRUCTION } from '../../src/turn/schema/answer-schema.js';
import { runCliInProcess, type CliOptions } from '../harness/cli.js';
import { makeRig, parseNdjson, useRig } from '../harness/rig.js';
import { sseHead, startServer, type ScriptedServer } from '../harness/scripted-server.js';
import { startPlainServer, type PlainServer } from './plain-server.js';

const SCHEMA = {
  title: 'code review',
  type: 'object',
  properties: {
    verdict: { enum: ['approve', 'reject'] },
    issues: { type: 'array', items: { type: 'string' } },
  },
  required: ['verdict', 'issues'],
  additionalProperties: false,
};
const VALID = '{"verdict": "approve", "issues": []}';
const WRONG = '{"verdict": "maybe", "issues": [], "extra": 1}';

let dir: string;
let schemaFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-schema-'));
  schemaFile = join(dir, 'review.schema.json');
  await writeFile(schemaFile, JSON.stringify(SCHEMA));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A plain OpenAI-style server answering `answers` in turn, and a store of its own. */
async function plainWith(answers: string[]): Promise<{
  server: PlainServer;
  run: (args: string[], opts?: CliOptions) => ReturnType<typeof runCliInProcess>;
  chats: () => Array<Record<string, unknown>>;
  home: string;
  close: () => Promise<void>;
}> {
  const server = await startPlainServer((i) => answers[Math.min(i, answers.length - 1)] ?? '');
  const home = await mkdtemp(join(dir, 'home-'));
  return {
    server,
    home,
    run: (args, opts = {}) =>
      runCliInProcess(args, { ...opts, env: { NSED_HOME: home, NSED_URL: server.url, NO_COLOR: '1', ...opts.env } }),
    chats: () =>
      server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Record<string, unknown>),
    close: () => server.close(),
  };
}

const lastUser = (body: Record<string, unknown> | undefined): string =>
  ((body?.['messages'] as Array<{ role: string; content: string }> | undefined) ?? [])
    .filter((m) => m.role === 'user')
    .at(-1)?.content ?? '';

describe('--schema on the compat path (a plain OpenAI-style server, -m)', () => {
  it("the request carries OpenAI's response_format; a valid first answer prints as compact JSON with -o final", async () => {
    const p = await plainWith([VALID]);
    try {
      const r = await p.run(['ask', '-m', 'gpt-4o-mini', '--schema', schemaFile, '-o', 'final', 'Review this file']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('{"verdict":"approve","issues":[]}\n');
      const [body] = p.chats();
      expect(body?.['response_format']).toEqual({
        type: 'json_schema',
        json_schema: { name: 'code_review', schema: SCHEMA, strict: true },
      });
      expect(p.chats()).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  it('-o json adds structured; NDJSON finish carries it; the store keeps it on the turn; a ```json fence is tolerated', async () => {
    const p = await plainWith([`\`\`\`json\n${VALID}\n\`\`\``]);
    try {
      const json = await p.run([
        'ask',
        '-m',
        'm',
        '--schema',
        JSON.stringify(SCHEMA),
        '--schema-name',
        'review',
        '-o',
        'json',
        'q',
      ]);
      expect(json.code).toBe(0);
      const obj = JSON.parse(json.stdout) as Record<string, unknown>;
      expect(obj['structured']).toEqual({ verdict: 'approve', issues: [] });
      expect(obj).not.toHaveProperty('schema_errors');
      expect((p.chats()[0]?.['response_format'] as { json_schema: { name: string } }).json_schema.name).toBe('review');
      const nd = await p.run(['ask', '-m', 'm', '--schema', schemaFile, '-o', 'ndjson', 'q']);
      const finish = parseNdjson(nd.stdout).find((e) => e['type'] === 'finish');
      expect(finish?.['structured']).toEqual({ verdict: 'approve', issues: [] });
      const session = await readSession(p.home, String(finish?.['session']));
      expect(session.turns.at(-1)?.['structured']).toEqual({ verdict: 'approve', issues: [] });
    } finally {
      await p.close();
    }
  });

  it('an invalid answer, then a corrected one: one corrective turn in the same session quotes the errors (reliability #113)', async () => {
    const p = await plainWith([WRONG, VALID]);
    try {
      const r = await p.run(['ask', '-m', 'm', '--schema', schemaFile, '-o', 'ndjson', 'Review this file']);
      expect(r.code).toBe(0);
      const events = parseNdjson(r.stdout);
      const types = events.map((e) => e['type']);
      expect(types.filter((t) => t === 'turn-start')).toHaveLength(2);
      expect(types.filter((t) => t === 'finish')).toHaveLength(1);
      expect(types.at(-1)).toBe('finish');
      const retry = events.find((e) => e['type'] === 'schema-retry');
      expect(retry).toMatchObject({ attempt: 1, retries: 1 });
      expect(retry?.['errors']).toEqual([
        { path: '/', message: "must NOT have additional properties: 'extra'" },
        { path: '/verdict', message: 'must be equal to one of the allowed values: ["approve","reject"]' },
      ]);
      const chats = p.chats();
      expect(chats).toHaveLength(2);
      const repair = lastUser(chats[1]);
      expect(repair).toContain("- /: must NOT have additional properties: 'extra'");
      expect(repair).toContain('- /verdict: must be equal to one of the allowed values');
      // The same session: the corrective request replays the first question and answer.
      const messages = chats[1]?.['messages'] as Array<{ role: string; content: string }>;
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(messages[1]?.content).toBe(WRONG);
      expect(chats[1]?.['response_format']).toEqual(chats[0]?.['response_format']);
      expect(events.at(-1)?.['structured']).toEqual({ verdict: 'approve', issues: [] });
    } finally {
      await p.close();
    }
  });

  it('still invalid after --schema-retries: exit 14, the errors on stderr, the last answer recorded; -o json shows it (reliability #114)', async () => {
    const p = await plainWith([WRONG]);
    try {
      const final = await p.run(['ask', '-m', 'm', '--schema', schemaFile, '-o', 'final', 'q']);
      expect(final.code).toBe(14);
      expect(final.stdout).toBe('');
      expect(final.stderr).toMatch(
        /\nhint: the answer is recorded in session \S+; -o json prints it with its schema_errors\n$/,
      );
      expect(final.stderr.split('\n').slice(0, 3)).toEqual([
        "schema error at /: must NOT have additional properties: 'extra'",
        'schema error at /verdict: must be equal to one of the allowed values: ["approve","reject"]',
        'nsed: the answer does not match --schema (2 errors, after 1 corrective turn)',
      ]);
      expect(p.chats()).toHaveLength(2);

      const json = await p.run(['ask', '-m', 'm', '--schema', schemaFile, '--schema-retries', '2', '-o', 'json', 'q']);
      expect(json.code).toBe(14);
      expect(p.chats()).toHaveLength(5);
      const obj = JSON.parse(json.stdout) as Record<string, unknown>;
      expect(obj['structured']).toBeNull();
      expect(obj['content']).toBe(WRONG);
      expect(obj['schema_errors']).toHaveLength(2);
      // The answer is recorded (complete), and the object says why the run still failed, as stderr does.
      expect(obj['status']).toBe('complete');
      expect(obj['error']).toEqual({
        code: 'schema_mismatch',
        exit_code: 14,
        message: 'the answer does not match --schema (2 errors, after 2 corrective turns)',
      });
      expect(json.stderr).toContain('nsed: the answer does not match --schema (2 errors, after 2 corrective turns)');
      const session = await readSession(p.home, String(obj['session']));
      const last = session.turns.at(-1);
      expect(last?.['content']).toBe(WRONG);
      expect(last?.['status']).toBe('complete');
      expect(last?.['structured']).toBeNull();
      expect(last?.['schema_errors']).toHaveLength(2);
      // Three answers, each after its own user turn: the question and two corrective turns.
      expect(session.turns.map((t) => t['role'])).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      expect(session).not.toHaveProperty('claim');

      const none = await p.run([
        'ask',
        '-m',
        'm',
        '--schema',
        schemaFile,
        '--schema-retries',
        '0',
        '-o',
        'ndjson',
        'q',
      ]);
      expect(none.code).toBe(14);
      expect(p.chats()).toHaveLength(6);
      const events = parseNdjson(none.stdout);
      expect(events.filter((e) => e['type'] === 'finish' || e['type'] === 'error')).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'finish', structured: null });
    } finally {
      await p.close();
    }
  });

  it('text mode streams each answer and says on stderr why a corrective turn follows; --no-save writes nothing', async () => {
    const p = await plainWith([WRONG, VALID]);
    try {
      const r = await p.run(['ask', '-m', 'm', '--schema', schemaFile, '--no-save', 'q']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${WRONG}\n${VALID}\n`);
      // Then the session line text mode prints when no job line named the session (README).
      expect(r.stderr).toMatch(
        /^the answer does not match the schema \(\/: must NOT have additional properties: 'extra'; \/verdict: must be equal to one of the allowed values: \["approve","reject"\]\); asking for a corrected one \(1\/1\)\nsession \d{8}-[0-9a-f]{8} · policy m\n$/,
      );
      const { readdir } = await import('node:fs/promises');
      expect(await readdir(p.home)).toEqual([]);
    } finally {
      await p.close();
    }
  });

  it('an answer that is not JSON at all is reported as such', async () => {
    const p = await plainWith(['Looks good to me.']);
    try {
      const r = await p.run(['ask', '-m', 'm', '--schema', schemaFile, '--schema-retries', '0', 'q']);
      expect(r.code).toBe(14);
      expect(r.stderr).toMatch(/^schema error at \/: the answer is not JSON \(/m);
    } finally {
      await p.close();
    }
  });

  it('a schema that is not valid JSON Schema, or not JSON, is exit 2 before anything is sent (reliability #112)', async () => {
    const p = await plainWith([VALID]);
    try {
      const bad = await p.run(['ask', '-m', 'm', '--schema', '{"type": "strnig"}', 'q']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(
        /^nsed: --schema \(inline\) is not a valid JSON Schema: schema is invalid: data\/type/,
      );
      const notJson = await p.run(['ask', '-m', 'm', '--schema', '{nope', 'q']);
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toContain('--schema (inline) is not valid JSON');
      const missing = await p.run(['ask', '-m', 'm', '--schema', join(dir, 'missing.json'), 'q']);
      expect(missing.code).toBe(3);
      const name = await p.run(['ask', '-m', 'm', '--schema', schemaFile, '--schema-name', 'a b', 'q']);
      expect(name.code).toBe(2);
      expect(p.server.requests).toHaveLength(0);
    } finally {
      await p.close();
    }
  });

  it('a schema that refers to itself without end is exit 2 before anything is sent, never a stack overflow', async () => {
    const p = await plainWith([VALID]);
    try {
      const loops = [
        ['{"$ref":"#"}', '# -> #'],
        ['{"anyOf":[{"type":"string"},{"$ref":"#"}]}', '# -> #/anyOf/1 -> #'],
        [
          '{"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"allOf":[{"$ref":"#/$defs/x"}]}}}',
          '#/properties/a -> #/$defs/x -> #/$defs/x/allOf/0 -> #/$defs/x',
        ],
      ];
      for (const [schema, loop] of loops) {
        const r = await p.run(['ask', '-m', 'm', '--schema', schema ?? '', 'q']);
        expect(r.code, schema).toBe(2);
        expect(r.stderr).toContain(`nsed: --schema (inline) refers to itself without end: ${loop ?? ''}`);
        expect(r.stderr).not.toContain('bug in nsed');
      }
      expect(p.server.requests).toHaveLength(0);
      // A reference that goes through a property is a recursive schema, and fine.
      const tree = '{"type":"object","properties":{"next":{"$ref":"#"}}}';
      const ok = await p.run(['ask', '-m', 'm', '--schema', tree, 'q']);
      expect(ok.code, ok.stderr).not.toBe(2);
      expect(ok.stderr).not.toContain('refers to itself');
    } finally {
      await p.close();
    }
  });
});

describe('--schema against the simulator, which ignores response_format like --profile strict (reliability #115)', () => {
  const rig = useRig({ profile: 'strict' });

  it('nsed validates locally and asks for a correction, whatever the server did with the schema', async () => {
    const r = await rig.run(['ask', '--schema', schemaFile, '-o', 'json', 'Review this file']);
    expect(r.code).toBe(14);
    const chats = rig.sim.requests.filter((q) => q.path === '/v1/chat/completions');
    expect(chats).toHaveLength(2);
    for (const c of chats)
      expect((c.body as Record<string, unknown>)['response_format']).toMatchObject({ type: 'json_schema' });
    const obj = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(obj['structured']).toBeNull();
    expect(r.stderr).toContain('schema error at /: the answer is not JSON');
  });
});

describe('--schema against the simulator, which answers to the schema (default profile)', () => {
  it('a first answer that fits, on both paths: -o final prints it compact, nothing is repaired', async () => {
    const rig = await makeRig();
    try {
      for (const args of [[], ['--agents', 'CortexA,CortexB']]) {
        const r = await rig.run(['ask', ...args, '--schema', schemaFile, '-o', 'final', 'Review this file']);
        expect(r.code, r.stderr).toBe(0);
        const value = JSON.parse(r.stdout) as { verdict: string; issues: unknown[] };
        expect(r.stdout).toBe(`${JSON.stringify(value)}\n`);
        expect(['approve', 'reject']).toContain(value.verdict);
        expect(Array.isArray(value.issues)).toBe(true);
      }
      expect(rig.sim.requests.filter((q) => q.path === '/v1/chat/completions')).toHaveLength(1);
    } finally {
      await rig.close();
    }
  });

  it('schema=violate-once: the first answer breaks the schema, the corrective turn on the same thread fits (reliability #113)', async () => {
    const rig = await makeRig({ faults: ['schema=violate-once'] });
    try {
      const r = await rig.run(['ask', '--schema', schemaFile, '-o', 'ndjson', 'Review this file']);
      expect(r.code, r.stderr).toBe(0);
      const events = parseNdjson(r.stdout);
      expect(events.filter((e) => e['type'] === 'schema-retry')).toHaveLength(1);
      expect(events.filter((e) => e['type'] === 'turn-start')).toHaveLength(2);
      const finish = events.at(-1) as { type: string; structured: { verdict: string } };
      expect(finish.type).toBe('finish');
      expect(['approve', 'reject']).toContain(finish.structured.verdict);
      expect(rig.sim.requests.filter((q) => q.path === '/v1/chat/completions')).toHaveLength(2);
    } finally {
      await rig.close();
    }
  });
});

describe('--schema on the native path: the schema in system_instructions, worded once', () => {
  let server: ScriptedServer;
  const answers: string[] = [];
  let jobs = 0;
  beforeAll(async () => {
    server = await startServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/deliberation') {
        const n = (jobs += 1);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ job_id: `job-${n}` }));
        return;
      }
      const stream = /^\/job\/(job-\d+)\/stream$/.exec(path);
      if (stream !== null) {
        // Open and silent: the job's end is told by /result, which nsed asks once the stream is open.
        sseHead(res);
        return;
      }
      const result = /^\/deliberation\/job-(\d+)\/result$/.exec(path);
      if (result !== null) {
        const i = Number(result[1]) - 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            job_id: `job-${i + 1}`,
            status: 'completed',
            result: answers[Math.min(i, answers.length - 1)],
          }),
        );
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not found"}}');
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('valid on the first answer; a wrong one is corrected in a second deliberation of the same session', async () => {
    const home = await mkdtemp(join(dir, 'native-'));
    const env = { NSED_HOME: home, NSED_URL: server.url, NO_COLOR: '1' };
    answers.splice(0, answers.length, VALID);
    const r = await runCliInProcess(
      ['ask', '--agents', 'A,B', '--system', 'Be terse.', '--schema', schemaFile, '-o', 'final', 'Review'],
      { env },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{"verdict":"approve","issues":[]}\n');
    const submits = () =>
      server.seen
        .filter((s) => s.method === 'POST' && s.url === '/deliberation')
        .map((s) => JSON.parse(s.body) as Record<string, unknown>);
    expect(submits()[0]?.['system_instructions']).toBe(`Be terse.\n\n${SCHEMA_INSTRUCTION}\n${JSON.stringify(SCHEMA)}`);
    expect(submits()[0]).not.toHaveProperty('response_format');

    answers.splice(0, answers.length, WRONG, WRONG, VALID);
    const fixed = await runCliInProcess(['ask', '--agents', 'A,B', '--schema', schemaFile, '-o', 'json', 'Review'], {
      env,
    });
    expect(fixed.code).toBe(0);
    expect(submits()).toHaveLength(3);
    expect(submits()[2]?.['system_instructions']).toBe(`${SCHEMA_INSTRUCTION}\n${JSON.stringify(SCHEMA)}`);
    const messages = submits()[2]?.['messages'] as Array<{ role: string; content: string }>;
    expect(messages.at(-1)?.content).toContain('The validator reported:');
    expect((JSON.parse(fixed.stdout) as Record<string, unknown>)['structured']).toEqual({
      verdict: 'approve',
      issues: [],
    });
  });
});

async function readSession(
  home: string,
  id: string,
): Promise<{ turns: Array<Record<string, unknown>> } & Record<string, unknown>> {
  const { readFile } = await import('node:fs/promises');
  return JSON.parse(await readFile(join(home, 'sessions', `${id}.json`), 'utf8')) as {
    turns: Array<Record<string, unknown>>;
  };
}
