import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

const rig = useRig({ token: 'sekrit-token-123' });
let fresh: string;
beforeAll(async () => {
  fresh = await mkdtemp(join(tmpdir(), 'nsed-nosave-'));
});
afterAll(async () => {
  await rm(fresh, { recursive: true, force: true });
});

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
const TOKEN = { NSED_TOKEN: 'sekrit-token-123' };

describe('--no-save', () => {
  it('ask --no-save runs and prints the turn and creates nothing under the store root', async () => {
    const home = join(fresh, 'never');
    const r = await rig.run(['ask', '--no-save', '-o', 'json', 'Design a cache'], {
      env: { ...TOKEN, NSED_HOME: home },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { content: string }).content).toContain('Design a cache');
    expect(await exists(home)).toBe(false);
  });

  it('continue --no-save runs on a saved session and leaves its file byte for byte as it was', async () => {
    const first = await rig.run(['ask', '-o', 'json', 'first'], { env: TOKEN });
    const id = (JSON.parse(first.stdout) as { session: string }).session;
    const file = join(rig.home, 'sessions', `${id}.json`);
    const before = await readFile(file, 'utf8');
    const listing = await readdir(rig.home);
    const r = await rig.run(['continue', '-s', id, '--no-save', '-o', 'final', 'second'], { env: TOKEN });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('second');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readdir(rig.home)).toEqual(listing);
    const forked = await rig.run(['fork', id, '--no-save', '-o', 'final', 'third'], { env: TOKEN });
    expect(forked.code).toBe(0);
    expect((await readdir(join(rig.home, 'sessions'))).filter((n) => n.endsWith('.json'))).toHaveLength(1);
  });
});

describe('--quiet and --verbose', () => {
  it('--verbose says which URL and where it came from, each request and the store, never the token', async () => {
    const r = await rig.run(['ask', '--verbose', '-o', 'final', 'hello'], { env: TOKEN });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`url ${rig.sim.url} (from NSED_URL)`);
    expect(r.stderr).toMatch(/^POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions$/m);
    expect(r.stderr).toContain(`store ${rig.home}`);
    expect(r.stderr).not.toContain('sekrit-token-123');
  });

  it('--quiet silences notes: sessions ls on an empty store, ask', async () => {
    const empty = await rig.run(['sessions', 'ls', '-q'], { env: { NSED_HOME: join(fresh, 'empty') } });
    expect(empty.code).toBe(0);
    expect(empty.stderr).toBe('');
    const ask = await rig.run(['ask', '-q', 'hello'], { env: TOKEN });
    expect(ask.code).toBe(0);
    expect(ask.stderr).toBe('');
  });

  it('--quiet and --verbose together are a usage error (exit 2)', async () => {
    const r = await rig.run(['ask', '-q', '--verbose', 'hello'], { env: TOKEN });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^nsed: .*(quiet|verbose)/);
  });
});
