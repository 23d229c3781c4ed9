// In-process runs of `nsed sessions ...` through the real CLI frame with a pinned clock and
// streams dressed as a terminal, which a spawned process cannot have.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativeTime } from '../../src/output/session-time.js';
import { openFileStore } from '../../src/session/file-store.js';
import { SESSION_VERSION, type Session, type Turn } from '../../src/session/model.js';
import { instantClock, runCliInProcess, type CliResult } from '../harness/cli.js';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const HOSTILE = 'Fine.\x1b]52;c;cm0gLXJmIH4=\x07 Done\x1b[2J\u202e.';
const actsOnTerminal = (text: string): boolean => ['\x1b', '\x07', '\u202e'].some((c) => text.includes(c));

let home: string;

function turn(id: string, over: Partial<Turn>): Turn {
  return {
    id,
    role: 'user',
    kind: 'message',
    content: `content of ${id}`,
    status: 'complete',
    ts: ago(60_000),
    ...over,
  };
}

function session(id: string, updated: string, over: Partial<Session> = {}): Session {
  return {
    version: SESSION_VERSION,
    id,
    title: `title of ${id}`,
    created: updated,
    updated,
    active_policy: 'nsed:deep',
    orchestrator: 'http://127.0.0.1:8080',
    conversation_id: 'thread-0123456789abcdef0123456789abcdef',
    turns: [
      turn('t1', {}),
      turn('t2', { role: 'assistant', content: HOSTILE, job_id: 'job-1', policy_id: 'nsed:deep' }),
    ],
    ...over,
  };
}

function run(args: string[], tty: boolean, columns?: number): Promise<CliResult> {
  return runCliInProcess([...args, '--home', home], {
    tty,
    ...(columns === undefined ? {} : { columns }),
    clock: instantClock(() => NOW),
    randomHex: (n) => '0'.repeat(n * 2),
  });
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'nsed-render-'));
  const store = openFileStore(home, { now: () => NOW });
  await store.create(
    session('s-recent', ago(3 * 60_000), {
      title: 'A title\twith a tab and a very long tail that goes on and on past the column',
    }),
  );
  await store.create(session('s-hours', ago(2 * 3_600_000)));
  await store.create(session('s-days', ago(3 * 86_400_000), { active_policy: 'nsed:fast' }));
  await store.create(session('s-old', ago(60 * 86_400_000)));
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('sessions ls on a terminal', () => {
  it('prints an aligned table with times relative to the context clock', async () => {
    // Wide enough for every column and a whole 48-character title.
    const r = await run(['sessions', 'ls'], true, 160);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +TITLE +POLICY +TURNS +UPDATED +STATE$/);
    expect(lines.slice(1).map((l) => l.split(/ {2,}/).at(-2))).toEqual([
      '3 min ago',
      '2 h ago',
      '3 days ago',
      ago(60 * 86_400_000).slice(0, 10),
    ]);
    const stateColumn = lines[0]?.indexOf('STATE');
    for (const l of lines.slice(1)) expect(l.indexOf(' ok')).toBe((stateColumn ?? 0) - 1);
    expect(lines[1]).toContain('A title with a tab and a very long tail that go…');
  });

  it('says so on stderr when nothing matches, and prints nothing on stdout', async () => {
    const r = await run(['sessions', 'ls', '--state', 'running'], true);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('no session matches\n');
  });
});

describe('sessions show and export on a terminal', () => {
  it('removes escape sequences and BiDi controls from recorded text on a terminal (reliability #78)', async () => {
    const r = await run(['sessions', 'show', 's-hours'], true);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Fine. Done.');
    expect(actsOnTerminal(r.stdout)).toBe(false);
    expect(r.stdout).toContain('updated 2 h ago');
  });

  it('writes the recorded text as it is when piped, with ISO times', async () => {
    const r = await run(['sessions', 'show', 's-hours'], false);
    expect(r.stdout).toContain(HOSTILE);
    expect(r.stdout).toContain(`updated ${ago(2 * 3_600_000)}`);
  });

  it('sanitises a markdown export on a terminal, and escapes controls in JSON formats everywhere', async () => {
    const md = await run(['sessions', 'export', 's-hours', '--format', 'markdown'], true);
    expect(actsOnTerminal(md.stdout)).toBe(false);
    const json = await run(['sessions', 'export', 's-hours', '--format', 'json'], false);
    expect(actsOnTerminal(json.stdout)).toBe(false);
    expect((JSON.parse(json.stdout) as { turns: Array<{ content: string }> }).turns[1]?.content).toBe(HOSTILE);
  });
});

describe('relative times', () => {
  it('reads naturally from seconds to a month, then gives the date', () => {
    expect(relativeTime(ago(10_000), NOW)).toBe('just now');
    expect(relativeTime(ago(90_000), NOW)).toBe('2 min ago');
    expect(relativeTime(ago(59 * 60_000), NOW)).toBe('59 min ago');
    expect(relativeTime(ago(5 * 3_600_000), NOW)).toBe('5 h ago');
    expect(relativeTime(ago(30 * 3_600_000), NOW)).toBe('yesterday');
    expect(relativeTime(ago(20 * 86_400_000), NOW)).toBe('20 days ago');
    expect(relativeTime('2025-01-02T03:04:05.000Z', NOW)).toBe('2025-01-02');
    expect(relativeTime(new Date(NOW.getTime() + 3_600_000).toISOString(), NOW)).toBe('2026-03-10');
  });
});
