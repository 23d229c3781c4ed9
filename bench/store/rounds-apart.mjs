// What keeping the rounds apart saves (docs/history.md): bytes `sessions show` reads from the
// store, and the peak RSS of `continue`, on a 1,000-turn session, for two builds of nsed: BEFORE
// (a checkout from before the change, its own version 1 file) and AFTER (this one: the same file
// migrated by its first continue, then measured as version 2). The answers are copies of the
// answers of test/session/fixtures/v1-session.json, a simulator run's. Needs strace and GNU time.
//
//   node bench/store/rounds-apart.mjs --before /work/main --after . --url http://127.0.0.1:PORT
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string' },
    url: { type: 'string' },
    turns: { type: 'string' },
  },
});
const TURNS = Number(values.turns ?? 1000);
const here = path.dirname(new URL(import.meta.url).pathname);
const fixture = JSON.parse(readFileSync(path.join(here, '../../test/session/fixtures/v1-session.json'), 'utf8'));

/** A version 1 session of TURNS turns: questions, and answers copied from the fixture's. */
function longSession() {
  const answers = fixture.turns.filter((t) => t.role === 'assistant');
  const turns = [];
  for (let k = 0; k < TURNS; k++) {
    const id = `t${k.toString(16).padStart(12, '0')}`;
    if (k % 2 === 0) turns.push({ ...fixture.turns[0], id, content: `question ${k}` });
    else turns.push({ ...JSON.parse(JSON.stringify(answers[k % answers.length])), id, job_id: `job-${k}` });
  }
  return { ...fixture, id: '20261206-00001000', orchestrator: values.url, turns, council: undefined };
}

function store(session) {
  const home = mkdtempSync(path.join(tmpdir(), 'nsed-rounds-bench-'));
  mkdirSync(path.join(home, 'sessions'), { mode: 0o700 });
  writeFileSync(path.join(home, 'sessions', `${session.id}.json`), `${JSON.stringify(session)}\n`, { mode: 0o600 });
  return home;
}

/** Bytes the command read from files under `<home>/sessions`, by strace's read() results. */
function bytesRead(bin, home, args) {
  const log = path.join(home, 'strace.log');
  const r = spawnSync('strace', ['-f', '-y', '-e', 'trace=read,pread64', '-o', log, 'node', bin, ...args], {
    env: { ...process.env, NSED_HOME: home, NSED_URL: values.url, NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  let bytes = 0;
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    const m = /^\d+\s+p?read(?:64)?\(\d+<([^>]*)>.*\)\s+=\s+(\d+)$/.exec(line);
    if (m !== null && m[1].includes(`${home}/sessions/`)) bytes += Number(m[2]);
  }
  return bytes;
}

/** Peak RSS (MiB) of the command, by GNU time. */
function peakRss(bin, home, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'node', bin, ...args], {
    env: { ...process.env, NSED_HOME: home, NSED_URL: values.url, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  const kib = Number(r.stderr.trim().split('\n').at(-1));
  return Math.round(kib / 102.4) / 10;
}

const session = longSession();
const file = (home) => path.join(home, 'sessions', `${session.id}.json`);
const mib = (n) => `${(n / 1048576).toFixed(2)} MiB`;
const rows = [];
for (const [label, root] of [
  ['before', values.before],
  ['after', values.after],
]) {
  const bin = path.join(path.resolve(root), 'bin', 'nsed.cjs');
  const home = store(session);
  const size = statSync(file(home)).size;
  let migrate = null;
  if (label === 'after') migrate = peakRss(bin, home, ['continue', '-s', session.id, 'first write: migrates']);
  const transcript = statSync(file(home)).size;
  const show = bytesRead(bin, home, ['sessions', 'show', session.id]);
  const showRounds = bytesRead(bin, home, ['sessions', 'show', session.id, '--rounds']);
  const cont = peakRss(bin, home, ['continue', '-s', session.id, 'And the trade-offs?']);
  rows.push({ label, size, transcript, show, showRounds, migrate, cont });
  rmSync(home, { recursive: true, force: true });
}
console.log(`${TURNS}-turn session, file as an older nsed wrote it: ${mib(rows[0].size)}`);
for (const r of rows) {
  console.log(
    `${r.label}: transcript file ${mib(r.transcript)}; sessions show read ${mib(r.show)}, show --rounds ${mib(r.showRounds)}; ` +
      `continue peak RSS ${r.cont} MiB${r.migrate === null ? '' : ` (the migrating first continue: ${r.migrate} MiB)`}`,
  );
}
