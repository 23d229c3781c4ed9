import { spawn } from 'node:child_process';
import { chmod, readFile, readdir, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, makeRig, parseNdjson, type CliResult, type RunResult, useRig } from '../harness/rig.js';

const rig = useRig();

async function sessionIds(home: string): Promise<string[]> {
  return (await readdir(join(home, 'sessions')))
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.replace(/\.json$/, ''));
}

describe('the session store as nsed ask leaves it', () => {
  it('creates a 0700 directory and 0600 files even under umask 000 (reliability #76, C16)', async () => {
    const home = join(rig.home, 'umask0');
    // A shell sets the umask for the child, so the CLI itself must fix the modes.
    const r = await new Promise<RunResult>((resolve) => {
      const child = spawn('sh', ['-c', `umask 000 && exec "${process.execPath}" "${CLI}" ask -o final q`], {
        env: { PATH: process.env['PATH'] ?? '', NSED_HOME: home, NSED_URL: rig.sim.url },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
    expect(r.code).toBe(0);
    expect((await stat(join(home, 'sessions'))).mode & 0o777).toBe(0o700);
    for (const id of await sessionIds(home)) {
      expect((await stat(join(home, 'sessions', `${id}.json`))).mode & 0o777).toBe(0o600);
    }
  });

  it('leaves a corrupt session file byte-for-byte untouched and exits 8 naming it (reliability #57)', async () => {
    const dir = join(rig.home, 'sessions');
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'broken-session.json');
    const garbage = '{"id": "broken-session", "turns": [ {"role": "us';
    await writeFile(path, garbage, { mode: 0o600 });
    const r = await rig.run(['continue', '-s', 'broken-session', 'more please']);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('broken-session.json');
    expect(await readFile(path, 'utf8')).toBe(garbage);
  });

  it('never writes a canary token to any file, stdout, stderr or NDJSON (reliability #74, #75, C15)', async () => {
    const canary = 'canary-7c1e0b2f9d4a';
    const locked = await makeRig({ token: canary });
    try {
      const env = { NSED_TOKEN: canary, NSED_DEBUG: '1' };
      const outputs: CliResult[] = [];
      for (const mode of ['text', 'ndjson', 'final', 'json'])
        outputs.push(await locked.run(['ask', '-o', mode, 'Design a cache'], { env }));
      outputs.push(await locked.run(['ask', '--agents', 'CortexA,CortexB', 'Design a cache'], { env }));
      outputs.push(await locked.run(['ask', '-p', 'nope', 'q'], { env }));
      for (const r of outputs.slice(0, 5)) expect(r.code).toBe(0);
      for (const r of outputs) expect(r.stdout + r.stderr).not.toContain(canary);
      for (const id of await sessionIds(locked.home)) {
        expect(await readFile(join(locked.home, 'sessions', `${id}.json`), 'utf8')).not.toContain(canary);
      }
      const index = await readFile(join(locked.home, 'index.ndjson'), 'utf8').catch(() => '');
      expect(index).not.toContain(canary);
      expect(locked.sim.requests.length).toBeGreaterThan(0);
    } finally {
      await locked.close();
    }
  });

  it('16 parallel ask processes leave 16 complete, parseable sessions (reliability #72)', async () => {
    const home = join(rig.home, 'parallel');
    const runs = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        rig.runProcess(['ask', '-o', 'ndjson', `question ${i}`], { env: { NSED_HOME: home } }),
      ),
    );
    for (const r of runs) expect(r.code).toBe(0);
    const ids = await sessionIds(home);
    expect(ids.length).toBe(16);
    const fromRuns = runs.map((r) => String(parseNdjson(r.stdout)[0]?.['session'])).sort();
    expect(ids.sort()).toEqual(fromRuns);
    for (const id of ids) {
      const s = JSON.parse(await readFile(join(home, 'sessions', `${id}.json`), 'utf8')) as {
        turns: Array<{ status: string }>;
      };
      expect(s.turns.map((t) => t.status)).toEqual(['complete', 'complete']);
    }
  });
});

describe('where the prompt comes from', () => {
  it('reads the prompt from a piped stdin when no words are given (a process: its real stdin)', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.runProcess(['ask', '-o', 'final'], { stdin: 'piped question\n' });
    expect(r.code).toBe(0);
    const req = rig.sim.requests.slice(before).find((q) => q.path === '/v1/chat/completions');
    expect((req?.body as { messages: unknown[] }).messages).toEqual([{ role: 'user', content: 'piped question' }]);
  });

  it('reads stdin where - stands among the words', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '-o', 'final', 'Review:', '-'], { stdin: 'the diff' });
    expect(r.code).toBe(0);
    const req = rig.sim.requests.slice(before).find((q) => q.path === '/v1/chat/completions');
    expect((req?.body as { messages: unknown[] }).messages).toEqual([{ role: 'user', content: 'Review: the diff' }]);
  });

  it('does not read an open stdin when words are given (reliability #70)', async () => {
    const r = await rig.runProcess(['ask', '-o', 'final', 'words only'], { stdin: 'inherit-open' });
    expect(r.code).toBe(0);
    expect(r.signal).toBeNull();
  });

  it('an empty prompt is a usage error', async () => {
    const r = await rig.run(['ask'], { stdin: '  \n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/empty/);
  });

  it('an empty store directory path that cannot be created exits 8', async () => {
    const file = join(rig.home, 'not-a-dir');
    await writeFile(file, 'x');
    await chmod(file, 0o600);
    const r = await rig.run(['ask', 'q'], { env: { NSED_HOME: file } });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/^nsed: /m);
  });
});
