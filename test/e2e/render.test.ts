import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { makeToolKit, type ToolKit } from './fixtures/tools.js';
import { startPlainServer } from '../everyday/plain-server.js';
import { parseNdjson, type CliResult, type CliRun, type Rig, useRig } from '../harness/rig.js';

/**
 * `nsed render`: every scenario runs once with -o text and once with -o ndjson
 * against the same deterministic simulator, and the rendered NDJSON must equal the text run's
 * stdout byte for byte, and its stderr (--stderr) line for line once the ids each run drew
 * (session, job, call) are set aside. The hint line nsed prints after an error is not an event,
 * so it is not in the stream either.
 */

const rig = useRig({ toolWaitMs: 10 * 60_000 });
const held = useRig({ hold: true });
let kit: ToolKit;
let dir: string;
beforeAll(async () => {
  kit = await makeToolKit();
  dir = await mkdtemp(join(tmpdir(), 'nsed-render-'));
});
afterAll(async () => {
  await rm(kit.dir, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
});

/** The ids a run drew for itself, which two runs of one scenario never share. */
const normalize = (stderr: string): string =>
  stderr
    .replace(/\b\d{8}-[0-9a-f]{8}_[0-9a-f]{16}\b/g, 'JOB')
    .replace(/\b\d{8}-[0-9a-f]{8}\b/g, 'SESSION')
    .replace(/\boc-[A-Za-z0-9_-]+/g, 'JOB')
    .replace(/\bcall_[0-9a-f]+/g, 'CALL')
    .replace(/\b\d+ ms\b/g, 'N ms')
    .split('\n')
    .filter((l) => !l.startsWith('hint: '))
    .join('\n');

let saved = 0;
/** Renders the stream from a file (stdout) and from standard input (with --stderr). */
async function renderBoth(r: Rig, ndjson: string): Promise<{ file: CliResult; piped: CliResult }> {
  const file = join(dir, `run-${++saved}.ndjson`);
  await writeFile(file, ndjson);
  const fromFile = await r.run(['render', file]);
  const piped = await r.run(['render', '--stderr', '-'], { stdin: ndjson });
  return { file: fromFile, piped };
}

/** Runs a scenario in text and in ndjson, renders the NDJSON, and holds both to the text run. */
async function holdsToText(r: Rig, run: (mode: string[]) => Promise<CliResult>, code = 0): Promise<CliResult> {
  const text = await run([]);
  const ndjson = await run(['-o', 'ndjson']);
  expect(text.code, text.stderr).toBe(code);
  expect(ndjson.code, ndjson.stderr).toBe(code);
  const { file, piped } = await renderBoth(r, ndjson.stdout);
  expect(file.code, file.stderr).toBe(0);
  expect(file.stdout).toBe(text.stdout);
  expect(file.stderr).toBe('');
  expect(piped.code, piped.stderr).toBe(0);
  expect(piped.stdout).toBe(text.stdout);
  expect(normalize(piped.stderr)).toBe(normalize(text.stderr));
  return text;
}

describe('render equals the live text output', () => {
  it.each([
    ['a one-round policy', ['-p', 'fast']],
    ['a five-round policy', ['-p', 'deep']],
    ['a council chosen with --agents (the native path)', ['--agents', 'CortexA,CortexB', '--rounds', '2']],
    ['a blocking --no-stream turn', ['-p', 'fast', '--no-stream']],
  ])('ask with %s', async (_name, args) => {
    const text = await holdsToText(rig, (mode) => rig.run(['ask', ...args, ...mode, 'Design a cache']));
    expect(text.stdout).toMatch(/^## Design a cache/);
  });

  it('a turn whose tool calls nsed ran (compat and native), their lines and results included', async () => {
    const tools = await kit.toolsFile(['calculator']);
    for (const path of [
      ['-p', 'fast'],
      ['--agents', 'CortexA,CortexB', '--rounds', '2'],
    ]) {
      const text = await holdsToText(rig, (mode) =>
        rig.run(['ask', ...path, '--tools', tools, ...mode, 'Use the calculator to compute 2+2']),
      );
      expect(text.stderr).toMatch(/tool result calculator · exit 0/);
    }
  });

  it('a turn that stops at a tool call nobody can run (exit 10)', async () => {
    const offer = await kit.offerOnlyFile();
    await holdsToText(
      rig,
      (mode) => rig.run(['ask', '-p', 'fast', '--tools', offer, ...mode, 'Use the calculator to compute 2+2']),
      ExitCode.toolPending,
    );
  });

  it('a continued session, whose answer builds on the first', async () => {
    const first = await rig.run(['ask', '-p', 'fast', '-o', 'ndjson', 'Design a cache']);
    const id = String(parseNdjson(first.stdout)[0]?.['session']);
    const again = await rig.run(['fork', id]);
    const branch = again.stdout.trim();
    let turn = 0;
    await holdsToText(rig, (mode) =>
      rig.run(['continue', '-s', turn++ === 0 ? id : branch, '-p', 'fast', ...mode, 'And for writes?']),
    );
  });

  it('a stream that dropped and was resumed shows its reconnect line (reliability #1)', async () => {
    try {
      const text = await holdsToText(rig, (mode) => {
        rig.sim.setFaults(['chat:drop-after=12;times=1']);
        return rig.run(['ask', '-p', 'fast', ...mode, 'Test the reconnect path']);
      });
      expect(text.stderr).toMatch(/^reconnecting \(attempt 1\)/m);
    } finally {
      rig.sim.setFaults([]);
    }
  });

  it('a failed deliberation: the answer so far and the error line (exit 5)', async () => {
    try {
      const text = await holdsToText(
        rig,
        (mode) => {
          rig.sim.setFaults(['chat:fail-at-round=1;times=1']);
          return rig.run(['ask', '-p', 'deep', ...mode, 'Plan the migration']);
        },
        ExitCode.server,
      );
      expect(text.stderr).toMatch(/^nsed: .*deliberation failed/m);
    } finally {
      rig.sim.setFaults([]);
    }
  });

  it('a plain OpenAI-compatible server (-m), with no job line: the session line', async () => {
    const plain = await startPlainServer('Plain answer.');
    try {
      const text = await holdsToText(rig, (mode) =>
        rig.run(['ask', '--url', plain.url, '-m', 'llama3.2', ...mode, 'hi']),
      );
      expect(text.stderr).toMatch(/^session \S+ · policy llama3\.2$/m);
    } finally {
      await plain.close();
    }
  });

  /** Starts a held ask, waits for its job line (the session is claimed and the job known). */
  async function startHeld(args: string[]): Promise<{ run: CliRun; job: string; session: string }> {
    const jobId = held.sim.control.nextJob();
    const run = held.start(['ask', ...args]);
    const job = await jobId;
    await run.output((o) => o.includes(job) && /\d{8}-[0-9a-f]{8}/.test(o), 60_000);
    const session = /(\d{8}-[0-9a-f]{8})/.exec(run.stdout.text + run.stderr.text)?.[1] ?? '';
    return { run, job, session };
  }

  it('an injection from a second terminal, shown where it landed', async () => {
    const text = await holdsToText(held, async (mode) => {
      const { run, job, session } = await startHeld(['-p', 'deep', ...mode, 'Plan the migration']);
      const inj = await held.run(['inject', '-s', session, '--no-wait', 'Keep the old API running']);
      expect(inj.code, inj.stderr).toBe(0);
      held.sim.control.release(job);
      return run.result;
    });
    expect(text.stderr).toMatch(/^injected at round \d+ \(#1\): Keep the old API running$/m);
  });

  it('a deliberation cancelled from a second terminal (exit 9)', async () => {
    await holdsToText(
      held,
      async (mode) => {
        const { run, job, session } = await startHeld(['-p', 'deep', ...mode, 'Rewrite billing']);
        held.sim.control.release(job, 2);
        await held.sim.control.phases(job, 2);
        const c = await held.run(['cancel', '-s', session]);
        expect(c.code, c.stderr).toBe(0);
        return run.result;
      },
      ExitCode.cancelled,
    );
  });
});

describe('render refuses what it cannot read, and skips what it does not know', () => {
  const start = {
    v: 1,
    seq: 1,
    type: 'turn-start',
    session: 's',
    turn: 't',
    policy: 'nsed:fast',
    path: 'compat',
    url: 'u',
  };
  const text = { v: 1, seq: 2, type: 'text', text: 'Hello.' };
  const finish = {
    v: 1,
    seq: 3,
    type: 'finish',
    finish_reason: 'stop',
    content: 'Hello.',
    session: 's',
    turn: 't',
    job_id: null,
  };
  const lines = (...objects: unknown[]): string =>
    objects.map((o) => (typeof o === 'string' ? o : JSON.stringify(o))).join('\n') + '\n';

  it('refuses a stream of a newer schema version with exit 2, naming the line', async () => {
    const r = await rig.run(['render', '-'], { stdin: lines(start, { ...text, v: 2 }, finish) });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'nsed: standard input: line 2: schema version 2 is newer than this nsed reads (1)',
    );
    expect(r.stderr.split('\n')[1]).toBe('hint: a newer nsed wrote it: upgrade nsed to render it');
  });

  it('a line that is not JSON is exit 2 naming its number; so is an event missing a field', async () => {
    const file = join(dir, 'broken.ndjson');
    await writeFile(file, lines(start, '{"v":1,"type":"text","text":', finish));
    const r = await rig.run(['render', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`nsed: ${file}: line 2: not JSON`);
    const missing = await rig.run(['render', '-'], { stdin: lines(start, { v: 1, type: 'round', round: 1 }) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^nsed: standard input: line 2: round event: field "total_rounds" is missing or not a number$/m,
    );
    expect((await rig.run(['render', '-'], { stdin: lines([1, 2]) })).stderr).toMatch(/line 1: not a JSON object/);
  });

  it('skips event types it does not know and blank lines, and renders the rest', async () => {
    const r = await rig.run(['render', '--stderr', '-'], {
      stdin: lines(start, { v: 1, seq: 2, type: 'verdict-v9', anything: true }, '', text, finish),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Hello.\n');
    expect(r.stderr).toBe('session s · policy nsed:fast\n');
  });

  it('a missing file is exit 3 (not found), as for every file a flag names; an empty stream renders nothing', async () => {
    const r = await rig.run(['render', join(dir, 'no-such.ndjson')]);
    expect(r.code).toBe(3);
    expect(r.stderr.split('\n')[0]).toMatch(/^nsed: nsed render .*no-such\.ndjson: no such file$/);
    const empty = await rig.run(['render'], { stdin: '' });
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('renders each turn of a sessions export as its own run', async () => {
    const first = await rig.run(['ask', '-p', 'fast', '-o', 'final', 'Design a cache']);
    const id = (await rig.run(['sessions', 'ls', '--ids', '-n', '1'])).stdout.trim();
    const second = await rig.run(['continue', '-s', id, '-p', 'fast', '-o', 'final', 'And for writes?']);
    const exported = await rig.run(['sessions', 'export', id, '--format', 'ndjson']);
    const r = await rig.run(['render', '-'], { stdin: exported.stdout });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(first.stdout + second.stdout);
  });
});
