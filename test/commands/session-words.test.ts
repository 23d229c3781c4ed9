// The words every command reads the same way: `--`, `-s ID`
// and `--last` on sessions show, export and rm and on fork; a repeated single-valued flag ends
// with its last value. Against the simulator and a real temp store.
import { beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

const rig = useRig({ roundMs: 0 });
let first = '';
let second = '';

async function ask(...args: string[]): Promise<string> {
  const r = await rig.run(['ask', '-q', '-o', 'json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return String((JSON.parse(r.stdout) as { session: string }).session);
}

beforeAll(async () => {
  first = await ask('-p', 'fast', 'first question');
  second = await ask('-p', 'fast', 'second question');
});

async function shownId(args: string[]): Promise<string> {
  const r = await rig.run(['sessions', 'show', '--json', ...args]);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return String((JSON.parse(r.stdout) as { id: string }).id);
}

describe('sessions show, export and rm name a session as every command does', () => {
  it('show takes an id, -s ID, --last and an id after --', async () => {
    expect(await shownId([first])).toBe(first);
    expect(await shownId(['-s', first])).toBe(first);
    expect(await shownId(['--session', first])).toBe(first);
    expect(await shownId(['--last'])).toBe(second);
    expect(await shownId(['--', first])).toBe(first);
  });

  it('export takes -s ID and an id after --', async () => {
    for (const args of [
      ['-s', first],
      ['--', first],
    ]) {
      const r = await rig.run(['sessions', 'export', '--format', 'json', ...args]);
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { id: string }).id).toBe(first);
    }
  });

  it('refuses two sessions at once with a usage error', async () => {
    const r = await rig.run(['sessions', 'show', first, '-s', second]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nsed: name one session/);
  });

  it('fork takes its source after --', async () => {
    const r = await rig.run(['fork', '--', first]);
    expect(r.code, r.stderr).toBe(0);
    const forked = r.stdout.trim();
    const doc = await rig.run(['sessions', 'show', forked, '--json']);
    expect((JSON.parse(doc.stdout) as { forked_from: { session: string } }).forked_from.session).toBe(first);
    const removed = await rig.run(['sessions', 'rm', '--last']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toContain(`removed ${forked}`);
  });

  it('rm takes -s ID and ids after --', async () => {
    const a = await ask('-p', 'fast', 'to delete');
    const b = await ask('-p', 'fast', 'to delete too');
    const r = await rig.run(['sessions', 'rm', '-s', a, '--', b]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`removed ${a}`);
    expect(r.stderr).toContain(`removed ${b}`);
    expect((await rig.run(['sessions', 'show', a])).code).toBe(3);
  });
});

describe('a repeated single-valued flag: the last one wins (as gh, git and curl)', () => {
  it('ask -o final "x" -o json prints json', async () => {
    const r = await rig.run(['ask', '-q', '-o', 'final', 'x', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(() => JSON.parse(r.stdout) as unknown).not.toThrow();
  });

  it('-p fast -p deep runs nsed:deep', async () => {
    const id = await ask('-p', 'fast', '-p', 'deep', 'which policy?');
    const doc = await rig.run(['sessions', 'show', id, '--json']);
    expect((JSON.parse(doc.stdout) as { policy: string }).policy).toBe('nsed:deep');
  });

  it('sessions ls -o json -o ndjson prints ndjson', async () => {
    const r = await rig.run(['sessions', 'ls', '-o', 'json', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});
