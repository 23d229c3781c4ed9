/**
 * nsed policies | agents | models against a real simulator over HTTP, as a process: a table on a
 * pseudo-terminal (through script(1), when the machine has it), tab-separated lines on a pipe,
 * JSON and NDJSON; the policy-tag cache behind completion of -p; hints that name these commands.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectError } from '../../src/api/network-errors.js';
import { CLI, makeRig, parseNdjson, useRig } from '../harness/rig.js';

const rig = useRig();

const hasScript = spawnSync('script', ['--version']).status === 0;

/**
 * Runs the CLI with stdout on a pseudo-terminal (util-linux script), returning what it printed.
 * Asynchronous: the simulator answering it lives in this very process.
 */
async function onTerminal(args: string[]): Promise<string> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', quoted, '/dev/null'], {
    env: { ...rig.env, PATH: process.env['PATH'] ?? '', COLUMNS: '160' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const [code] = (await once(child, 'close')) as [number | null];
  expect(code).toBe(0);
  return out.replaceAll('\r\n', '\n');
}

describe('nsed policies', { timeout: 120_000 }, () => {
  it('prints one tab-separated line per policy on a pipe: id, name, tags, rounds, effort, mode', async () => {
    const r = await rig.run(['policies']);
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((row) => row.length)).toEqual(rows.map(() => 6));
    const deep = rows.find((row) => row[1] === 'deep');
    expect(deep).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/), 'deep', 'deep', '5', '0.6', 'deliberation']);
    expect(rows.find((row) => row[1] === 'passthrough')?.[5]).toBe('passthrough');
  });

  it('prints JSON and NDJSON with every field the orchestrator gave', async () => {
    const json = JSON.parse((await rig.run(['policies', '-o', 'json'])).stdout) as Array<Record<string, unknown>>;
    expect(json.map((p) => p['name'])).toContain('fast');
    expect(json[0]).toMatchObject({
      policy_id: expect.any(String),
      tags: expect.any(Array),
      max_rounds: expect.any(Number),
      effort: 0.6,
    });
    const lines = parseNdjson((await rig.run(['policies', '-o', 'ndjson'])).stdout);
    expect(lines.map((p) => p['name'])).toEqual(json.map((p) => p['name']));
  });

  it('--tag keeps the policies with that tag, and says so on stderr when none has it', async () => {
    const r = await rig.run(['policies', '--tag', 'fast', '-o', 'json']);
    expect((JSON.parse(r.stdout) as Array<{ name: string }>).map((p) => p.name)).toEqual(['fast']);
    const none = await rig.run(['policies', '--tag', 'no-such-tag']);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toContain("no policy has the tag 'no-such-tag'");
  });

  it('caches the tags of a full listing for completion, which reads them without the network', async () => {
    await rig.run(['policies']);
    const cache = JSON.parse(await readFile(join(rig.home, 'policies-cache.json'), 'utf8')) as { tags: string[] };
    expect(cache.tags).toEqual(expect.arrayContaining(['balanced', 'fast', 'deep', 'mid:0v1']));
    const before = rig.sim.requests.length;
    // A URL nothing listens on: --cached must not even try it.
    const r = await rig.run(['policies', '--cached'], { env: { NSED_URL: 'http://127.0.0.1:1' } });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['balanced', 'fast', 'deep']));
    expect(rig.sim.requests.length).toBe(before);
  });

  it('--cached prints nothing and succeeds when no listing was cached', async () => {
    const r = await rig.run(['policies', '--cached', '--home', join(rig.home, 'empty-store')]);
    expect(r).toMatchObject({ code: 0, stdout: '' });
  });

  it.skipIf(!hasScript)('draws an aligned table under a header on a terminal', async () => {
    const out = await onTerminal(['policies']);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+TAGS\s+ROUNDS\s+EFFORT\s+MODE$/);
    const deep = lines.find((l) => /\bdeep\b/.test(l)) ?? '';
    expect(deep).toMatch(/^[0-9a-f]{12}…\s+deep\s+deep\s+5\s+0\.6\s+deliberation$/);
    // Columns line up: every row puts NAME where the header does.
    const at = (lines[0] ?? '').indexOf('NAME');
    expect(lines.slice(1).every((l) => l[at - 1] === ' ' && l[at] !== ' ')).toBe(true);
  });
});

describe('nsed agents and nsed models', { timeout: 120_000 }, () => {
  it('agents: TSV on a pipe, JSON on request', async () => {
    const r = await rig.run(['agents']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('CortexA\tsimlm-small\tsim-labs\tyes\tsimplicity');
    const json = JSON.parse((await rig.run(['agents', '-o', 'json'])).stdout) as Array<{
      agent_id: string;
      is_online: boolean;
    }>;
    expect(json.map((a) => a.agent_id)).toEqual(['CortexA', 'CortexB', 'CortexC', 'CortexD', 'CortexE', 'CortexF']);
    expect(parseNdjson((await rig.run(['agents', '-o', 'ndjson'])).stdout)).toHaveLength(6);
  });

  it('models: the names GET /v1/models lists', async () => {
    const r = await rig.run(['models']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toContain('nsed:deep\tnsed');
    const json = JSON.parse((await rig.run(['models', '-o', 'json'])).stdout) as Array<{ id: string }>;
    expect(json.map((m) => m.id)).toContain('nsed:*');
  });

  it.skipIf(!hasScript)('agents draws a table on a terminal', async () => {
    const lines = (await onTerminal(['agents'])).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^AGENT\s+MODEL\s+PROVIDER\s+ONLINE\s+CAPABILITIES$/);
    expect(lines[1]).toMatch(/^CortexA\s+simlm-small\s+sim-labs\s+yes\s+simplicity$/);
  });

  it('a listing against a token-guarded orchestrator without the token exits 4', async () => {
    const guarded = await makeRig({ token: 'sekrit' });
    try {
      const r = await guarded.run(['agents']);
      expect(r.code).toBe(4);
      expect(r.stderr).not.toContain('sekrit');
      expect((await guarded.run(['agents'], { env: { NSED_TOKEN: 'sekrit' } })).code).toBe(0);
    } finally {
      await guarded.close();
    }
  });
});

describe('hints name the commands, not HTTP routes', { timeout: 120_000 }, () => {
  it('an unknown policy points at nsed policies', async () => {
    const r = await rig.run(['ask', '-p', 'no-such-policy', '-o', 'final', 'hi']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("'nsed policies'");
    expect(r.stderr).not.toContain('GET /policies');
  });

  it('a refused connection on the default localhost:8080 names --url, NSED_URL, --sim and nsed doctor', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8080'), { code: 'ECONNREFUSED' });
    const atDefault = connectError(refused, { hostPort: 'localhost:8080', connectTimeoutMs: 10_000, token: undefined });
    expect(atDefault).toMatchObject({
      exitCode: 6,
      message: 'cannot reach the orchestrator at localhost:8080: connection refused',
    });
    expect(atDefault.hint).toMatch(/--url.*NSED_URL.*--sim.*nsed doctor/);
    // Another address was named on purpose: no hint about the default.
    expect(
      connectError(refused, { hostPort: 'nsed.example:443', connectTimeoutMs: 10_000, token: undefined }).hint,
    ).toBeUndefined();
  });
});
