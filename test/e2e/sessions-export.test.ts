import { spawn } from 'node:child_process';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { comparableEvents } from '../../src/output/export/ndjson.js';
import { CLI, instantClock, makeRig, parseNdjson, runCliInProcess, type CliResult, useRig } from '../harness/rig.js';

const rig = useRig();
let id = '';
/** The live NDJSON of the session's two turns, as `ask` and `continue` printed them. */
const live: Array<Array<Record<string, unknown>>> = [];

beforeAll(async () => {
  const first = await rig.run([
    'ask',
    '-o',
    'ndjson',
    '--system',
    'Answer briefly',
    'Design a cache for a read-heavy API',
  ]);
  expect(first.code).toBe(0);
  live.push(parseNdjson(first.stdout));
  id = String(live[0]?.[0]?.['session']);
  const second = await rig.run(['continue', '-s', id, '-o', 'ndjson', '-p', 'fast', 'And for writes?']);
  expect(second.code).toBe(0);
  live.push(parseNdjson(second.stdout));
});

/** Exports against the store alone (no orchestrator set: an export needs no network). */
function exportOf(format: string, ...more: string[]): Promise<CliResult> {
  const args = ['sessions', 'export', id, '--format', format, ...more];
  return runCliInProcess(args, {
    env: { NSED_HOME: rig.home, NO_COLOR: '1' },
    clock: instantClock(),
    randomHex: (n) => '0'.repeat(n * 2),
  });
}

/** Splits an export's lines into runs, one per assistant turn (seq starts again at 1). */
function runs(lines: Array<Record<string, unknown>>): Array<Array<Record<string, unknown>>> {
  const out: Array<Array<Record<string, unknown>>> = [];
  for (const line of lines) {
    if (line['seq'] === 1) out.push([]);
    out.at(-1)?.push(line);
  }
  return out;
}

describe('export --format ndjson', () => {
  it('equals the live NDJSON of each turn apart from the timing fields', async () => {
    const r = await rig.run(['sessions', 'export', id, '--format', 'ndjson']);
    expect(r.code).toBe(0);
    const exported = runs(parseNdjson(r.stdout));
    expect(exported).toHaveLength(2);
    for (const [i, turn] of exported.entries()) {
      expect(turn.map((e) => e['seq'])).toEqual(turn.map((_, k) => k + 1));
      expect(comparableEvents(turn)).toEqual(comparableEvents(live[i] ?? []));
    }
    // The comparison is not vacuous: it holds the answer, the scored rounds and the job.
    const core = comparableEvents(exported[1] ?? []);
    expect(core.map((e) => e['type'])).toEqual(['turn-start', 'job', 'round', 'text', 'usage', 'verdict', 'finish']);
    // The verdict the live run printed is the one the store kept and the export replays.
    expect(core[5]?.['verdict']).toMatchObject({ v: 2, chosen: { source: 'last_round' } });
    expect(core[3]?.['text']).toBe(live[1]?.find((e) => e['type'] === 'finish')?.['content']);
  });

  it('keeps an injection among the rounds where the live stream showed it', async () => {
    const slow = await makeRig({ hold: true });
    try {
      const ask = slow.start(['ask', '-p', 'deep', '-o', 'ndjson', 'Plan the database migration']);
      const job = await slow.sim.control.nextJob();
      slow.sim.control.release(job, 2);
      await ask.output((out) => out.includes('"scored":true'));
      expect((await slow.run(['inject', '--last', '--no-wait', 'Keep the old API for a year'])).code).toBe(0);
      slow.sim.control.release(job);
      const done = await ask.result;
      expect(done.code).toBe(0);
      const events = parseNdjson(done.stdout);
      const session = String(events[0]?.['session']);
      const exported = parseNdjson((await slow.run(['sessions', 'export', session, '--format', 'ndjson'])).stdout);
      const core = comparableEvents(exported);
      expect(core).toEqual(comparableEvents(events));
      expect(core.map((e) => e['type'])).toContain('injection');
    } finally {
      await slow.close();
    }
  });
});

