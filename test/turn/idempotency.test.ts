import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/session/model.js';
import type { SimOptions } from '../../src/sim/server.js';
import { testRig, parseNdjson, type Rig } from '../harness/rig.js';

/**
 * `--idempotency-key` (docs/reliability.md #133-#139): a re-run with the same key
 * and question follows the running deliberation or replays the recorded answer, from the store
 * or, with an empty store, from what the orchestrator lists; it never sends a second start. The
 * simulator holds jobs until the test releases them; its request log counts what was sent.
 */

let rig: Rig | undefined;
const homes: string[] = [];
afterEach(async () => {
  for (const h of homes.splice(0)) await rm(h, { recursive: true, force: true });
});

async function open(opts: SimOptions = {}): Promise<Rig> {
  rig = await testRig(opts);
  return rig;
}

/** A store of its own: a fresh CI runner. */
async function freshHome(): Promise<string> {
  const h = await mkdtemp(join(tmpdir(), 'nsed-idem-'));
  homes.push(h);
  return h;
}

/** The requests that start a deliberation: a chat completion or a native submit. */
const starts = (r: Rig): number =>
  r.sim.requests.filter((q) => q.method === 'POST' && (q.path === '/v1/chat/completions' || q.path === '/deliberation'))
    .length;
const posts = (r: Rig): number => r.sim.requests.filter((q) => q.method === 'POST').length;

const ASK = ['ask', '-p', 'fast', '--idempotency-key', 'ci-1234/review', 'Review the cache design'];
const NATIVE = [
  'ask',
  '--agents',
  'CortexA,CortexB',
  '--rounds',
  '1',
  '--idempotency-key',
  'ci-1234/native',
  'Pick a queue',
];

async function sessionsIn(home: string): Promise<Session[]> {
  const names = await readdir(join(home, 'sessions')).catch(() => [] as string[]);
  return Promise.all(
    names
      .filter((n) => n.endsWith('.json'))
      .map(async (n) => JSON.parse(await readFile(join(home, 'sessions', n), 'utf8')) as Session),
  );
}

const answer = (stdout: string): { content: string; job_id: string; session: string } =>
  JSON.parse(stdout) as { content: string; job_id: string; session: string };

