import { describe, expect, it } from 'vitest';
import { type CliResult, useRig } from '../harness/rig.js';

/** Input rules. Bad input gets one clear line and a documented exit code. */

const rig = useRig();

function lastUserMessage(): unknown {
  const chat = rig.sim.requests.filter((r) => r.path === '/v1/chat/completions').at(-1);
  const messages = (chat?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'user').at(-1)?.content;
}

/** One `nsed: …` line, at most one `hint: …` line, nothing on stdout, no stack. */
function expectUsage(r: CliResult, message: RegExp): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines[0]).toMatch(message);
  expect(lines.slice(1).every((l) => l.startsWith('hint: '))).toBe(true);
  expect(lines.length).toBeLessThanOrEqual(2);
}

describe('input rules', () => {
  it('sends the words after -- as the prompt, flags and all', async () => {
    const r = await rig.run(['ask', '-o', 'final', '-p', 'fast', '--', '-x', 'is', 'a', 'flag?']);
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe('-x is a flag?');
    const mixed = await rig.run(['ask', '-o', 'final', '-p', 'fast', 'is', '--', '--rounds', 'a flag?']);
    expect(mixed.code).toBe(0);
    expect(lastUserMessage()).toBe('is --rounds a flag?');
  });

  it.each([
    [['ask', '--timeout', 'abc', 'q'], /^nsed: --timeout must be a positive number of seconds$/],
    [['ask', '--idle-timeout', 'abc', 'q'], /^nsed: --idle-timeout must be a positive number of seconds$/],
    [['ask', '--rounds', 'abc', 'q'], /^nsed: --rounds must be a whole number/],
  ])('%j exits 2 like any other bad number', async (args, message) => {
    const before = rig.sim.requests.length;
    expectUsage(await rig.run(args), message);
    expect(rig.sim.requests.length).toBe(before);
  });

  it('nsed sim on a port that is busy or out of range: one line, exit 2', async () => {
    expectUsage(
      await rig.run(['sim', '--port', String(rig.sim.port)]),
      /^nsed: cannot listen on 127\.0\.0\.1:\d+: the address is already in use$/,
    );
    expectUsage(await rig.run(['sim', '--port', '99999']), /^nsed: --port must be a whole number from 0 to 65535$/);
  });

  it('the simulator answers an oversized body with 413, so the client exits 2 (reliability #48)', async () => {
    const r = await rig.run(['ask', '-p', 'fast', '-'], {
      stdin: 'x'.repeat(9 * 1024 * 1024),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nsed: .*413/m);
    expect(rig.sim.requests.at(-1)?.path).toBe('/v1/chat/completions');
  });
});
