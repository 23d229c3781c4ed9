// A runner killed with kill -9 while its deliberation runs, and the deliberation ending before
// anyone follows it again (docs/reliability.md #200, #201): every path that finds it ended
// rebuilds its rounds and verdict from the server's replay, so the gates judge what a run that
// stayed connected would have judged. Real processes, since only a real process is killed so.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import { request } from 'node:http';
import { proxiedRigs } from '../harness/holding-proxy.js';
import { startServer } from '../harness/scripted-server.js';
import { useRig } from '../harness/rig.js';
import { until } from '../harness/sse.js';

const rig = useRig({ hold: true });

const GATE = ['--min-convergence', '50%'];

interface Out {
  verdict: { convergence: { final: number | null }; chosen: unknown; rounds: unknown };
  gate: { status: string } | null;
}

/** The uninterrupted run of `prompt`: its verdict, gate and exit code, released as it goes. */
async function uninterrupted(prompt: string, council: string[] = []): Promise<{ out: Out; code: number }> {
  const run = rig.start(['ask', '-o', 'json', ...council, ...GATE, prompt]);
  rig.sim.control.release(await rig.sim.control.nextJob());
  const r = await run.result;
  return { out: JSON.parse(r.stdout) as Out, code: r.code };
}

const running = async (): Promise<number> => {
  const { stdout } = await rig.run(['sessions', 'ls', '--state', 'running', '--ids']);
  return stdout.trim().split('\n').filter(Boolean).length;
};

/** Spawns `args`, waits until `jobs` deliberations are recorded as running, kills it with -9, lets them end. */
async function killedWhileRunning(args: string[], jobs: number): Promise<string[]> {
  const before = await running();
  const child = rig.spawn(args);
  const ids: string[] = [];
  for (let i = 0; i < jobs; i++) ids.push(await rig.sim.control.nextJob());
  await until(async () => (await running()) === before + jobs);
  child.kill('SIGKILL');
  expect((await child.result).signal).toBe('SIGKILL');
  for (const id of ids) {
    rig.sim.control.release(id);
    await rig.sim.control.ended(id);
  }
  return ids;
}

