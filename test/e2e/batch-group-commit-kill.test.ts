// kill -9 of a batch at a random write boundary, 200 times (docs/reliability.md #260): the
// batch's store commits the writes of items that end together as a group (shared fsyncs), and
// whatever instant the process dies at, no session file is half-written, no result line names a
// turn its session does not hold, and `--resume` finishes every item without starting any
// deliberation twice. The kill point is the test hook NSED_TEST_KILL_AT_WRITE=N (the process
// SIGKILLs itself just before its Nth write boundary, src/files/kill-hook.ts), N drawn by a
// seeded generator: no clock, no sleep. Four trials run at once, each with its own store. The
// killed run has two places for its four items, so two wait for theirs with their sessions claimed
// already (docs/reliability.md #273): a kill finds them claimed and unsent, and `--resume` sends
// each once.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRig, type Rig } from '../harness/rig.js';

const TRIALS = Number(process.env.KILL_TRIALS ?? 200);
const AT_ONCE = 4;
const ITEMS = ['a', 'b', 'c', 'd'];
// A batch of four items makes ~22 write boundaries per item (three session writes, its answer's
// rounds file, the directory fsyncs and a result line: 90 in all); past the last one the run ends
// normally, which is a trial too.
const MAX_BOUNDARY = 94;

let rig: Rig;
let dir: string;
beforeAll(async () => {
  rig = await makeRig();
  dir = await mkdtemp(join(tmpdir(), 'nsed-group-kill-'));
});
afterAll(async () => {
  await rig.close();
  await rm(dir, { recursive: true, force: true });
});

/** mulberry32: the same kill points on every run of the test. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Line {
  id: string;
  session: string;
  job_id: string;
  status: string;
  answer: string;
}
interface SessionFile {
  turns: Array<{ role: string; content: string; job_id?: string }>;
}

/** The text up to and with its last newline: the lines some run finished writing. */
const whole = (text: string): string => text.slice(0, text.lastIndexOf('\n') + 1);
const linesOf = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);

const prompt = (trial: number, id: string): string => `trial ${trial} item ${id}`;

/** The deliberations the simulator was asked to start for this trial's items. */
const startsOf = (trial: number): number =>
  rig.sim.requests.filter(
    (q) =>
      q.method === 'POST' &&
      q.path.startsWith('/v1/chat/completions') &&
      JSON.stringify(q.body).includes(`"trial ${trial} item `),
  ).length;

let kills = 0;

async function trial(n: number, killAt: number): Promise<void> {
  const home = await mkdtemp(join(dir, `t${n}-`));
  const items = join(home, 'items.jsonl');
  await writeFile(items, ITEMS.map((id) => JSON.stringify({ id, prompt: prompt(n, id) })).join('\n'));
  const out = join(home, 'results.jsonl');
  const env = { NSED_HOME: home };
  const killed = await rig.runProcess(['batch', items, '-j', '2', '--out', out], {
    // The certificates cost every Node start ~60 ms here and this run makes no TLS connection.
    env: { ...env, NSED_TEST_KILL_AT_WRITE: String(killAt), NODE_EXTRA_CA_CERTS: undefined },
  });
  if (killed.signal === 'SIGKILL') kills++;
  const where = `trial ${n}, killed at write ${killAt}`;
  expect(killed.signal === 'SIGKILL' || killed.code === 0, `${where}: ${killed.stderr}`).toBe(true);

  // What the killed run left: every session file whole, every result line's turn recorded in it.
  const sessions = join(home, 'sessions');
  const names = (await readdir(sessions).catch(() => [])).filter((f) => f.endsWith('.json'));
  const files = new Map<string, SessionFile>();
  for (const name of names) {
    const text = await readFile(join(sessions, name), 'utf8');
    expect(() => JSON.parse(text) as unknown, `${where}: ${name} is not whole`).not.toThrow();
    files.set(name.slice(0, -5), JSON.parse(text) as SessionFile);
  }
  // A kill can cut the line being appended: the append runs on a thread-pool thread, and the
  // kernel may end that write short when the process dies. The cut line stays, and `--resume`
  // starts its first line on a fresh one (docs/reliability.md #147).
  const left = await readFile(out, 'utf8').catch(() => '');
  const cut = whole(left) !== left;
  for (const line of linesOf(whole(left))) {
    const recorded = files.get(line.session)?.turns.find((t) => t.role === 'assistant' && t.job_id === line.job_id);
    expect(recorded?.content, `${where}: the line of ${line.id} names a turn its session does not hold`).toBe(
      line.answer,
    );
  }

  const resumed = await rig.run(['batch', items, '-j', '4', '--out', out, '--resume'], { env });
  expect(resumed.code, `${where}: ${resumed.stderr}`).toBe(0);
  const after = await readFile(out, 'utf8');
  // The killed run's lines as they were, its cut line (if any) ended by the resumed run's first
  // newline, then whole lines.
  const kept = cut ? `${left}\n` : left;
  expect(after.startsWith(kept), `${where}: the killed run's lines were changed`).toBe(true);
  const added = after.slice(kept.length);
  expect(whole(added), where).toBe(added);
  const lines = [...linesOf(whole(left)), ...linesOf(added)];
  expect(lines.map((l) => l.id).sort(), where).toEqual(ITEMS);
  expect(
    lines.every((l) => l.status === 'ok'),
    where,
  ).toBe(true);
  expect(startsOf(n), `${where}: a deliberation was started twice`).toBe(ITEMS.length);
  await rm(home, { recursive: true, force: true });
}

describe('kill -9 of a group-committing batch at any write (reliability #260)', () => {
  it(`loses no recorded turn and --resume finishes every item once, over ${TRIALS} seeded kill points`, async () => {
    const next = seeded(260);
    const points = Array.from({ length: TRIALS }, () => 1 + Math.floor(next() * MAX_BOUNDARY));
    let i = 0;
    const worker = async (): Promise<void> => {
      while (i < points.length) {
        const n = i++;
        await trial(n, points[n] ?? 1);
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
    // The hook did kill: most points fall within a run's writes (a few past its end, run whole).
    expect(kills).toBeGreaterThan(TRIALS * 0.75);
  }, 600_000);
});

describe('what a batch leaves in the store (reliability #272)', () => {
  it('a batch that ends leaves only its session files and their rounds: no lock directory, no temp file', async () => {
    const home = await mkdtemp(join(dir, 'whole-'));
    const items = join(home, 'items.txt');
    await writeFile(items, 'one\ntwo\nthree\nfour\nfive\nsix\n');
    const run = await rig.runProcess(['batch', items, '-j', '3'], { env: { NSED_HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    const names = await readdir(join(home, 'sessions'));
    // Each session's file, and the directory of its answer's rounds beside it (docs/history.md).
    expect(names.filter((n) => !/^\d{8}-[0-9a-f]{8}\.(?:json|rounds)$/.test(n))).toEqual([]);
    expect(names.filter((n) => n.endsWith('.json'))).toHaveLength(6);
    for (const rounds of names.filter((n) => n.endsWith('.rounds')))
      expect(await readdir(join(home, 'sessions', rounds))).toEqual([
        expect.stringMatching(/^t[0-9a-f]+\.[0-9a-f]{16}\.json$/),
      ]);
  });
});