describe('export --format messages', () => {
  it('replays through the simulator with the openai package and gives a completion', async () => {
    const r = await exportOf('messages');
    expect(r.code).toBe(0);
    const messages = JSON.parse(r.stdout) as OpenAI.ChatCompletionMessageParam[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    const client = new OpenAI({ baseURL: `${rig.sim.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'nsed:fast',
      messages: [...messages, { role: 'user', content: 'Summarise it' }],
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    // The simulated council quotes the conversation it was given: the replay carried the history.
    expect(completion.choices[0]?.message.content).toContain(
      'builds on the earlier question (“Design a cache for a read-heavy API”)',
    );
  });

  it("is exactly what nsed sent for the last turn, plus that turn's answer", async () => {
    const sent = rig.sim.requests
      .filter((q) => q.path === '/v1/chat/completions')
      .map((q) => (q.body as { messages: unknown[] }).messages);
    const lastSent = sent.find((m) => JSON.stringify(m).includes('And for writes?'));
    const messages = JSON.parse((await exportOf('messages')).stdout) as Array<{ role: string; content: string }>;
    expect(messages.slice(0, -1)).toEqual(lastSent);
    expect(messages.at(-1)?.content).toBe(live[1]?.find((e) => e['type'] === 'finish')?.['content']);
  });
});

describe('export --format thread', () => {
  it('writes the reference client thread file of protocol §9.2', async () => {
    const r = await exportOf('thread');
    const thread = JSON.parse(r.stdout) as Record<string, unknown> & { messages: Array<Record<string, unknown>> };
    const stored = JSON.parse(await readFile(join(rig.home, 'sessions', `${id}.json`), 'utf8')) as {
      conversation_id: string;
      title: string;
    };
    expect(thread['id']).toMatch(/^thread-[0-9a-f]{32}$/);
    expect(thread['subject']).toBe(stored.title);
    expect(Number.isInteger(thread['created'])).toBe(true);
    expect(thread['updated']).toBeGreaterThanOrEqual(thread['created'] as number);
    expect(thread['active_policy']).toBe('nsed:fast');
    expect(thread.messages.map((m) => m['role'])).toEqual(['user', 'assistant', 'user', 'assistant']);
    thread.messages.forEach((m, i) => {
      expect(m['id']).toMatch(/^[0-9a-f]{32}$/);
      expect(m['branch_id']).toBe(stored.conversation_id);
      expect(m['parent_id']).toBe(i === 0 ? undefined : thread.messages[i - 1]?.['id']);
      expect(Number.isInteger(m['ts'])).toBe(true);
    });
    expect(thread.messages[1]?.['policy_id']).toBe('nsed:*');
    expect(thread.messages[3]?.['job_id']).toBe(live[1]?.find((e) => e['type'] === 'job')?.['job_id']);
    expect(r.stdout).not.toContain('null');
    expect('parent_id' in (thread.messages[0] ?? {})).toBe(false);
    expect((await exportOf('thread')).stdout).toBe(r.stdout);
  });
});

describe('export --format json and markdown', () => {
  it('json is the documented session object with every key present', async () => {
    const doc = JSON.parse((await exportOf('json')).stdout) as Record<string, unknown> & {
      turns: Array<Record<string, unknown>>;
    };
    expect(Object.keys(doc)).toEqual([
      'v',
      'id',
      'title',
      'policy',
      'orchestrator',
      'conversation_id',
      'created',
      'updated',
      'state',
      'system',
      'forked_from',
      'council',
      'pending_job',
      'batch',
      'idempotency',
      'usage',
      'turns',
    ]);
    expect(doc['system']).toBe('Answer briefly');
    expect(doc['batch']).toBeNull();
    expect(doc['idempotency']).toBeNull();
    for (const t of doc.turns) {
      expect(Object.keys(t)).toEqual([
        'id',
        'role',
        'kind',
        'status',
        'content',
        'ts',
        'policy',
        'agents',
        'job_id',
        'path',
        'finish_reason',
        'error',
        'diverged',
        'reasoning',
        'injection',
        'rounds',
        'tool_calls',
        'verdict',
        'usage',
        'gate',
        'attachments',
        'structured',
        'schema_errors',
      ]);
    }
    expect((doc.turns[1]?.['rounds'] as unknown[]).length).toBe(3);
  });

  it('markdown has a heading per turn naming role, policy and job', async () => {
    const md = (await exportOf('markdown')).stdout;
    const headings = md.split('\n').filter((l) => /^## \d+\. /.test(l));
    expect(headings).toHaveLength(4);
    expect(headings[1]).toMatch(/^## 2\. Assistant · `nsed:\*` · job `\S+` · \d{4}-/);
    expect(md.startsWith('# Design a cache for a read-heavy API\n')).toBe(true);
  });
});

describe('export --out FILE', () => {
  it('writes the same bytes as stdout, mode 0600 even under umask 000, replacing a 0644 file, leaving no temp file', async () => {
    const file = join(rig.home, 'exported.md');
    await writeFile(file, 'old', { mode: 0o644 });
    const r = await new Promise<number | null>((resolve) => {
      const child = spawn(
        'sh',
        [
          '-c',
          `umask 000 && exec "${process.execPath}" "${CLI}" sessions export ${id} --format markdown --out "${file}"`,
        ],
        {
          env: { PATH: process.env['PATH'] ?? '', ...rig.env },
        },
      );
      child.on('close', resolve);
    });
    expect(r).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toBe((await exportOf('markdown')).stdout);
    expect((await readdir(rig.home)).filter((n) => n.includes('.tmp'))).toEqual([]);
  });

  it('--file is the same flag; a folder that does not exist exits 11 (io) naming ENOENT (reliability #82)', async () => {
    const file = join(rig.home, 'messages.json');
    expect((await exportOf('messages', '--file', file)).code).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8'))).toHaveLength(5);
    const r = await exportOf('json', '--out', join(rig.home, 'missing-dir', 'x.json'));
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(/^nsed: cannot write .*missing-dir\/x\.json: ENOENT/);
  });

  it('-o FILE is refused as the output mode it is (exit 2)', async () => {
    const r = await exportOf('json', '-o', 'x.json');
    expect(r.code).toBe(2);
  });
});

describe('secrets', () => {
  it('no export format carries the bearer token (reliability #74)', async () => {
    const canary = 'canary-export-5d1f';
    const locked = await makeRig({ token: canary });
    try {
      const env = { NSED_TOKEN: canary };
      const ask = await locked.run(['ask', '-o', 'ndjson', 'q'], { env });
      expect(ask.code).toBe(0);
      const session = String(parseNdjson(ask.stdout)[0]?.['session']);
      for (const format of ['json', 'markdown', 'messages', 'ndjson', 'thread']) {
        const r = await locked.run(['sessions', 'export', session, '--format', format], { env });
        expect(r.code).toBe(0);
        expect(r.stdout + r.stderr).not.toContain(canary);
      }
    } finally {
      await locked.close();
    }
  });
});
