import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, useRig } from '../harness/rig.js';

/**
 * Every wait is bounded. A terminal that reports 0 columns, a proxy that never
 * answers CONNECT, a server that never sends headers (docs/reliability.md #28, #50, #52, #70).
 */

const rig = useRig();
let blackHole: Server;
let blackHolePort: number;
const held = new Set<Socket>();

beforeAll(async () => {
  // Reads whatever arrives (a CONNECT, a request) and never answers.
  blackHole = createServer((s) => {
    held.add(s);
    s.on('data', () => undefined);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', () => resolve()));
  blackHolePort = (blackHole.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((resolve) => blackHole.close(() => resolve()));
});

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

describe('bounded waits', () => {
  it.skipIf(!hasScript)(
    'a pseudo-terminal that reports 0 columns gets no spinner flood, and the command ends (reliability #70)',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'nsed-pty-'));
      try {
        const typescript = join(dir, 'out.ts');
        // `script` without a real terminal gives the child a pty of 0 columns, as CI runners do.
        const child = spawn('script', ['-q', '-e', '-c', `'${process.execPath}' '${CLI}' ask -p fast hi`, typescript], {
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: process.env['HOME'] ?? '',
            ...rig.env,
            SHELL: '/bin/sh',
            TERM: 'xterm',
          },
          stdio: ['ignore', 'ignore', 'ignore'],
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
        clearTimeout(timer);
        expect(code).toBe(0);
        expect((await stat(typescript)).size).toBeLessThan(64 * 1024);
        const text = await readFile(typescript, 'utf8');
        expect(text).not.toContain('\u001b[1A');
        expect(text).toMatch(/session \S+/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    90_000,
  );

  it('a proxy that never answers CONNECT is bounded by --timeout: exit 124, no session created (reliability #50, #52)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'nsed-bh-'));
    try {
      const r = await rig.runProcess(
        ['ask', '--url', 'https://orchestrator.example.com', '--timeout', '2', '-p', 'fast', 'hi'],
        {
          env: { NSED_URL: undefined, NSED_HOME: home, HTTPS_PROXY: `http://127.0.0.1:${blackHolePort}` },
          timeoutMs: 60_000,
        },
      );
      expect(r.signal).toBeNull();
      expect(r.code).toBe(124);
      expect(r.stderr).toMatch(/^nsed: .*--timeout/m);
      const sessions = await readdir(join(home, 'sessions')).catch(() => []);
      expect(sessions.filter((n) => n.endsWith('.json'))).toEqual([]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 90_000);

  it('a server that never sends response headers is bounded by --idle-timeout: exit 124 naming it (reliability #52)', async () => {
    const r = await rig.runProcess(['ask', '--idle-timeout', '1', '-p', 'fast', 'hi'], {
      env: { NSED_URL: `http://127.0.0.1:${blackHolePort}` },
      timeoutMs: 60_000,
    });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(
      /^nsed: the orchestrator sent no response to POST \/v1\/chat\/completions within 1 s \(--idle-timeout\)$/m,
    );
  }, 90_000);
});
