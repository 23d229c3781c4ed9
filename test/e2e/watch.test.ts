import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { parseNdjson, type CliRun, useRig } from '../harness/rig.js';
import { until } from '../harness/sse.js';

type Event = Record<string, unknown>;

/** Every file under the store, by relative path, as a hash of its bytes. */
async function storeHashes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const name = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        out[`${name}/`] = 'dir';
        await walk(path, name);
      } else
        out[name] = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
    }
  };
  await walk(root, '');
  return out;
}

/** The events a reader compares: no `seq`, and without what only the recording run knows (its turn id). */
const comparable = (events: readonly Event[]): Event[] =>
  events.map(({ seq: _seq, ...e }) => {
    if (e['type'] === 'turn-start') return { type: 'turn-start', session: e['session'], policy: e['policy'] };
    if (e['type'] === 'finish') {
      const { turn: _turn, ...rest } = e;
      return rest;
    }
    return e;
  });

describe('nsed watch: a read-only follower of a running deliberation', { timeout: 180_000 }, () => {
  // Every job here waits for the test: a phase runs only when released through held.sim.control.
  const held = useRig({ hold: true });

  /** Starts the owner's run (-o ndjson) and waits until its job is named and its marker written. */
  async function startOwner(args: string[]): Promise<{ owner: CliRun; session: string; job: string }> {
    const owner = held.start([...args, '-o', 'ndjson']);
    await owner.output((o) => o.includes('"type":"job"'));
    const events = parseNdjson(owner.stdout.text.slice(0, owner.stdout.text.lastIndexOf('\n') + 1));
    const session = String(events.find((e) => e['type'] === 'turn-start')?.['session']);
    const job = String(events.find((e) => e['type'] === 'job')?.['job_id']);
    // The marker is durable before the job line; the lock goes a moment later. Until the owner's
    // next write (the answer), the store's files stay as they are now.
    await until(async () => !(await readdir(join(held.home, 'sessions'))).some((n) => n.endsWith('.lock')));
    return { owner, session, job };
  }

  /** Starts `nsed watch <args>` and waits until its stream request for `job` reached the simulator. */
  async function startWatch(args: string[], job: string, follows = [`/deliberation/${job}/resume`]) {
    const before = held.sim.requests.length;
    const run = held.start(['watch', ...args]);
    await until(() => held.sim.requests.slice(before).some((q) => follows.includes(q.path)));
    return run;
  }

  it('beside a held job with the owner streaming: detaching on Ctrl-C leaves the job running and the store untouched, byte for byte (reliability #42, #119)', async () => {
    const { owner, session, job } = await startOwner(['ask', 'Plan the database migration']);
    // Round 1 runs (its proposals, then its evaluations) and the job waits at the next boundary.
    held.sim.control.release(job, 2);
    await held.sim.control.parked(job);
    await owner.output((o) => o.includes('"scored":true'));
    // A session file written long ago is one a listing would add to its index: --last must not.
    const old = new Date(Date.now() - 3_600_000);
    await utimes(join(held.home, 'sessions', `${session}.json`), old, old);
    const before = await storeHashes(held.home);
    // --last reads the listing without writing its index; -s reads the session file alone.
    const watches = [
      await startWatch(['--last', '-o', 'text'], job),
      await startWatch(['-s', session, '-o', 'ndjson'], job),
      await startWatch(['-s', session.slice(0, 8), '-o', 'final'], job),
      await startWatch(['-s', session, '-o', 'json'], job),
    ];
    // What was replayed is shown live, before the job goes on.
    await watches[0]?.output((o) => o.includes('round 1/'));
    await watches[1]?.output((o) => o.includes('"scored":true'));
    for (const w of watches) w.interrupt();
    const results = await Promise.all(watches.map((w) => w.result));
    for (const r of results) {
      expect(r.code, r.stderr).toBe(ExitCode.interrupted);
      expect(r.stderr).toContain(`stopped watching; deliberation ${job} goes on on the orchestrator`);
    }
    expect(await storeHashes(held.home)).toEqual(before);
    // Only detached: the job is still there, held, and nobody asked to cancel it.
    expect(held.sim.requests.some((q) => q.path === `/deliberation/${job}/cancel`)).toBe(false);
    expect(held.sim.control.job(job)?.ended).toBe(false);
    held.sim.control.release(job);
    const r = await owner.result;
    expect(r.code, r.stderr).toBe(0);
  });

  it('follows a job to its end in every mode and writes nothing: the pending marker of a gone owner stays as it was', async () => {
    const { owner, session, job } = await startOwner(['ask', 'Design a cache for a read-heavy API']);
    // The owner goes away (its turn is kept as interrupted, the marker for resume stays): from
    // here on only the watches could write to the store.
    owner.interrupt();
    expect((await owner.result).code).toBe(ExitCode.interrupted);
    const before = await storeHashes(held.home);
    const watches = await Promise.all(
      (['text', 'ndjson', 'final', 'json'] as const).map((mode) => startWatch(['-s', session, '-o', mode], job)),
    );
    held.sim.control.release(job);
    const [text, ndjson, final, json] = await Promise.all(watches.map((w) => w.result));
    for (const r of [text, ndjson, final, json]) expect(r?.code, r?.stderr).toBe(0);
    const events = parseNdjson(ndjson?.stdout ?? '');
    const finish = events.at(-1);
    expect(finish?.['type']).toBe('finish');
    const answer = String(finish?.['content']);
    expect(answer).toMatch(/^## Design a cache/);
    expect(text?.stdout.trimEnd()).toBe(answer.trimEnd());
    expect(final?.stdout.trimEnd()).toBe(answer.trimEnd());
    expect(JSON.parse(json?.stdout ?? '{}')).toMatchObject({ content: answer, job_id: job, session });
    expect(text?.stderr).toMatch(new RegExp(`session ${session} · job ${job}`));
    expect(await storeHashes(held.home)).toEqual(before);
    const saved = await held.session<{ pending_job?: { job_id: string } }>(session);
    expect(saved.pending_job?.job_id).toBe(job);
    // The turn is still the owner's to finish: resume records it.
    const resumed = await held.run(['resume', '-s', session, '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
  });

  it('two watches and the owner see the same events (NDJSON, seq and the turn id aside; replay then live, reliability #33, #41)', async () => {
    const { owner, session, job } = await startOwner(['ask', '-p', 'deep', 'Rewrite the billing service']);
    const a = await startWatch(['-s', session, '-o', 'ndjson'], job);
    const b = await startWatch(['--last', '-o', 'ndjson'], job);
    // Guidance sent mid-way reaches every follower once.
    await held.sim.control.parked(job);
    const injected = await held.run(['inject', '-s', session, '--no-wait', 'Keep the old API running']);
    expect(injected.code, injected.stderr).toBe(0);
    held.sim.control.release(job);
    const [ro, ra, rb] = await Promise.all([owner.result, a.result, b.result]);
    for (const r of [ro, ra, rb]) expect(r.code, r.stderr).toBe(0);
    const [eo, ea, eb] = [ro, ra, rb].map((r) => comparable(parseNdjson(r.stdout)));
    expect(ea).toEqual(eb);
    // The owner's stream names the orchestrator the same way; only the recording run knows the turn.
    expect(ea).toEqual(eo);
    expect(eo?.map((e) => e['type'])).toEqual(expect.arrayContaining(['job', 'round', 'injection', 'text', 'finish']));
  });

  it('--agent keeps only those agents in round events; every other event is unchanged', async () => {
    const { owner, session, job } = await startOwner(['ask', 'Pick a message queue']);
    const one = await startWatch(['-s', session, '-o', 'ndjson', '--agent', 'CortexB'], job);
    const two = await startWatch(['-s', session, '-o', 'ndjson', '--agent', 'CortexA', '--agent', 'CortexC'], job);
    held.sim.control.release(job);
    const [ro, r1, r2] = await Promise.all([owner.result, one.result, two.result]);
    for (const r of [ro, r1, r2]) expect(r.code, r.stderr).toBe(0);
    const all = comparable(parseNdjson(ro.stdout));
    const only = (agents: string[]): Event[] =>
      all.flatMap((e) => {
        if (e['type'] !== 'round') return [e];
        const all = e['candidates'] as Array<{ agent_id: string; score: number }>;
        const candidates = all.filter((c) => agents.includes(c.agent_id));
        if (e['scored'] !== true) return candidates.length === 0 ? [] : [{ ...e, candidates }];
        // A scored round names the whole council's leader beside the selection.
        const best = all.reduce<{ agent_id: string; score: number } | null>(
          (b, c) => (b === null || c.score > b.score ? { agent_id: c.agent_id, score: c.score } : b),
          null,
        );
        return [{ ...e, candidates, leader: best }];
      });
    const e1 = comparable(parseNdjson(r1.stdout));
    const e2 = comparable(parseNdjson(r2.stdout));
    expect(e1).toEqual(only(['CortexB']));
    expect(e2).toEqual(only(['CortexA', 'CortexC']));
    const scored = e1.filter((e) => e['type'] === 'round' && e['scored'] === true);
    expect(scored.length).toBeGreaterThan(0);
    for (const e of scored)
      expect((e['candidates'] as Array<{ agent_id: string }>).map((c) => c.agent_id)).toEqual(['CortexB']);
    // The council's verdict is the whole council's, whoever is shown.
    expect(e1.find((e) => e['type'] === 'verdict')).toEqual(all.find((e) => e['type'] === 'verdict'));
  });

  it("--agent: each round's counts say whose claims they are (the selected agents'), and are theirs alone, never 'all candidates'", async () => {
    const { owner, session, job } = await startOwner(['ask', 'Pick a message queue']);
    const watchOf = (agents: string[]): Promise<CliRun> =>
      startWatch(['-s', session, '-o', 'final', '--progress', 'plain', ...agents.flatMap((a) => ['--agent', a])], job);
    const one = await watchOf(['CortexB']);
    const two = await watchOf(['CortexA', 'CortexC']);
    held.sim.control.release(job);
    const [ro, r1, r2] = await Promise.all([owner.result, one.result, two.result]);
    for (const r of [ro, r1, r2]) expect(r.code, r.stderr).toBe(0);
    // The counts each watch must show: of the selected agents' candidates in each scored round.
    const counts = (agents: string[]): string[] =>
      parseNdjson(ro.stdout).flatMap((e) => {
        if (e['type'] !== 'round' || e['scored'] !== true) return [];
        const mine = (e['candidates'] as Array<{ agent_id: string; claims: Array<{ verdict: string }> }>).filter((c) =>
          agents.includes(c.agent_id),
        );
        const n = (v: string): number => mine.flatMap((c) => c.claims).filter((k) => k.verdict === v).length;
        const whose = mine.map((c) => c.agent_id).join(', ');
        return [`claims of ${whose}: ${n('wrong')} wrong, ${n('contested')} contested`];
      });
    const shown = (stderr: string): string[] => stderr.match(/claims of [^:]+: \d+ wrong, \d+ contested/g) ?? [];
    expect(counts(['CortexB']).length).toBeGreaterThan(0);
    expect(shown(r1.stderr)).toEqual(counts(['CortexB']));
    expect(shown(r2.stderr)).toEqual(counts(['CortexA', 'CortexC']));
    for (const r of [r1, r2]) expect(r.stderr).not.toContain('all candidates');
  });

  it('a job that fails ends the watch with exit 5, and one cancelled from another terminal with exit 9 (reliability #19)', async () => {
    held.sim.setFaults(['chat:fail-at-round=2;times=1']);
    const failing = await startOwner(['ask', 'Plan the rollout']);
    held.sim.setFaults([]);
    const w1 = await startWatch(['-s', failing.session, '-o', 'ndjson'], failing.job);
    held.sim.control.release(failing.job);
    const [o1, r1] = await Promise.all([failing.owner.result, w1.result]);
    expect(o1.code).toBe(ExitCode.server);
    expect(r1.code, r1.stderr).toBe(ExitCode.server);
    expect(parseNdjson(r1.stdout).at(-1)).toMatchObject({ type: 'error', code: 'server', exit_code: 5, status: null });

    const cancelled = await startOwner(['ask', 'Rewrite it in Rust']);
    const w2 = await startWatch(['-s', cancelled.session, '-o', 'json'], cancelled.job);
    const c = await held.run(['cancel', '-s', cancelled.session]);
    expect(c.code, c.stderr).toBe(0);
    const [o2, r2] = await Promise.all([cancelled.owner.result, w2.result]);
    expect(o2.code).toBe(ExitCode.cancelled);
    expect(r2.code, r2.stderr).toBe(ExitCode.cancelled);
    expect(JSON.parse(r2.stdout)).toMatchObject({
      job_id: cancelled.job,
      error: { code: 'cancelled', exit_code: 9 },
    });
    // A job that has ended already gives its outcome at once; its session has nothing running.
    const late = await held.run(['watch', cancelled.job]);
    expect(late.code, late.stderr).toBe(ExitCode.cancelled);
    const idle = await held.run(['watch', '-s', cancelled.session]);
    expect(idle.code, idle.stderr).toBe(ExitCode.conflict);
    expect(idle.stderr).toMatch(/^nsed: nothing is running in session /m);
  });

  it('a job id alone, without a session, in a store that stays empty', async () => {
    const { owner, job } = await startOwner(['ask', 'Size the connection pool']);
    const empty = await mkdtemp(join(tmpdir(), 'nsed-watch-empty-'));
    try {
      const before = held.sim.requests.length;
      const w = held.start(['watch', '--agent', 'CortexB', job, '-o', 'ndjson'], { env: { NSED_HOME: empty } });
      await until(() => held.sim.requests.slice(before).some((q) => q.path === `/deliberation/${job}/resume`));
      held.sim.control.release(job);
      const [ro, rw] = await Promise.all([owner.result, w.result]);
      expect(rw.code, rw.stderr).toBe(0);
      const events = parseNdjson(rw.stdout);
      expect(events[0]).toMatchObject({ type: 'turn-start', session: '' });
      expect(events.at(-1)?.['content']).toBe(parseNdjson(ro.stdout).at(-1)?.['content']);
      expect(await readdir(empty)).toEqual([]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('a job started with --agents (the native path) is followed to its end', async () => {
    const { owner, session, job } = await startOwner([
      'ask',
      '--agents',
      'CortexA,CortexB',
      '--rounds',
      '2',
      'Design a cache',
    ]);
    const w = await startWatch(['-s', session, '-o', 'ndjson', '--agent', 'CortexA'], job);
    held.sim.control.release(job);
    const [ro, rw] = await Promise.all([owner.result, w.result]);
    expect(rw.code, rw.stderr).toBe(0);
    const events = parseNdjson(rw.stdout);
    expect(events[0]).toMatchObject({ type: 'turn-start', session, path: 'native' });
    const rounds = events.filter((e) => e['type'] === 'round' && e['scored'] === true);
    expect(rounds.map((e) => e['round'])).toEqual([1, 2]);
    for (const e of rounds)
      expect((e['candidates'] as Array<{ agent_id: string }>).map((c) => c.agent_id)).toEqual(['CortexA']);
    expect(events.at(-1)?.['content']).toBe(parseNdjson(ro.stdout).at(-1)?.['content']);
  });

  it('nothing running, or a job the orchestrator does not know: exit 7, as resume', async () => {
    const done = await held.run(['watch', 'no-such-job']);
    expect(done.code).toBe(ExitCode.conflict);
    expect(done.stderr).toMatch(/^nsed: deliberation no-such-job is not known to the orchestrator$/m);
    const usage = await held.run(['watch']);
    expect(usage.code).toBe(ExitCode.usage);
    const both = await held.run(['watch', 'job', '--last']);
    expect(both.code).toBe(ExitCode.usage);
  });
});

describe(
  'nsed watch where the orchestrator offers no /resume for a native job (strict profile)',
  { timeout: 180_000 },
  () => {
    const strict = useRig({ hold: true, profile: 'strict' });

    it('follows the live job stream and settles the end from /result, as resume does', async () => {
      const owner = strict.start([
        'ask',
        '--agents',
        'CortexA,CortexB',
        '--rounds',
        '2',
        '-o',
        'ndjson',
        'Design a cache',
      ]);
      await owner.output((o) => o.includes('"type":"job"'));
      const [turnStart, named] = parseNdjson(owner.stdout.text.slice(0, owner.stdout.text.lastIndexOf('\n') + 1));
      const session = String(turnStart?.['session']);
      const job = String(named?.['job_id']);
      const w = strict.start(['watch', '-s', session, '-o', 'json']);
      // Two live listeners on the job stream: the owner's and the watch's.
      await strict.sim.control.attached(job, 2);
      strict.sim.control.release(job);
      const [ro, rw] = await Promise.all([owner.result, w.result]);
      expect(ro.code, ro.stderr).toBe(0);
      expect(rw.code, rw.stderr).toBe(0);
      expect((JSON.parse(rw.stdout) as { content: string }).content).toBe(parseNdjson(ro.stdout).at(-1)?.['content']);
    });
  },
);
