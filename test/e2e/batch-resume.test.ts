// `nsed batch --resume`, `--retry-errors`, the batch id on sessions and the shared back-off,
// against the simulator over real HTTP (docs/reliability.md #147-#152).
import { execFileSync } from 'node:child_process';
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/run/context.js';
import { instantClock } from '../harness/cli.js';
import { makeRig, type Rig } from '../harness/rig.js';
import { deliberations, type ResultLine, resultLines, useBatchRig } from '../harness/batch-rig.js';

const batch = useBatchRig('batch-resume');

type Line = ResultLine;
const parse = resultLines;
const chatPosts = (r: Rig): number =>
  r.sim.requests.filter((q) => q.method === 'POST' && q.path.startsWith('/v1/chat/completions')).length;
const lastById = (lines: Line[]): Map<string, Line> => new Map(lines.map((l) => [String(l['id']), l]));

describe('--resume with the same --out (reliability #147)', () => {
  it('skips finished items, runs an edited one again, ignores a cut last line and appends after it', async () => {
    const out = join(batch.dir, 'r1.jsonl');
    const v1 = await batch.file(
      'v1.jsonl',
      '{"id":"a","prompt":"Design a cache"}\n{"id":"b","prompt":"Design a queue"}\n',
    );
    const first = await batch.rig.run(['batch', v1, '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    const before = parse(await readFile(out, 'utf8'));
    expect(before).toHaveLength(2);
    const batchId = before[0]?.['batch'];
    // A crash in the middle of a write: the line is cut, with no newline after it.
    await appendFile(out, '{"id":"c","status":"o');
    // b is edited (its request hash changes), c is new, a is as it was.
    const v2 = await batch.file(
      'v2.jsonl',
      '{"id":"a","prompt":"Design a cache"}\n{"id":"b","prompt":"Design a fair queue"}\n{"id":"c","prompt":"Pick a database"}\n',
    );
    const posts = chatPosts(batch.rig);
    const again = await batch.rig.run(['batch', v2, '--out', out, '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`resuming ${String(batchId)}: 1 done, 0 to follow, 2 to run`);
    expect(chatPosts(batch.rig) - posts).toBe(2);
    const text = await readFile(out, 'utf8');
    // The cut line is left as it was, and the new lines start on a line of their own.
    expect(text).toContain('{"id":"c","status":"o\n{');
    const after = parse(text);
    expect(after.slice(0, 2)).toEqual(before);
    expect(after.map((l) => String(l['id'])).sort()).toEqual(['a', 'b', 'b', 'c']);
    // The last line for an id wins: b's is for the edited request.
    const last = lastById(after);
    expect(last.get('b')?.['request_hash']).not.toBe(before[1]?.['request_hash']);
    expect(new Set(after.map((l) => l['batch']))).toEqual(new Set([batchId]));
    // Nothing left to do: a third run sends nothing.
    const third = await batch.rig.run(['batch', v2, '--out', out, '--resume']);
    expect(third.code, third.stderr).toBe(0);
    expect(chatPosts(batch.rig) - posts).toBe(2);
    expect(parse(await readFile(out, 'utf8'))).toHaveLength(4);
  });
  it('--resume without --out, and --retry-errors without --resume, are exit 2 with nothing sent', async () => {
    const items = await batch.file('u.txt', 'q one\n');
    const posts = chatPosts(batch.rig);
    const a = await batch.rig.run(['batch', items, '--resume']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--resume needs the --out FILE');
    const b = await batch.rig.run(['batch', items, '--out', join(batch.dir, 'u.jsonl'), '--retry-errors']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--retry-errors goes with --resume');
    expect(chatPosts(batch.rig)).toBe(posts);
  });
  it('refuses to append to a file that holds no result lines (exit 2, the file untouched)', async () => {
    const items = await batch.file('w.txt', 'q one\n');
    const notOurs = await batch.file('notes.jsonl', 'just some notes\nand more\n');
    const r = await batch.rig.run(['batch', items, '--out', notOurs, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds no result lines');
    expect(await readFile(notOurs, 'utf8')).toBe('just some notes\nand more\n');
  });
});

describe('reattaching through the sessions (reliability #148)', () => {
  it('an answer recorded but never written as a line is read again from /result, not sent again', async () => {
    const out = join(batch.dir, 'lost.jsonl');
    const items = await batch.file('lost-items.jsonl', '{"id":"x","prompt":"q x"}\n{"id":"y","prompt":"q y"}\n');
    expect((await batch.rig.run(['batch', items, '-j', '1', '--out', out])).code).toBe(0);
    const [kept, lost] = (await readFile(out, 'utf8')).split('\n');
    // The run died after y's session recorded its answer and before its line reached the file.
    await writeFile(out, `${kept}\n`);
    const posts = chatPosts(batch.rig);
    const r = await batch.rig.run(['batch', items, '-j', '1', '--out', out, '--resume']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('1 done, 1 to follow, 0 to run');
    expect(chatPosts(batch.rig)).toBe(posts);
    const again = parse(await readFile(out, 'utf8'));
    expect(again.map((l) => l['id'])).toEqual(['x', 'y']);
    const before = JSON.parse(lost ?? '{}') as Line;
    expect(again[1]).toMatchObject({ status: 'ok', session: before['session'], job_id: before['job_id'] });
    expect(again[1]?.['answer']).toBe(before['answer']);
  });
  it('a batch stopped before its first line: the sessions name the batch, and its running item is followed', async () => {
    const held = await makeRig({ hold: true });
    try {
      const out = join(batch.dir, 'early.jsonl');
      const items = await batch.file('early-items.txt', 'q one\nq two\n');
      const run = held.start(['batch', items, '-j', '2', '--out', out]);
      const a = await held.sim.control.nextJob();
      const b = await held.sim.control.nextJob();
      run.interrupt();
      expect((await run.result).code).toBe(130);
      expect(await readFile(out, 'utf8').catch(() => '')).toBe('');
      const listed = JSON.parse((await held.run(['sessions', 'ls', '--json'])).stdout) as Array<{ batch: string }>;
      const batchId = listed[0]?.batch;
      expect(typeof batchId).toBe('string');
      const again = held.start(['batch', items, '-j', '2', '--out', out, '--resume']);
      held.sim.control.release(a);
      held.sim.control.release(b);
      const r = await again.result;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`resuming ${String(batchId)}: 0 done, 2 to follow, 0 to run`);
      expect(chatPosts(held)).toBe(2);
      const lines = parse(await readFile(out, 'utf8'));
      expect(lines.map((l) => l['id']).sort()).toEqual(['line-1', 'line-2']);
      expect(lines.every((l) => l['batch'] === batchId && l['status'] === 'ok')).toBe(true);
    } finally {
      await held.close();
    }
  });
});

describe('--retry-errors (reliability #149)', () => {
  it('runs again only the items whose last line is error or failed, never a gate failure or an ok one', async () => {
    const faulty = await makeRig({ faults: ['fail-at-round=1;times=1'] });
    try {
      const missing = join(batch.dir, 'later.txt');
      const items = await batch.file(
        'mix.jsonl',
        [
          '{"id":"f","prompt":"q f"}',
          '{"id":"g","prompt":"q g","gates":{"min-convergence":0.999}}',
          `{"id":"e","prompt":"q e","files":["${missing}"]}`,
          '{"id":"k","prompt":"q k"}',
        ].join('\n') + '\n',
      );
      const out = join(batch.dir, 'mix-results.jsonl');
      const first = await faulty.run(['batch', items, '-j', '1', '--out', out]);
      expect(first.code).toBe(3);
      const status = (lines: Line[]): Record<string, unknown> =>
        Object.fromEntries([...lastById(lines)].map(([id, l]) => [id, l['status']]));
      expect(status(parse(await readFile(out, 'utf8')))).toEqual({
        f: 'failed',
        g: 'gate_failed',
        e: 'error',
        k: 'ok',
      });
      await writeFile(missing, 'now it exists\n');
      // Without --retry-errors, every item has its line: nothing runs.
      const posts = chatPosts(faulty);
      const plain = await faulty.run(['batch', items, '-j', '1', '--out', out, '--resume']);
      expect(plain.code).toBe(3);
      expect(chatPosts(faulty)).toBe(posts);
      const junit = join(batch.dir, 'mix-junit.xml');
      const summary = join(batch.dir, 'mix-summary.md');
      const retry = await faulty.run([
        'batch',
        items,
        '-j',
        '1',
        '--out',
        out,
        '--resume',
        '--retry-errors',
        '--junit',
        junit,
        '--summary',
        summary,
      ]);
      expect(chatPosts(faulty) - posts).toBe(2);
      // The summary line and the reports are the whole batch's: the two items run now and the two
      // whose earlier lines stand, the gate failure among them (docs/reliability.md #158).
      const total = retry.stderr.match(
        /: 2\/2 items in [\d.]+s: 2 ok; 2 finished earlier: 1 gate_failed, 1 ok; cost \$([\d.]+) this run, \$([\d.]+) with the earlier items\n/,
      );
      expect(total, retry.stderr).not.toBeNull();
      // Each figure is what the results file's lines say: this run's two items, then all four.
      const costs = lastById(parse(await readFile(out, 'utf8')));
      const sum = (ids: string[]): number =>
        ids.reduce((n, id) => n + ((costs.get(id)?.['usage'] as { cost_usd?: number } | null)?.cost_usd ?? 0), 0);
      expect(Number(total?.[1])).toBeCloseTo(sum(['f', 'e']), 4);
      expect(Number(total?.[2])).toBeCloseTo(sum(['f', 'g', 'e', 'k']), 4);
      expect(Number(total?.[2])).toBeGreaterThan(Number(total?.[1]));
      const xml = await readFile(junit, 'utf8');
      expect([...xml.matchAll(/<testcase [^>]*name="([^"]+)"/g)].map((m) => m[1])).toEqual(['f', 'g', 'e', 'k']);
      expect(xml).toMatch(/tests="4" failures="1" errors="0"/);
      expect(xml).toMatch(/name="g"[^>]*>\s*<failure [^>]*type="gate_failed"/);
      const md = await readFile(summary, 'utf8');
      expect(md).toMatch(/\| `g` \| ✗ gate_failed \|/);
      expect(md).toMatch(/\| `k` \| ✓ ok \|/);
      const lines = parse(await readFile(out, 'utf8'));
      expect(status(lines)).toEqual({ f: 'ok', g: 'gate_failed', e: 'ok', k: 'ok' });
      expect(lines.filter((l) => l['id'] === 'g')).toHaveLength(1);
      expect(lines.filter((l) => l['id'] === 'k')).toHaveLength(1);
      // The gate failure that stands is the batch's worst status now.
      expect(retry.code, retry.stderr).toBe(12);
    } finally {
      await faulty.close();
    }
  });
});

describe('the batch id on its sessions (reliability #151)', () => {
  it('each item session records {id, item, request_hash, out}; sessions ls --batch lists exactly them', async () => {
    const out = join(batch.dir, 'ids.jsonl');
    const items = await batch.file('ids.jsonl-items.jsonl', '{"id":"p","prompt":"q p"}\n{"id":"q","prompt":"q q"}\n');
    const r = await batch.rig.run(['batch', items, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const lines = parse(await readFile(out, 'utf8'));
    const batchId = String(lines[0]?.['batch']);
    for (const l of lines) {
      const s = await batch.rig.session<{ batch: unknown }>(String(l['session']));
      expect(s.batch).toEqual({ id: batchId, item: l['id'], request_hash: l['request_hash'], out });
    }
    // Another session outside the batch, which the filter leaves out.
    expect((await batch.rig.run(['ask', 'not in a batch', '-p', 'fast'])).code).toBe(0);
    const ls = await batch.rig.run(['sessions', 'ls', '--batch', batchId, '-o', 'json']);
    expect(ls.code, ls.stderr).toBe(0);
    const listed = JSON.parse(ls.stdout) as Array<{ id: string; batch: string | null }>;
    expect(listed.map((s) => s.id).sort()).toEqual(lines.map((l) => String(l['session'])).sort());
    expect(listed.every((s) => s.batch === batchId)).toBe(true);
    const all = JSON.parse((await batch.rig.run(['sessions', 'ls', '--json'])).stdout) as Array<{
      batch: string | null;
    }>;
    expect(all.some((s) => s.batch === null)).toBe(true);
    // sessions show says which batch and item a session ran as, in its header and its document.
    const first = String(lines[0]?.['session']);
    const shown = await batch.rig.run(['sessions', 'show', first]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split('\n')).toContain(`batch ${batchId} · item ${String(lines[0]?.['id'])}`);
    const doc = JSON.parse((await batch.rig.run(['sessions', 'show', first, '--json'])).stdout) as {
      batch: unknown;
      idempotency: unknown;
    };
    expect(doc.batch).toEqual({ id: batchId, item: lines[0]?.['id'], request_hash: lines[0]?.['request_hash'], out });
    expect(doc.idempotency).toBeNull();
  });
});

/**
 * A clock whose sleeps wait until the test lets them end, so a test sees who waits and for how
 * long. Its time stands still until then (wake moves it on by the longest wait): with the real
 * time, a Retry-After of 7 s could run out on a loaded machine before the next item asks the
 * back-off, which then had nothing left to wait for.
 */
/** Above the other pauses nsed takes (the connect back-off: 200, 400 ms), far below the Retry-After the back-off test sets (7 s). */
const SHORT_PAUSE_MS = 1_000;

function gateClock(): Clock & { sleeps: number[]; waiting(n: number): Promise<void>; wake(): void } {
  const sleeps: number[] = [];
  let pending: Array<() => void> = [];
  let watchers: Array<() => void> = [];
  let at = Date.now();
  let longest = 0;
  return {
    sleeps,
    now: () => new Date(at),
    sleep: (ms, signal) =>
      // Only the Retry-After waits are held for the test to wake: a short pause of anything else
      // (a connect retry on a loaded machine) passes at once, as instantClock's do, rather than
      // being counted as a back-off and left asleep.
      ms < SHORT_PAUSE_MS
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            sleeps.push(ms);
            longest = Math.max(longest, ms);
            pending.push(resolve);
            signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
            for (const w of watchers) w();
          }),
    waiting: (n) =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (pending.length >= n) {
            watchers = watchers.filter((w) => w !== check);
            resolve();
          }
        };
        watchers.push(check);
        check();
      }),
    wake: () => {
      at += longest;
      longest = 0;
      const all = pending;
      pending = [];
      for (const r of all) r();
    },
  };
}

describe('a shared back-off (reliability #150)', () => {
  it('one 429 with Retry-After holds every item of the batch: no start until the wait has passed', async () => {
    const held = await makeRig({ hold: true, faults: ['status=429;retry-after=7;times=1'] });
    try {
      const clock = gateClock();
      const items = await batch.file('bo.txt', 'q one\nq two\nq three\n');
      const run = held.start(['batch', items, '-j', '2'], { clock });
      const firstJob = held.sim.control.nextJob();
      // Two starts at once: one is turned away (429, Retry-After 7) and waits. The other either
      // left before the refusal came back (its deliberation is held) or met the back-off first and
      // waits behind it too: which, is the machine's timing; both are the one shared back-off.
      await clock.waiting(1);
      const startedBefore = await Promise.race([firstJob.then(() => true), clock.waiting(2).then(() => false)]);
      if (startedBefore) {
        expect(chatPosts(held)).toBe(2);
        // That item ends; the third starts, and waits behind the other item's back-off.
        held.sim.control.release(await firstJob);
        await clock.waiting(2);
      }
      // Nothing more is sent while the back-off holds.
      expect(chatPosts(held)).toBe(startedBefore ? 2 : 1);
      for (const ms of clock.sleeps) {
        expect(ms).toBeGreaterThan(5_000);
        expect(ms).toBeLessThanOrEqual(7_000);
      }
      clock.wake();
      // The wait has passed: the refused item is sent again, and every item left starts.
      const left = startedBefore ? 2 : 3;
      for (let i = 0; i < left; i++)
        held.sim.control.release(i === 0 && !startedBefore ? await firstJob : await held.sim.control.nextJob());
      const r = await run.result;
      expect(r.code, r.stderr).toBe(0);
      expect(parse(r.stdout).map((l) => l['status'])).toEqual(['ok', 'ok', 'ok']);
      expect(chatPosts(held)).toBe(4);
      expect(clock.sleeps).toHaveLength(2);
    } finally {
      await held.close();
    }
  });
  it('a server that always answers 429 ends each item as error after its four sends', async () => {
    const busy = await makeRig({ faults: ['status=429;retry-after=1'] });
    try {
      const clock = instantClock();
      const items = await batch.file('busy.txt', 'q one\nq two\n');
      const r = await busy.run(['batch', items, '-j', '2'], { clock });
      const lines = parse(r.stdout);
      expect(lines.map((l) => l['status'])).toEqual(['error', 'error']);
      expect(lines.every((l) => l['exit_code'] === 5)).toBe(true);
      expect(chatPosts(busy)).toBe(8);
      expect(r.code).toBe(5);
    } finally {
      await busy.close();
    }
  });
});

describe('items on stdin (reliability #152)', () => {
  it('an open stdin that never ends is bounded by --timeout: exit 124, nothing sent', async () => {
    const posts = chatPosts(batch.rig);
    const r = await batch.rig.run(['batch', '-', '--timeout', '1'], { openStdin: true, clock: instantClock() });
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('--timeout');
    expect(chatPosts(batch.rig)).toBe(posts);
  });
});

describe('one batch per results file (reliability #156)', () => {
  it('a second batch on the --out of a running one is refused (exit 7) and sends nothing; the first goes on', async () => {
    const held = await makeRig({ hold: true });
    try {
      const items = await batch.file('locked.jsonl', '{"id":"a","prompt":"Design a cache"}\n');
      const out = join(batch.dir, 'locked-results.jsonl');
      const first = held.start(['batch', items, '--out', out]);
      const job = await held.sim.control.nextJob();
      const starts = deliberations(held);
      for (const args of [
        ['batch', items, '--out', out, '--resume'],
        ['batch', items, '--out', out],
      ]) {
        const second = await held.run(args);
        expect(second.code, second.stderr).toBe(7);
        expect(second.stderr).toContain('is being written by another nsed batch');
        expect(second.stderr.trim().split('\n')[0]).toMatch(/^nsed: /);
      }
      expect(deliberations(held)).toBe(starts);
      held.sim.control.release(job);
      const r = await first.result;
      expect(r.code, r.stderr).toBe(0);
      expect(resultLines(await readFile(out, 'utf8')).map((l) => l['id'])).toEqual(['a']);
      // Once the first has ended, the file is free again.
      const after = await held.run(['batch', items, '--out', out, '--resume']);
      expect(after.code, after.stderr).toBe(0);
      expect(deliberations(held)).toBe(starts);
      expect((await readdir(batch.dir)).filter((f) => f.includes('.lock'))).toEqual([]);
    } finally {
      await held.close();
    }
  });
});

describe('a FIFO or a device as --out (reliability #157)', () => {
  it('a folder that does not exist is exit 11 naming the file, before anything is sent', async () => {
    const items = await batch.file('nofolder.jsonl', '{"id":"a","prompt":"Design a cache"}\n');
    const out = join(batch.dir, 'no-such-folder', 'results.jsonl');
    const starts = deliberations(batch.rig);
    const r = await batch.rig.run(['batch', items, '--out', out]);
    expect(r.code, r.stderr).toBe(11);
    expect(r.stderr).toContain(`cannot write --out ${out}: ENOENT`);
    expect(deliberations(batch.rig)).toBe(starts);
  });
  it('/dev/null takes the lines (a device refuses the fsync, and has nothing to keep)', async () => {
    const items = await batch.file('devnull.jsonl', '{"id":"a","prompt":"Design a cache"}\n');
    const r = await batch.rig.run(['batch', items, '--out', '/dev/null']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('1/1 items');
  });
  it('is refused with exit 2 before anything is sent, instead of waiting for a reader', async () => {
    const items = await batch.file('fifo.jsonl', '{"id":"a","prompt":"Design a cache"}\n');
    const fifo = join(batch.dir, 'results.fifo');
    execFileSync('mkfifo', [fifo]);
    const starts = deliberations(batch.rig);
    const r = await batch.rig.run(['batch', items, '--out', fifo]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('is a FIFO');
    expect(deliberations(batch.rig)).toBe(starts);
  });
});
