// --progress plain|none|auto through the whole CLI, on a pipe (stderr not a terminal): what a CI
// log shows while a council deliberates (README "CI").
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_MODES } from '../../src/output/modes.js';
import { makeRig, parseNdjson, useRig } from '../harness/rig.js';

const rig = useRig();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-progress-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const JOB_LINE = /^session [\w-]+ · job [\w-]+ · policy \S+$/;
const ROUND_LINE =
  /^round (\d+)\/(\d+) · \d+ candidates? · convergence \d+% · leader \w+ \d\.\d\d · all candidates: \d+ wrong, \d+ contested$/;

/** The stderr lines of a plain run: one job line, then one line per scored round, in order. */
function expectPlain(stderr: string, rounds: number): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines[0], stderr).toMatch(JOB_LINE);
  const roundLines = lines.filter((l) => l.startsWith('round '));
  expect(roundLines, stderr).toHaveLength(rounds);
  roundLines.forEach((l, i) => {
    expect(l).toMatch(ROUND_LINE);
    expect(ROUND_LINE.exec(l)?.[1]).toBe(String(i + 1));
  });
}

describe('--progress plain on a pipe', () => {
  for (const mode of OUTPUT_MODES) {
    it(`-o ${mode}: the job line and one line per round, convergence included; stdout as the mode has it`, async () => {
      const r = await rig.run(['ask', '-o', mode, '--progress', 'plain', 'Design a cache']);
      expect(r.code).toBe(0);
      const scored = mode === 'ndjson' ? parseNdjson(r.stdout).filter((e) => e['type'] === 'round' && e['scored']) : [];
      expectPlain(r.stderr, mode === 'ndjson' ? scored.length : 3);
      if (mode === 'json') expect(JSON.parse(r.stdout)).toHaveProperty('content');
      if (mode === 'final') expect(r.stdout).not.toMatch(/^round /m);
    });
  }

  it("is what auto gives off a terminal when CI is set; CI=false keeps today's quiet stderr", async () => {
    const ci = await rig.run(['ask', '-o', 'final', 'Design a cache'], { env: { CI: 'true' } });
    expectPlain(ci.stderr, 3);
    const off = await rig.run(['ask', '-o', 'final', 'Design a cache'], { env: { CI: 'false' } });
    expect(off.stderr).toBe('');
    const none = await rig.run(['ask', '-o', 'final', 'Design a cache']);
    expect(none.stderr).toBe('');
  });

  it('comes from NSED_PROGRESS or the config file when no flag is given; the flag wins', async () => {
    const env = await rig.run(['ask', '-o', 'json', 'Design a cache'], { env: { NSED_PROGRESS: 'plain' } });
    expectPlain(env.stderr, 3);
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ progress: 'plain' }));
    const file = await rig.run(['ask', '-o', 'json', 'Design a cache'], { env: { NSED_CONFIG: config } });
    expectPlain(file.stderr, 3);
    const flag = await rig.run(['ask', '-o', 'json', '--progress', 'none', 'Design a cache'], {
      env: { NSED_PROGRESS: 'plain', CI: 'true' },
    });
    expect(flag.stderr).toBe('');
  });

  it('refuses a bad NSED_PROGRESS or config value with one line (exit 2, exit 8)', async () => {
    const bad = await rig.run(['ask', 'hello'], { env: { NSED_PROGRESS: 'loud' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("nsed: NSED_PROGRESS must be one of auto, plain, none, not 'loud'\n");
    const config = join(dir, 'bad-config.json');
    await writeFile(config, JSON.stringify({ progress: 'loud' }));
    const file = await rig.run(['ask', 'hello'], { env: { NSED_CONFIG: config } });
    expect(file.code).toBe(8);
    // The same line as the environment's, naming the key and the file.
    expect(file.stderr).toMatch(/^nsed: the config file .*: progress must be one of auto, plain, none, not 'loud'\n/);
  });

  it('--progress none: nothing on stderr, also in text mode; -q silences plain', async () => {
    for (const args of [
      ['-o', 'text', '--progress', 'none'],
      ['-o', 'ndjson', '-q', '--progress', 'plain'],
    ]) {
      const r = await rig.run(['ask', ...args, 'Design a cache'], { env: { CI: 'true' } });
      expect(r.code).toBe(0);
      expect(r.stderr, args.join(' ')).toBe('');
    }
  });

  it('a failed deliberation shows its rounds, then the error line (docs/reliability.md: one error line)', async () => {
    const failing = await makeRig({ faults: ['fail-at-round=2'] });
    try {
      const r = await failing.run(['ask', '-o', 'json', '--progress', 'plain', 'Design a cache']);
      expect(r.code).toBe(5);
      expectPlain(r.stderr.replace(/^nsed: .*\n(hint: .*\n)?$/m, ''), 1);
      expect(r.stderr).toMatch(/^nsed: .*quorum lost/m);
    } finally {
      await failing.close();
    }
  });

  it('a real process with stderr on a pipe prints the plain lines too', async () => {
    const r = await rig.runProcess(['ask', '-o', 'final', 'Design a cache'], { env: { CI: 'true' } });
    expect(r.code).toBe(0);
    expectPlain(r.stderr, 3);
    expect(r.stdout).not.toMatch(/^round \d+\/\d+ · /m);
  });
});
