import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { comparableEvents } from '../../src/output/export/ndjson.js';
import { instantClock, parseNdjson, runCliInProcess, type CliResult, useRig } from '../harness/rig.js';

interface StoredTurn {
  id: string;
  role: string;
  kind: string;
  status: string;
  job_id?: string;
  ts: string;
  policy_id?: string;
}

const rig = useRig();

/** The reading commands need no network: run against a store alone, with no orchestrator set. */
function nsed(args: string[], home = rig.home): Promise<CliResult> {
  return runCliInProcess(args, {
    env: { NSED_HOME: home, NO_COLOR: '1' },
    clock: instantClock(),
    randomHex: (n) => '0'.repeat(n * 2),
  });
}
/** Sessions built by real runs: ask + continue, a fork of it, a second ask, a failed ask. */
const ids = { main: '', fork: '', fast: '', failed: '' };
let failedLive: Array<Record<string, unknown>> = [];

async function stored(id: string, home = rig.home): Promise<{ turns: StoredTurn[]; updated: string }> {
  return JSON.parse(await readFile(join(home, 'sessions', `${id}.json`), 'utf8')) as {
    turns: StoredTurn[];
    updated: string;
  };
}

beforeAll(async () => {
  const first = await rig.run(['ask', '-o', 'ndjson', 'Design a cache for a read-heavy API']);
  expect(first.code).toBe(0);
  ids.main = String(parseNdjson(first.stdout)[0]?.['session']);
  expect((await rig.run(['continue', '-s', ids.main, '-o', 'final', 'And for writes?'])).code).toBe(0);
  const fork = await rig.run(['fork', ids.main, '--at', '2']);
  expect(fork.code).toBe(0);
  ids.fork = fork.stdout.trim();
  const fast = await rig.run(['ask', '-p', 'fast', '-o', 'ndjson', 'A quick one']);
  ids.fast = String(parseNdjson(fast.stdout)[0]?.['session']);
  rig.sim.setFaults(['fail-at-round=1;times=1']);
  const failed = await rig.run(['ask', '-o', 'ndjson', 'This one fails']);
  rig.sim.setFaults([]);
  expect(failed.code).toBe(5);
  failedLive = parseNdjson(failed.stdout);
  ids.failed = String(failedLive[0]?.['session']);
}, 30_000);

