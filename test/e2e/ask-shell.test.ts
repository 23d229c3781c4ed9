import { spawn } from 'node:child_process';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, makeRig, useRig } from '../harness/rig.js';

const rig = useRig();

function bash(
  script: string,
  env: Record<string, string>,
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env: { PATH: process.env['PATH'] ?? '', ...env }, cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('nsed ask in a shell pipeline', () => {
  it('a stdout pipe closed early (| head -1) ends quietly, exit 0, with the session saved (reliability #69)', async () => {
    const home = join(rig.home, 'pipe');
    const r = await bash(
      `"${process.execPath}" "${CLI}" ask -p deep "Design a cache" | head -1; echo "status=\${PIPESTATUS[0]}" >&2`,
      {
        NSED_HOME: home,
        NSED_URL: rig.sim.url,
      },
    );
    expect(r.stdout).toBe('## Design a cache\n');
    expect(r.stderr).toContain('status=0');
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    const [file] = (await readdir(join(home, 'sessions'))).filter((n) => n.endsWith('.json'));
    const saved = JSON.parse(await readFile(join(home, 'sessions', String(file)), 'utf8')) as {
      turns: Array<{ status: string; content: string }>;
    };
    expect(saved.turns.at(-1)?.status).toBe('complete');
    expect(saved.turns.at(-1)?.content.startsWith('## Design a cache\n')).toBe(true);
  });

  it('text mode ends stdout with a newline when the answer has none, on a pipe as on a terminal', async () => {
    const r = await rig.runProcess(['ask', '-p', 'fast', 'a question']);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('%._\n')).toBe(true);
    expect(r.stdout.endsWith('\n\n')).toBe(false);
  });

  it('a full disk behind > (/dev/full) is exit 11 (io) naming ENOSPC, with the session still saved (reliability #62, #65, #85)', async () => {
    const home = join(rig.home, 'full');
    const r = await bash(`"${process.execPath}" "${CLI}" ask -o final "Design a cache" > /dev/full`, {
      NSED_HOME: home,
      NSED_URL: rig.sim.url,
    });
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(/^nsed: cannot write to standard output: ENOSPC$/m);
    expect((await readdir(join(home, 'sessions'))).filter((n) => n.endsWith('.json')).length).toBe(1);
  });

  it('answer=$(nsed ask -o final …) captures only the answer', async () => {
    const r = await bash(
      `answer=$("${process.execPath}" "${CLI}" ask -o final -p fast "Name a queue") && printf '%s' "$answer" | wc -l`,
      {
        NSED_HOME: join(rig.home, 'capture'),
        NSED_URL: rig.sim.url,
      },
    );
    expect(r.code).toBe(0);
    expect(Number(r.stdout.trim())).toBeGreaterThan(0);
  });
});

describe('where the token comes from', () => {
  it('reads the token from --token-file and warns when the file is readable by others (reliability #73)', async () => {
    const locked = await makeRig({ token: 'file-token-123' });
    try {
      const file = join(locked.home, 'token');
      await writeFile(file, 'file-token-123\n');
      await chmod(file, 0o644);
      const r = await locked.run(['ask', '-o', 'final', '--token-file', file, 'q']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/readable by other users/);
      expect(r.stderr).not.toContain('file-token-123');
      await chmod(file, 0o600);
      const quiet = await locked.run(['ask', '-o', 'final', '--token-file', file, 'q']);
      expect(quiet.stderr).toBe('');
    } finally {
      await locked.close();
    }
  });

  it('there is no flag that takes the token itself (reliability #73)', async () => {
    const r = await rig.run(['ask', '--token', 'x', 'q']);
    expect(r.code).toBe(2);
  });

  it('a token over plain http:// to a non-loopback host draws a one-line warning (reliability #80)', async () => {
    const r = await rig.run(['ask', 'q'], {
      env: { NSED_URL: 'http://orchestrator.invalid:9', NSED_TOKEN: 'warn-token-1' },
    });
    expect(r.stderr).toMatch(
      /^warning: sending the bearer token over plain http:\/\/ to orchestrator\.invalid:9; use https:\/\/$/m,
    );
    expect(r.stderr).not.toContain('warn-token-1');
    expect(r.code).toBe(6);
  });

  it('NSED_DEBUG=1 logs each request method and URL on stderr, still without the token', async () => {
    const plain = await rig.run(['ask', '-p', 'nope', 'q'], { env: { NSED_DEBUG: '1' } });
    expect(plain.code).toBe(3);
    expect(plain.stderr).toMatch(/^debug: POST /m);
  });
});

describe('a script gets the session id of its own -o final run (README, "One-shot questions in scripts")', () => {
  it('two runs at once on one store: each --session-id-file names the session of its own answer; stderr stays empty', async () => {
    const home = join(rig.home, 'ids');
    const nsed = `"${process.execPath}" "${CLI}"`;
    // `--last` would name whichever run recorded last; each run's own file cannot.
    const r = await bash(
      [
        `${nsed} ask -p fast -o final --session-id-file a.id "Name one cache eviction policy" > a.md 2> a.err &`,
        `${nsed} ask -p fast -o final --session-id-file b.id "Name one queue for billing events" > b.md 2> b.err &`,
        'wait',
        'cat a.id b.id',
        `cat a.err b.err`,
      ].join('\n'),
      { NSED_HOME: home, NSED_URL: rig.sim.url, HOME: rig.home },
      rig.home,
    );
    const ids = r.stdout.trim().split('\n');
    expect(ids, r.stderr).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    for (const [i, x] of ['a', 'b'].entries()) {
      const answer = await readFile(join(rig.home, `${x}.md`), 'utf8');
      const saved = JSON.parse(await readFile(join(home, 'sessions', `${ids[i]}.json`), 'utf8')) as {
        turns: Array<{ content: string }>;
      };
      expect(saved.turns.at(-1)?.content.trimEnd()).toBe(answer.trimEnd());
    }
    // -o final off a terminal writes nothing to stderr, as gh and llm keep a pipe quiet.
    expect(r.stderr).toBe('');
    const next = await rig.run(['continue', '-s', String(ids[0]), '-o', 'final', 'And one more'], {
      env: { NSED_HOME: home },
    });
    expect(next.code, next.stderr).toBe(0);
  });

  it('--session-id-file beside --no-save is refused before anything is sent: exit 2, one line saying why', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '--no-save', '-o', 'final', '--session-id-file', join(rig.home, 'x.id'), 'q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nsed: --session-id-file names the session, which --no-save does not keep$/m);
    expect(rig.sim.requests.length).toBe(before);
  });
});
