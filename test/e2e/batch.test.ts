// `nsed batch` against the simulator over real HTTP (docs/reliability.md #140-#146).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../harness/rig.js';
import { deliberations, interruptedAfterFirst, resultLines, useBatchRig } from '../harness/batch-rig.js';
import { until } from '../harness/sse.js';

const batch = useBatchRig('batch');

describe('inputs (reliability #140)', () => {
  it('JSONL: a line per item, in completion order, each a saved session with its answer and verdict', async () => {
    const items = await batch.file(
      'a.jsonl',
      '{"id":"a","prompt":"Design a cache"}\n{"id":"b","prompt":"Design a queue"}\n{"id":"c","prompt":"Pick a database"}\n',
    );
    const r = await batch.rig.run(['batch', items, '-j', '2']);
    expect(r.code, r.stderr).toBe(0);
    const out = resultLines(r.stdout);
    expect(out.map((l) => l['id']).sort()).toEqual(['a', 'b', 'c']);
    for (const l of out) {
      expect(l).toMatchObject({ status: 'ok', exit_code: 0, error: null });
      expect(String(l['answer'])).toContain('The council recommends');
      expect(l['verdict']).toMatchObject({ v: 2 });
      const session = await batch.rig.session<{ turns: { role: string; content: string }[] }>(String(l['session']));
      expect(session.turns[0]?.content).toBe(
        { a: 'Design a cache', b: 'Design a queue', c: 'Pick a database' }[String(l['id'])],
      );
    }
    expect(new Set(out.map((l) => l['batch'])).size).toBe(1);
  });
  it('CSV with a header and a --template: each row fills it (quoted commas and quotes kept)', async () => {
    const rows = await batch.file('r.csv', 'id,topic\nx,"caches, with ""quotes"""\ny,queues\n');
    const template = await batch.file('t.md', 'Explain {{topic}} briefly\n');
    const r = await batch.rig.run(['batch', rows, '--template', template]);
    expect(r.code, r.stderr).toBe(0);
    const out = resultLines(r.stdout);
    const prompts = await Promise.all(
      out.map(
        async (l) =>
          (await batch.rig.session<{ turns: { content: string }[] }>(String(l['session']))).turns[0]?.content,
      ),
    );
    expect(prompts.sort()).toEqual(['Explain caches, with "quotes" briefly', 'Explain queues briefly']);
  });
  it('a plain file: one prompt per line, ids from the line number; stdin with -', async () => {
    const r = await batch.rig.run(['batch', '-'], { stdin: 'first question\n\nsecond question\n' });
    expect(r.code, r.stderr).toBe(0);
    expect(
      resultLines(r.stdout)
        .map((l) => l['id'])
        .sort(),
    ).toEqual(['line-1', 'line-3']);
  });
  it('a duplicate id, or a template variable an item lacks, is exit 2 naming it, with nothing sent', async () => {
    const before = deliberations(batch.rig);
    const dup = await batch.file(
      'd.jsonl',
      '{"id":"a","prompt":"x"}\n{"id":"b","prompt":"y"}\n{"id":"a","prompt":"z"}\n',
    );
    const r = await batch.rig.run(['batch', dup]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("line 3: id 'a' is also on line 1");
    const template = await batch.file('t2.md', 'Compare {{left}} and {{right}}\n');
    const missing = await batch.file('m.jsonl', '{"id":"ok","left":"a","right":"b"}\n{"id":"short","left":"a"}\n');
    const t = await batch.rig.run(['batch', missing, '--template', template]);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain("item 'short' (line 2): the template uses {{right}}");
    expect(r.stdout + t.stdout).toBe('');
    expect(deliberations(batch.rig)).toBe(before);
  });
});

describe('concurrency and failures (reliability #141, #142)', () => {
  it('-j 2 runs at most two deliberations at once (the simulator counts them)', async () => {
    const held = await makeRig({ hold: true });
    try {
      const items = await batch.file('five.txt', 'one q\ntwo q\nthree q\nfour q\nfive q\n');
      const run = held.start(['batch', items, '-j', '2']);
      const first = await held.sim.control.nextJob();
      const second = await held.sim.control.nextJob();
      expect(held.sim.control.stats().running).toBe(2);
      held.sim.control.release(first);
      held.sim.control.release(second);
      for (let i = 0; i < 3; i++) held.sim.control.release(await held.sim.control.nextJob());
      const r = await run.result;
      expect(r.code, r.stderr).toBe(0);
      expect(resultLines(r.stdout)).toHaveLength(5);
      expect(held.sim.control.stats()).toMatchObject({ peak: 2, started: 5 });
    } finally {
      await held.close();
    }
  });
  it('one failing item among many: the others finish, its line says why, the exit code is its own', async () => {
    const items = await batch.file(
      'f.jsonl',
      '{"id":"a","prompt":"q a"}\n{"id":"bad","prompt":"q b","files":["' +
        join(batch.dir, 'missing.txt') +
        '"]}\n{"id":"c","prompt":"q c"}\n{"id":"d","prompt":"q d"}\n',
    );
    const r = await batch.rig.run(['batch', items, '-j', '2']);
    const out = resultLines(r.stdout);
    expect(out).toHaveLength(4);
    const bad = out.find((l) => l['id'] === 'bad');
    expect(bad).toMatchObject({ status: 'error', exit_code: 3, session: null });
    expect(String((bad?.['error'] as { message: string }).message)).toContain('missing.txt');
    expect(out.filter((l) => l['status'] === 'ok')).toHaveLength(3);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/batch batch-[0-9a-f]+: 4\/4 items in [\d.]+s: 1 error, 3 ok; cost \$[\d.]+\n$/);
  });
  it('a deliberation that fails on the orchestrator is `failed`, beside ok ones', async () => {
    const faulty = await makeRig({ faults: ['fail-at-round=1;times=1'] });
    try {
      const items = await batch.file('g.txt', 'q one\nq two\nq three\n');
      const r = await faulty.run(['batch', items, '-j', '1']);
      const out = resultLines(r.stdout);
      expect(out.map((l) => l['status'])).toEqual(['failed', 'ok', 'ok']);
      expect(r.code).toBe(out[0]?.['exit_code']);
      expect(r.code).not.toBe(0);
    } finally {
      await faulty.close();
    }
  });
});