describe('nsed sessions ls', () => {
  it('lists every session newest activity first as tab-separated lines when piped', async () => {
    const r = await rig.run(['sessions', 'ls']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((c) => c.length)).toEqual([6, 6, 6, 6]);
    expect(rows.map((c) => c[0])).toEqual([ids.failed, ids.fast, ids.fork, ids.main]);
    const updated = rows.map((c) => c[4] ?? '');
    expect([...updated].sort().reverse()).toEqual(updated);
    const main = rows.find((c) => c[0] === ids.main);
    expect(main).toEqual([
      ids.main,
      'Design a cache for a read-heavy API',
      'nsed:*',
      '4',
      (await stored(ids.main)).updated,
      'ok',
    ]);
    expect(rows.find((c) => c[0] === ids.fork)?.slice(1, 4)).toEqual([
      'Design a cache for a read-heavy API (fork)',
      'nsed:*',
      '2',
    ]);
  });

  it('prints the documented objects with --json and with -o json, forked_from set only on the fork', async () => {
    const r = await nsed(['sessions', 'ls', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(list).toHaveLength(4);
    for (const s of list)
      expect(Object.keys(s)).toEqual([
        'id',
        'title',
        'policy',
        'agents',
        'turns',
        'created',
        'updated',
        'state',
        'forked_from',
        'batch',
        'usage',
      ]);
    // None of these ran in a batch (docs/reliability.md #151).
    expect(list.every((s) => s['batch'] === null)).toBe(true);
    const fork = list.find((s) => s['id'] === ids.fork);
    const mainTurns = (await stored(ids.main)).turns;
    expect(fork?.['forked_from']).toEqual({ session: ids.main, turn: mainTurns[1]?.id });
    expect(list.find((s) => s['id'] === ids.main)?.['forked_from']).toBeNull();
    const viaMode = await nsed(['sessions', 'ls', '-o', 'json']);
    expect(JSON.parse(viaMode.stdout)).toEqual(list);
  });

  it('filters by --policy given as a tag or as nsed:tag, by --state, and cuts at -n', async () => {
    const ids1 = async (...args: string[]): Promise<string[]> =>
      (await nsed(['sessions', 'ls', '--ids', ...args])).stdout.split('\n').filter(Boolean);
    expect(await ids1('--policy', 'fast')).toEqual([ids.fast]);
    expect(await ids1('--policy', 'nsed:fast')).toEqual([ids.fast]);
    expect(await ids1('-n', '2')).toEqual([ids.failed, ids.fast]);
    // A failed turn is listed as failed, not ok.
    expect(await ids1('--state', 'failed')).toEqual([ids.failed]);
    const ok = await ids1('--state', 'ok', '--policy', '*', '-n', '1');
    expect(ok).toHaveLength(1);
    expect(ok).not.toContain(ids.failed);
    expect(await ids1('--state', 'running')).toEqual([]);
    const bad = await nsed(['sessions', 'ls', '--state', 'sleeping']);
    expect(bad.code).toBe(2);
    expect((await nsed(['sessions', 'ls', '-n', '0'])).code).toBe(2);
  });

  it('prints one object per line with -o ndjson', async () => {
    const r = await nsed(['sessions', 'ls', '-o', 'ndjson', '-n', '2']);
    expect(parseNdjson(r.stdout).map((s) => s['id'])).toEqual([ids.failed, ids.fast]);
  });

  it('skips a corrupt file among good ones with one warning line and exits 0 (reliability #57)', async () => {
    const file = join(rig.home, 'sessions', 'broken-one.json');
    await writeFile(file, '{"id": "broken-one", "turns": [', { mode: 0o600 });
    try {
      const r = await rig.run(['sessions', 'ls', '--ids']);
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n').filter(Boolean)).toEqual([ids.failed, ids.fast, ids.fork, ids.main]);
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^nsed: warning: skipped .*broken-one\.json: .+/);
      expect(await readFile(file, 'utf8')).toBe('{"id": "broken-one", "turns": [');
    } finally {
      const removed = await nsed(['sessions', 'rm', 'broken-one']);
      expect(removed.code).toBe(0);
    }
  });
});

describe('nsed sessions show', () => {
  it('heads every turn with its role, policy, job id and time', async () => {
    const r = await rig.run(['sessions', 'show', ids.main]);
    expect(r.code).toBe(0);
    const turns = (await stored(ids.main)).turns;
    const headings = r.stdout.split('\n').filter((l) => l.startsWith('── '));
    expect(headings).toHaveLength(4);
    expect(headings[0]).toMatch(/^── 1 · user · \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    expect(headings[1]).toBe(
      `── 2 · assistant · nsed:* · job ${turns[1]?.job_id} · ${turns[1]?.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}`,
    );
    expect(r.stdout).toContain('And for writes?');
    expect(r.stdout.split('\n')[1]).toMatch(
      new RegExp(`^session ${ids.main} · policy nsed:\\* · 4 turns · created .* · updated .* · ok$`),
    );
  });

  it('adds rounds, candidates, scores and claim verdicts with --rounds', async () => {
    const plain = await nsed(['sessions', 'show', ids.fast]);
    const r = await nsed(['sessions', 'show', ids.fast, '--rounds']);
    expect(plain.stdout).not.toMatch(/round 1\/1/);
    expect(r.stdout).toMatch(/^ {2}round 1\/1 · 3 candidates$/m);
    expect(r.stdout).toMatch(/^ {4}Cortex[A-Z] \d\.\d\d {2}\S/m);
    expect(r.stdout).toMatch(/^ {6}(verified|contested|unverified|wrong|unknown) +\S/m);
  });

  it('marks a failed turn on its heading and shows why', async () => {
    const r = await nsed(['sessions', 'show', ids.failed]);
    expect(r.stdout).toMatch(/^── 2 · assistant · nsed:\* · job \S+ · .* · FAILED$/m);
    expect(r.stdout).toMatch(/^\[failed: .*quorum lost in round 1/m);
  });

  it('exports a failed turn as NDJSON ending, like the live run, in its error event', async () => {
    const exported = parseNdjson((await nsed(['sessions', 'export', ids.failed, '--format', 'ndjson'])).stdout);
    const core = comparableEvents(exported);
    expect(core).toEqual(comparableEvents(failedLive));
    expect(core.at(-1)).toMatchObject({ type: 'error', code: 'server', exit_code: 5 });
  });

  it('prints with --json the same document as export --format json', async () => {
    const shown = await nsed(['sessions', 'show', ids.main, '--json']);
    const exported = await nsed(['sessions', 'export', ids.main, '--format', 'json']);
    expect(shown.stdout).toBe(exported.stdout);
    const doc = JSON.parse(shown.stdout) as { id: string; turns: Array<{ role: string }> };
    expect(doc.id).toBe(ids.main);
    expect(doc.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('accepts a unique prefix, exits 3 for an unknown id and 2 for an ambiguous prefix or a bad id', async () => {
    expect((await nsed(['sessions', 'show', ids.fork.slice(0, 13)])).code).toBe(0);
    const unknown = await rig.run(['sessions', 'show', 'no-such-session']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/^nsed: no session matches 'no-such-session'\nhint: /);
    expect((await nsed(['sessions', 'show', ids.main.slice(0, 9)])).code).toBe(2);
    expect((await nsed(['sessions', 'show', '../etc/passwd'])).code).toBe(2);
  });
});

describe('nsed sessions rm', () => {
  it('removes nothing when one of the ids is unknown, and exits 3', async () => {
    const r = await nsed(['sessions', 'rm', ids.fast, 'no-such-session']);
    expect(r.code).toBe(3);
    expect((await nsed(['sessions', 'ls', '--ids'])).stdout).toContain(ids.fast);
  });

  it('removes the named sessions so they are gone from ls, show and the index', async () => {
    const r = await rig.run(['sessions', 'rm', ids.fast, ids.failed]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`removed ${ids.fast}\nremoved ${ids.failed}\n`);
    expect((await nsed(['sessions', 'ls', '--ids'])).stdout.split('\n').filter(Boolean)).toEqual([ids.fork, ids.main]);
    expect((await nsed(['sessions', 'show', ids.fast])).code).toBe(3);
    expect(await readFile(join(rig.home, 'index.ndjson'), 'utf8')).toContain(`{"id":"${ids.fast}","removed":true}`);
  });
});

describe('sessions touched by inject and cancel from a second terminal (the deliberation held open)', () => {
  const slow = useRig({ hold: true });

  /** Starts `nsed ask`, lets its first round be scored, and leaves the job parked. */
  async function running(args: string[]) {
    const ask = slow.start(args);
    const job = await slow.sim.control.nextJob();
    slow.sim.control.release(job, 2);
    await ask.output((out) => /round 1\//.test(out));
    return { ask, job };
  }

  it('shows an injection, marked with its round and sequence, before the answer it steered', async () => {
    const { ask, job } = await running(['ask', '-p', 'deep', 'Plan the database migration']);
    const inject = await slow.run(['inject', '--last', '--no-wait', 'Keep the old API for a year']);
    expect(inject.code).toBe(0);
    slow.sim.control.release(job);
    expect((await ask.result).code).toBe(0);
    const id = (await nsed(['sessions', 'ls', '--ids', '-n', '1'], slow.home)).stdout.trim();
    const r = await nsed(['sessions', 'show', id], slow.home);
    const headings = r.stdout.split('\n').filter((l) => l.startsWith('── '));
    expect(headings.map((h) => h.split(' · ')[1])).toEqual([
      'user',
      expect.stringMatching(/^injection at round \d \(#1\)$/),
      'assistant',
    ]);
    expect(r.stdout).toContain('Keep the old API for a year');
  });

  it('refuses to remove a running session without --force (exit 7), and marks it cancelled once cancelled', async () => {
    const { ask } = await running(['ask', '-p', 'deep', 'Rewrite the billing service']);
    const id = (await slow.run(['sessions', 'ls', '--ids', '--state', 'running'])).stdout.trim();
    expect(id).toMatch(/^\d{8}-[0-9a-f]{8}$/);
    const refused = await slow.run(['sessions', 'rm', id]);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toMatch(/has a deliberation running; nothing was removed/);
    expect((await slow.run(['cancel', '-s', id])).code).toBe(0);
    expect((await ask.result).code).toBe(9);
    const shown = await nsed(['sessions', 'show', id], slow.home);
    expect(shown.stdout).toMatch(/^── 2 · assistant · nsed:deep · job \S+ · .* · CANCELLED$/m);
    expect((await slow.run(['sessions', 'rm', id])).code).toBe(0);
  });
});