describe('a re-run with the store (reliability #133, #134)', () => {
  it('reattaches to the deliberation still running instead of starting another (reliability #133)', async () => {
    const r = await open({ hold: true });
    const first = r.start([...ASK, '-o', 'ndjson']);
    const job = await r.sim.control.nextJob();
    // The job is recorded as the session's pending job before its event is shown.
    await first.output((out) => out.includes('"type":"job"'), 60_000);
    const second = r.start([...ASK, '-o', 'json']);
    // Decided while the job is held: it follows the job (the resume replays what it missed).
    await second.output((out) => out.includes('is still running'), 60_000);
    r.sim.control.release(job);
    const [a, b] = await Promise.all([first.result, second.result]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).toContain(`deliberation ${job} is still running`);
    const out = answer(b.stdout);
    expect(out.job_id).toBe(job);
    expect(out.content).toBe(String(parseNdjson(a.stdout).at(-1)?.['content']));
    expect(starts(r)).toBe(1);
    const [s] = await sessionsIn(r.home);
    expect(await sessionsIn(r.home)).toHaveLength(1);
    expect(s?.idempotency).toEqual({ key: 'ci-1234/review', request_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(s?.conversation_id).toMatch(/^thread-[0-9a-f]{32}$/);
    expect(s?.pending_job).toBeUndefined();
    expect(s?.turns.filter((t) => t.role === 'assistant')).toMatchObject([{ status: 'complete', job_id: job }]);
  });

  it('after the end, prints the recorded answer with the same exit code and sends nothing; gates are judged again (reliability #134)', async () => {
    const r = await open();
    const first = await r.run([...ASK, '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    const sent = r.sim.requests.length;
    const again = await r.run([...ASK, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
    expect(again.stderr).toContain('printing the recorded answer, sending nothing');
    // Not a single request: not even a GET.
    expect(r.sim.requests.length).toBe(sent);

    const convergence = (JSON.parse(first.stdout) as { verdict: { convergence: { final: number } } }).verdict
      .convergence.final;
    const failing = await r.run([...ASK, '-o', 'json', '--min-convergence', `${Math.round(convergence * 100) + 5}%`]);
    expect(failing.code, failing.stderr).toBe(12);
    expect(JSON.parse(failing.stdout)).toMatchObject({ gate: { status: 'fail' } });
    expect(failing.stderr).toMatch(/gate min-convergence failed/);
    const passing = await r.run([...ASK, '-o', 'final', '--min-convergence', '0']);
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout.trim()).toBe(String(answer(first.stdout).content).trim());
    expect(r.sim.requests.length).toBe(sent);
    expect(await sessionsIn(r.home)).toHaveLength(1);
    // sessions show names the key the session was started under.
    const id = answer(first.stdout).session;
    const shown = await r.run(['sessions', 'show', id]);
    expect(shown.stdout.split('\n')).toContain('idempotency key ci-1234/review');
    const doc = JSON.parse((await r.run(['sessions', 'show', id, '--json'])).stdout) as {
      idempotency: { key: string; request_hash: string } | null;
      batch: unknown;
    };
    expect(doc.idempotency?.key).toBe('ci-1234/review');
    expect(doc.idempotency?.request_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(doc.batch).toBeNull();
  });

  it('a first run that failed gate is exit 12 again on the re-run, sending nothing (reliability #134)', async () => {
    const r = await open();
    const first = await r.run([...ASK, '-o', 'ndjson', '--min-convergence', '100%']);
    expect(first.code).toBe(12);
    const sent = r.sim.requests.length;
    const again = await r.run([...ASK, '-o', 'ndjson', '--min-convergence', '100%']);
    expect(again.code).toBe(12);
    expect(parseNdjson(again.stdout).at(-1)).toMatchObject({ type: 'finish', gate: { status: 'fail' } });
    expect(r.sim.requests.length).toBe(sent);
  });
});

describe('the same key for another question (reliability #136)', () => {
  it('is exit 2 naming the key, sending nothing; --force runs it under the key (reliability #136)', async () => {
    const r = await open();
    expect((await r.run([...ASK, '-o', 'final'])).code).toBe(0);
    const sent = posts(r);
    const changed = await r.run(['ask', '-p', 'fast', '--idempotency-key', 'ci-1234/review', 'Another question']);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain("idempotency key 'ci-1234/review'");
    expect(changed.stderr).toContain('a key is not reusable for another question');
    expect(changed.stderr).toContain('--force');
    expect(posts(r)).toBe(sent);
    // Another policy is another request too.
    const policy = await r.run(['ask', '-p', 'deep', '--idempotency-key', 'ci-1234/review', 'Review the cache design']);
    expect(policy.code).toBe(2);

    const forced = await r.run([
      'ask',
      '-p',
      'fast',
      '-o',
      'json',
      '--force',
      '--idempotency-key',
      'ci-1234/review',
      'Another question',
    ]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(starts(r)).toBe(2);
    const sessions = await sessionsIn(r.home);
    expect(sessions).toHaveLength(2);
    const hashes = new Set(sessions.map((s) => s.idempotency?.request_hash));
    expect(hashes.size).toBe(2);
    // The key now names the forced question: its re-run replays it.
    const replay = await r.run([
      'ask',
      '-p',
      'fast',
      '-o',
      'json',
      '--idempotency-key',
      'ci-1234/review',
      'Another question',
    ]);
    expect(replay.code).toBe(0);
    expect(answer(replay.stdout).session).toBe(answer(forced.stdout).session);
    expect(starts(r)).toBe(2);
  });

  it('refuses a key that is empty, too long or holds a space, and --force without a key, before anything is sent (reliability #139)', async () => {
    const r = await open();
    for (const key of ['', 'a b', 'x'.repeat(201), 'naïve']) {
      const bad = await r.run(['ask', '-p', 'fast', '--idempotency-key', key, 'q']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^nsed: --idempotency-key .*: use 1 to 200 letters, digits/m);
    }
    const lone = await r.run(['ask', '-p', 'fast', '--force', 'q']);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain('--force goes with --idempotency-key');
    expect(r.sim.requests).toHaveLength(0);
  });
});

describe('a native keyed turn without GET /deliberations (reliability #137, #138)', () => {
  it('asks for the keyed room by name: found, its answer is taken; never started, the turn is sent without a warning (reliability #137)', async () => {
    const r = await open();
    const first = await r.run([...NATIVE, '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    r.sim.setFaults(['all:status=404;times=1']);
    const again = await r.run([...NATIVE, '-o', 'json'], { env: { NSED_HOME: await freshHome() } });
    expect(again.code, again.stderr).toBe(0);
    expect(answer(again.stdout)).toMatchObject({
      job_id: answer(first.stdout).job_id,
      content: answer(first.stdout).content,
    });
    expect(starts(r)).toBe(1);
    r.sim.setFaults(['all:status=405;times=1']);
    const other = [
      'ask',
      '--agents',
      'CortexA,CortexB',
      '--rounds',
      '1',
      '--idempotency-key',
      'ci-1234/new',
      'Pick a queue',
    ];
    const sent = await r.run([...other, '-o', 'final'], { env: { NSED_HOME: await freshHome() } });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toBe('');
    expect(starts(r)).toBe(2);
  });
});

describe('a key whose deliberation gave no answer (reliability #139)', () => {
  it('asks again after a failed deliberation, in a new session the key then names (reliability #139)', async () => {
    const r = await open();
    r.sim.setFaults(['fail-at-round=1;times=1']);
    const failed = await r.run([...ASK, '-o', 'final']);
    expect(failed.code).toBe(5);
    const again = await r.run([...ASK, '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/deliberation \S+ failed; asking again/);
    expect(starts(r)).toBe(2);
    const sent = r.sim.requests.length;
    const third = await r.run([...ASK, '-o', 'json']);
    expect(third.code).toBe(0);
    expect(answer(third.stdout).session).toBe(answer(again.stdout).session);
    expect(r.sim.requests.length).toBe(sent);
  });
});

/**
 * A first run under the key, held on the simulator once its job is recorded, and a second run
 * with an empty store that must find that job and follow it; then the job is released. Both end 0,
 * and the second answers from the first's job.
 */
async function followedFromEmptyStore(r: Rig, args: readonly string[]) {
  const first = r.start([...args, '-o', 'ndjson']);
  const job = await r.sim.control.nextJob();
  await first.output((out) => out.includes('"type":"job"'), 60_000);
  const home = await freshHome();
  const second = r.start([...args, '-o', 'json'], { env: { NSED_HOME: home } });
  await second.output((out) => out.includes('is still running'), 60_000);
  r.sim.control.release(job);
  const [a, b] = await Promise.all([first.result, second.result]);
  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(0);
  expect(answer(b.stdout).job_id).toBe(job);
  return { job, home, a, b };
}

describe.each(['default', 'strict'] as const)(
  'a re-run with an empty store, simulator profile %s (docs/reliability.md #135)',
  (profile) => {
    it('finds the running deliberation on the orchestrator and follows it, sending no second start (reliability #135)', async () => {
      const r = await open({ hold: true, profile });
      const { home, a, b } = await followedFromEmptyStore(r, ASK);
      expect(answer(b.stdout).content).toBe(String(parseNdjson(a.stdout).at(-1)?.['content']));
      expect(starts(r)).toBe(1);
      // Recorded as a session of the new store, under the key: its own re-run sends nothing.
      const [s] = await sessionsIn(home);
      expect(s?.idempotency?.key).toBe('ci-1234/review');
      expect(s?.turns.map((t) => t.role)).toEqual(['user', 'assistant']);
      const sent = r.sim.requests.length;
      const third = await r.run([...ASK, '-o', 'json'], { env: { NSED_HOME: home } });
      expect(third.code).toBe(0);
      expect(r.sim.requests.length).toBe(sent);
    });

    it('takes the answer of a deliberation that ended, with the exit code the first run had, sending no start (reliability #135)', async () => {
      const r = await open({ profile });
      // The strict profile reports no convergence on the compat stream: the gate is inconclusive (13) both times.
      const gate = ['--min-convergence', '50%'];
      const first = await r.run([...ASK, '-o', 'json', ...gate]);
      expect([0, 13]).toContain(first.code);
      const home = await freshHome();
      const again = await r.run([...ASK, '-o', 'json', ...gate], { env: { NSED_HOME: home } });
      expect(again.code, again.stderr).toBe(first.code);
      expect(again.stderr).toContain('has answered; recording its answer');
      const [before, after] = [JSON.parse(first.stdout), JSON.parse(again.stdout)] as Array<Record<string, unknown>>;
      for (const field of ['job_id', 'content', 'verdict', 'gate']) expect(after?.[field]).toEqual(before?.[field]);
      expect(starts(r)).toBe(1);
      expect(await sessionsIn(home)).toHaveLength(1);
    });

    it('checks the answer it takes against --schema as the first run did: the same structured answer, or exit 14 again (reliability #135)', async () => {
      const r = await open({ profile });
      const schema = JSON.stringify({
        type: 'object',
        required: ['verdict'],
        properties: { verdict: { type: 'string' } },
      });
      const keyed = [
        'ask',
        '-p',
        'fast',
        '--schema',
        schema,
        '--idempotency-key',
        'ci-1234/schema',
        'Is the cache safe?',
      ];
      const first = await r.run([...keyed, '-o', 'json']);
      // The strict profile does not honour response_format: the answer never matches (14).
      expect(first.code, first.stderr).toBe(profile === 'default' ? 0 : 14);
      const sent = starts(r);
      const again = await r.run([...keyed, '-o', 'json'], { env: { NSED_HOME: await freshHome() } });
      expect(again.code, again.stderr).toBe(first.code);
      const [before, after] = [JSON.parse(first.stdout), JSON.parse(again.stdout)] as Array<Record<string, unknown>>;
      expect(after?.['structured']).toEqual(before?.['structured']);
      expect(after?.['content']).toEqual(before?.['content']);
      expect(starts(r)).toBe(sent);
      // And from the first runner's store, the replay: the same code, nothing sent (docs/reliability.md #134).
      const requests = r.sim.requests.length;
      const replay = await r.run([...keyed, '-o', 'json']);
      expect(replay.code, replay.stderr).toBe(first.code);
      expect((JSON.parse(replay.stdout) as Record<string, unknown>)['structured']).toEqual(before?.['structured']);
      expect(r.sim.requests.length).toBe(requests);
    });

    it('refuses a changed question under the key, from the job id alone (reliability #136)', async () => {
      const r = await open({ profile });
      expect((await r.run([...ASK, '-o', 'final'])).code).toBe(0);
      const home = await freshHome();
      const changed = await r.run(['ask', '-p', 'fast', '--idempotency-key', 'ci-1234/review', 'Something else'], {
        env: { NSED_HOME: home },
      });
      expect(changed.code).toBe(2);
      expect(changed.stderr).toContain('a key is not reusable for another question');
      expect(starts(r)).toBe(1);
      expect(await sessionsIn(home)).toHaveLength(0);
    });

    it('on the native path, finds the keyed room while it runs and after it ended (reliability #137)', async () => {
      const r = await open({ hold: true, profile });
      const { job, b } = await followedFromEmptyStore(r, NATIVE);
      expect(job).toMatch(/^idem-[0-9a-f]{32}$/);
      const after = await r.run([...NATIVE, '-o', 'json'], { env: { NSED_HOME: await freshHome() } });
      expect(after.code, after.stderr).toBe(0);
      expect(answer(after.stdout).content).toBe(answer(b.stdout).content);
      expect(starts(r)).toBe(1);
    });
  },
);

describe('an orchestrator without GET /deliberations (reliability #138)', () => {
  it.each([404, 405])(
    'says so in one line and sends the turn when the store is empty (%i, reliability #138)',
    async (status) => {
      const r = await open();
      r.sim.setFaults([`all:status=${status};times=1`]);
      const run = await r.run([...ASK, '-o', 'final']);
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stderr.split('\n').filter((l) => l !== '');
      expect(lines).toEqual([expect.stringContaining('does not list its deliberations')]);
      expect(starts(r)).toBe(1);
      // The store still knows the key: the re-run replays without asking the listing.
      const sent = r.sim.requests.length;
      expect((await r.run([...ASK, '-o', 'final'])).code).toBe(0);
      expect(r.sim.requests.length).toBe(sent);
    },
  );
});

describe('batch --idempotency-key: a key per item (reliability #134, #135)', () => {
  it('re-running a finished batch with the same key sends no start, from the store or an empty one (reliability #134, #135)', async () => {
    const r = await open();
    const dir = await freshHome();
    const items = join(dir, 'items.jsonl');
    await writeFile(
      items,
      ['{"id":"cache","prompt":"Design a cache"}', '{"id":"queue","prompt":"Design a queue"}', ''].join('\n'),
    );
    const batch = ['batch', items, '-p', 'fast', '-j', '2', '--idempotency-key', 'ci-77/batch'];
    const lines = (out: string) =>
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { id: string; status: string; answer: string; job_id: string })
        .sort((a, b) => a.id.localeCompare(b.id));
    const first = await r.run(batch);
    expect(first.code, first.stderr).toBe(0);
    expect(starts(r)).toBe(2);
    const sessions = await sessionsIn(r.home);
    expect(sessions.map((s) => s.idempotency?.key).sort()).toEqual(['ci-77/batch/cache', 'ci-77/batch/queue']);

    const again = await r.run(batch);
    expect(again.code, again.stderr).toBe(0);
    const fresh = await r.run(batch, { env: { NSED_HOME: await freshHome() } });
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(starts(r)).toBe(2);
    const strip = (l: ReturnType<typeof lines>) =>
      l.map(({ id, status, answer, job_id }) => ({ id, status, answer, job_id }));
    expect(strip(lines(again.stdout))).toEqual(strip(lines(first.stdout)));
    expect(strip(lines(fresh.stdout))).toEqual(strip(lines(first.stdout)));
    expect(await sessionsIn(r.home)).toHaveLength(2);
  });
});
