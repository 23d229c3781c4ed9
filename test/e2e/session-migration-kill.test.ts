// An old-format session (version 1: every answer's rounds and ballots in the transcript,
// fixtures/v1-session.json as a simulator run wrote it) is continued by the real CLI, which writes
// it in the new form (docs/history.md): each answer's rounds into a file beside it, then the
// transcript that names them. kill -9 at every write boundary of that run, one trial each
// (docs/reliability.md #300/#301): the test hook NSED_TEST_KILL_AT_WRITE=N makes the process
// SIGKILL itself just before its Nth write (src/files/kill-hook.ts), so no clock is involved.
// Whatever the instant, the store stays readable, no marker names a file that is not there, and
// every round and ballot the old file held is still read back.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import type { Session, Turn } from '../../src/session/model.js';
import { makeRig, type Rig } from '../harness/rig.js';

const FIXTURE = join(import.meta.dirname, '..', 'session', 'fixtures', 'v1-session.json');
// The run makes ~40 write boundaries (the migration's, then the claim, the job marker, the
// answer); past the last one it ends normally, which ends the trials.
const MAX_BOUNDARY = 120;

let rig: Rig;
let dir: string;
let old: Session;
beforeAll(async () => {
  rig = await makeRig();
  dir = await mkdtemp(join(tmpdir(), 'nsed-migration-kill-'));
  old = { ...(JSON.parse(await readFile(FIXTURE, 'utf8')) as Session), orchestrator: rig.sim.url };
});
afterAll(async () => {
  await rig.close();
  await rm(dir, { recursive: true, force: true });
});

const answers = (s: Session): Turn[] => s.turns.filter((t) => t.role === 'assistant');
const detail = (t: Turn | undefined): unknown => [t?.rounds, t?.verdict?.ballots];

async function oldStore(n: number): Promise<string> {
  const home = await mkdtemp(join(dir, `t${n}-`));
  await mkdir(join(home, 'sessions'), { mode: 0o700 });
  await writeFile(join(home, 'sessions', `${old.id}.json`), `${JSON.stringify(old)}\n`, { mode: 0o600 });
  return home;
}

/** What a killed (or finished) run left: readable, every marker's file there, nothing of the old file lost. */
async function checkLeft(home: string, where: string): Promise<Session> {
  const text = await readFile(join(home, 'sessions', `${old.id}.json`), 'utf8');
  const raw = JSON.parse(text) as Session;
  for (const t of raw.turns) {
    if (t.rounds_apart === undefined) continue;
    const file = join(home, 'sessions', `${old.id}.rounds`, t.rounds_apart.file);
    expect(existsSync(file), `${where}: turn ${t.id} names ${t.rounds_apart.file}, which is not there`).toBe(true);
  }
  const joined = await openFileStore(home).read(old.id, { rounds: true });
  for (const before of answers(old)) {
    const now = joined.turns.find((t) => t.id === before.id);
    expect(detail(now), `${where}: turn ${before.id} lost its rounds or ballots`).toEqual(detail(before));
  }
  const shown = await rig.run(['sessions', 'show', old.id, '--rounds'], { env: { NSED_HOME: home } });
  expect(shown.code, `${where}: ${shown.stderr}`).toBe(0);
  return raw;
}

describe('an old-format session continued', () => {
  it('leaves a readable store at every write of its migration, and the new form once the run ends', async () => {
    let midMigration = 0;
    let finished: { home: string; stdout: string } | undefined;
    for (let n = 1; n <= MAX_BOUNDARY && finished === undefined; n++) {
      const home = await oldStore(n);
      const run = await rig.runProcess(['continue', '-s', old.id, 'And the trade-offs?'], {
        env: { NSED_HOME: home, NSED_TEST_KILL_AT_WRITE: String(n), NODE_EXTRA_CA_CERTS: undefined },
      });
      const where = `killed at write ${n}`;
      if (run.signal !== 'SIGKILL') {
        expect(run.code, `write ${n}: ${run.stderr}`).toBe(0);
        finished = { home, stdout: run.stdout };
        break;
      }
      const left = await checkLeft(home, where);
      const beside = await readdir(join(home, 'sessions', `${old.id}.rounds`)).catch(() => []);
      if (left.version === 1 && beside.some((f) => f.endsWith('.json'))) midMigration++;
    }
    // Killed between the rounds files and the transcript that names them, at least once per file.
    expect(midMigration).toBeGreaterThanOrEqual(answers(old).length);
    expect(finished, `the run never ended within ${MAX_BOUNDARY} writes`).toBeDefined();

    const raw = await checkLeft(finished!.home, 'the finished run');
    expect(raw.version).toBe(2);
    expect(answers(raw)).toHaveLength(answers(old).length + 1);
    for (const t of answers(raw)) {
      expect(t.rounds).toBeUndefined();
      expect(t.rounds_apart?.rounds).toBeGreaterThan(0);
    }
    expect(answers(raw).at(-1)?.content.trim()).toBe(finished!.stdout.trim());
  }, 600_000);
});