describe('results as they end (reliability #143)', () => {
  it('--out holds a finished line while another item is still running', async () => {
    const held = await makeRig({ hold: true });
    try {
      const items = await batch.file('two.jsonl', '{"id":"fast","prompt":"q f"}\n{"id":"slow","prompt":"q s"}\n');
      const out = join(batch.dir, 'results.jsonl');
      const run = held.start(['batch', items, '-j', '2', '--out', out]);
      const a = await held.sim.control.nextJob();
      const b = await held.sim.control.nextJob();
      held.sim.control.release(a);
      await until(async () => (await readFile(out, 'utf8').catch(() => '')).endsWith('\n'));
      const early = resultLines(await readFile(out, 'utf8'));
      expect(early).toHaveLength(1);
      expect(early[0]).toMatchObject({ status: 'ok' });
      expect(held.sim.control.job(b)?.ended).not.toBe(true);
      held.sim.control.release(b);
      const r = await run.result;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(resultLines(await readFile(out, 'utf8'))).toHaveLength(2);
      // A fresh batch never appends to a results file that holds lines: they would mix.
      const again = await held.run(['batch', items, '--out', out]);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('already holds results');
    } finally {
      await held.close();
    }
  });
});

describe('exit codes, pass rate, shards, progress (reliability #144, #145)', () => {
  it('gate failures give 12; --min-pass-rate turns the mix into a threshold', async () => {
    const items = await batch.file(
      'gates.jsonl',
      '{"id":"pass","prompt":"q p","gates":{"min-convergence":0}}\n{"id":"fail","prompt":"q f","gates":{"min-convergence":0.999}}\n',
    );
    const r = await batch.rig.run(['batch', items]);
    expect(r.code).toBe(12);
    const by = Object.fromEntries(resultLines(r.stdout).map((l) => [l['id'], l]));
    expect(by['pass']).toMatchObject({ status: 'ok' });
    expect(by['fail']).toMatchObject({ status: 'gate_failed', exit_code: 12, gate: { status: 'fail' } });
    expect((await batch.rig.run(['batch', items, '--min-pass-rate', '50%'])).code).toBe(0);
    expect((await batch.rig.run(['batch', items, '--min-pass-rate', '0.51'])).code).toBe(12);
  });
  it('--shard I/N: the shards together run every item once', async () => {
    const items = await batch.file('six.txt', 'a q\nb q\nc q\nd q\ne q\nf q\n');
    const ids: string[] = [];
    for (const shard of ['1/2', '2/2']) {
      const r = await batch.rig.run(['batch', items, '--shard', shard]);
      expect(r.code, r.stderr).toBe(0);
      ids.push(...resultLines(r.stdout).map((l) => String(l['id'])));
    }
    expect(ids.sort()).toEqual(['line-1', 'line-2', 'line-3', 'line-4', 'line-5', 'line-6']);
  });
  it('off a terminal: a plain line per finished item on stderr, then the summary', async () => {
    const items = await batch.file('p.txt', 'q one\nq two\n');
    const r = await batch.rig.run(['batch', items, '-j', '1']);
    expect(r.stderr).toMatch(
      /^\[1\/2\] line-1 ok [\d.]+s\n\[2\/2\] line-2 ok [\d.]+s\nbatch batch-[0-9a-f]+: 2\/2 items in [\d.]+s: 2 ok; cost \$[\d.]+\n$/,
    );
  });
});

describe('a signal mid-batch (reliability #146)', () => {
  it('starts no new item, writes no line for the one it interrupted, and exits 130', async () => {
    const held = await makeRig({ hold: true });
    try {
      const items = await batch.file('three.txt', 'q one\nq two\nq three\n');
      const r = await interruptedAfterFirst(held, items);
      expect(resultLines(r.stdout).map((l) => l['id'])).toEqual(['line-1']);
      expect(held.sim.control.stats().started).toBe(2);
      expect(r.stderr).toContain('(2 not run)');
    } finally {
      await held.close();
    }
  });
});