describe('a deliberation that ended while nsed was dead', () => {
  it('resume records the rounds and verdict of the uninterrupted run, and its gate and exit code (reliability #200)', async () => {
    const prompt = 'Plan the schema migration of the billing tables';
    const base = await uninterrupted(prompt);
    expect(base.out.verdict.convergence.final).not.toBeNull();
    await killedWhileRunning(['ask', '-o', 'json', ...GATE, prompt], 1);
    const resumed = await rig.run(['resume', '--last', '-o', 'json', ...GATE]);
    expect(resumed.code, resumed.stderr).toBe(base.code);
    const out = JSON.parse(resumed.stdout) as Out;
    expect(out.verdict).toEqual(base.out.verdict);
    expect(out.gate).toEqual(base.out.gate);
    // The recorded turn now carries the rounds: a later gate judges it as the run did.
    const gate = await rig.run(['gate', '--last', ...GATE]);
    expect(gate.code, gate.stderr).toBe(base.code);
  });

  it('continue records the ended turn with its rounds and verdict before sending its own (reliability #200)', async () => {
    const prompt = 'Choose a retry policy for the payment webhook';
    const base = await uninterrupted(prompt);
    await killedWhileRunning(['ask', prompt], 1);
    const next = rig.start(['continue', '--last', '-o', 'json', 'And for refunds?']);
    rig.sim.control.release(await rig.sim.control.nextJob());
    const r = await next.result;
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { session: string }).session;
    // The rounds live beside the transcript (docs/history.md): read as `sessions show --rounds` reads them.
    const session = await openFileStore(rig.home).read(id, { rounds: true });
    const first = session.turns.find((t) => t.role === 'assistant');
    expect(first?.rounds?.length).toBe((base.out.verdict.rounds as { completed: number }).completed);
  });

  it('watch of the ended job shows the rounds and verdict of the uninterrupted run (reliability #200)', async () => {
    const prompt = 'Pick the isolation level for the ledger';
    const base = await uninterrupted(prompt);
    const [job] = await killedWhileRunning(['ask', prompt], 1);
    const watched = await rig.run(['watch', job ?? '', '-o', 'json']);
    expect(watched.code, watched.stderr).toBe(0);
    expect((JSON.parse(watched.stdout) as Out).verdict).toEqual(base.out.verdict);
  });

  it('a native job: resume reads its rounds back from /details, so its convergence, scores, chosen agent, gate and exit code are those of the uninterrupted run (reliability #200)', async () => {
    const council = ['--agents', 'CortexA,CortexB', '--rounds', '2'];
    const prompt = 'Shard the users table?';
    const base = await uninterrupted(prompt, council);
    expect(base.out.verdict.convergence.final).not.toBeNull();
    await killedWhileRunning(['ask', ...council, prompt], 1);
    const resumed = await rig.run(['resume', '--last', '-o', 'json', ...GATE]);
    expect(resumed.code, resumed.stderr).toBe(base.code);
    const out = JSON.parse(resumed.stdout) as { verdict: Record<string, unknown>; gate: unknown };
    const b = base.out.verdict as unknown as Record<string, unknown>;
    // What /details keeps: the rounds, their scores and convergence, the chosen proposal. Its
    // history carries no claims, so those stay unreported (null) rather than guessed.
    for (const k of ['rounds', 'convergence', 'margin', 'scores', 'runner_up', 'dissent'])
      expect(out.verdict[k], k).toEqual(b[k]);
    expect(out.verdict['chosen']).toMatchObject({
      agent: (b['chosen'] as { agent: string }).agent,
      score: (b['chosen'] as { score: number }).score,
    });
    expect(out.gate).toEqual(base.out.gate);
  });

  it('a native job on a server that keeps no round history: the answer is recorded and the inconclusive gate says why (reliability #200)', async () => {
    // The simulator behind a loopback proxy with neither /details nor /resume, as a server that
    // keeps no history: the answer comes from /result alone.
    const upstream = new URL(rig.sim.url);
    const proxy = await startServer((req, res, seen) => {
      if (seen.url.endsWith('/details') || seen.url.endsWith('/resume')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: seen.method, path: seen.url, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(seen.body);
    });
    try {
      const env = { NSED_URL: proxy.url };
      const council = ['--agents', 'CortexA,CortexB', '--rounds', '2'];
      const child = rig.spawn(['ask', ...council, 'Cache the sessions where?'], { env });
      const job = await rig.sim.control.nextJob();
      await until(async () => (await running()) === 1);
      child.kill('SIGKILL');
      await child.result;
      rig.sim.control.release(job);
      await rig.sim.control.ended(job);
      const resumed = await rig.run(['resume', '--last', '-o', 'json', ...GATE], { env });
      expect(resumed.code, resumed.stderr).toBe(13);
      expect(resumed.stderr).toContain('gave back no round history of this native job');
      expect((JSON.parse(resumed.stdout) as { content: string }).content).not.toBe('');
      expect(proxy.seen.some((s) => s.url.endsWith('/details'))).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('batch --resume gives the items left running the verdicts and gate of uninterrupted runs (reliability #200)', async () => {
    const prompts = ['Size the connection pool for the API', 'Split the monolith along which seam?'];
    const bases = [await uninterrupted(prompts[0] ?? ''), await uninterrupted(prompts[1] ?? '')];
    const dir = rig.home;
    const items = join(dir, 'two.jsonl');
    await writeFile(items, prompts.map((p, i) => JSON.stringify({ id: `i${i}`, prompt: p })).join('\n'));
    const out = join(dir, 'two-results.jsonl');
    await killedWhileRunning(['batch', items, '-j', '2', '--out', out, ...GATE], 2);
    const again = await rig.run(['batch', items, '-j', '2', '--out', out, '--resume', ...GATE]);
    expect(again.stderr).toContain('0 done, 2 to follow, 0 to run');
    // Both pass their gate uninterrupted; a resume that lost the verdicts would be exit 13.
    expect(bases.map((b) => b.code)).toEqual([0, 0]);
    expect(again.code, again.stderr).toBe(0);
    const lines = (await readFile(out, 'utf8'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { id: string; verdict: unknown; gate: unknown; status: string });
    for (const [i, base] of bases.entries()) {
      const line = lines.find((l) => l.id === `i${i}`);
      expect(line?.verdict).toEqual(base.out.verdict);
      expect(line?.gate).toEqual(base.out.gate);
    }
  });
});

const proxied = proxiedRigs();

describe('a batch killed between recording an item and sending its start', () => {
  it('batch --resume sends that item, once, and it ends ok (reliability #201)', async () => {
    const { rig: own, proxy, env } = await proxied('keep-first');
    const items = join(own.home, 'one.jsonl');
    await writeFile(items, '{"id":"only","prompt":"Name the cache keys"}\n');
    const out = join(own.home, 'one-results.jsonl');
    const child = own.spawn(['batch', items, '--out', out], { env });
    // The start has left nsed (its turn and claim are recorded) and no server has seen it.
    await proxy.started;
    child.kill('SIGKILL');
    expect((await child.result).signal).toBe('SIGKILL');
    expect(own.sim.control.stats().started).toBe(0);
    const again = await own.runProcess(['batch', items, '--out', out, '--resume'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('0 done, 1 to follow, 0 to run');
    const lines = (await readFile(out, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect((JSON.parse(lines[0] ?? '{}') as { status: string }).status).toBe('ok');
    expect(own.sim.control.stats().started).toBe(1);
  });
});
