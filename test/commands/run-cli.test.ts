import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { ProcessContext } from '../../src/run/context.js';
import { EXIT_CODES } from '../../src/docs/topics.js';
import { ExitCode } from '../../src/errors.js';
import { VERSION } from '../../src/version.js';
import { Capture, settle } from '../terminal/memory-io.js';

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture(false);
  const stderr = new Capture(false);
  const base: ProcessContext = {
    env: { NO_COLOR: '1' },
    clock: { now: () => new Date(), sleep: () => Promise.resolve() },
    signal: new AbortController().signal,
    signalExit: () => undefined,
    randomHex: (n) => '0'.repeat(n * 2),
  };
  const code = await runCli(args, base, { stdout, stderr, stdin: new PassThrough() });
  await settle();
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('runCli', () => {
  it('lists every exit code of the table in the help epilog, 1, 9, 10 and 129 included', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    const epilog = r.stdout.replace(/\s+/g, ' ').match(/Exit codes: (.*)\./)?.[1] ?? '';
    const listed = epilog.split(', ').map((entry) => Number(entry.split(' ')[0]));
    expect(listed).toEqual(EXIT_CODES.map((e) => e.code));
    expect(new Set(listed)).toEqual(new Set(Object.values(ExitCode)));
    for (const code of [1, 9, 10, 129]) expect(listed).toContain(code);
  });

  it("shows a command's own options first and the global ones in a group of their own", async () => {
    for (const args of [
      ['ask', '--help'],
      ['sessions', 'ls', '--help'],
      ['config', 'set', '--help'],
      ['doctor', '--help'],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      const globalAt = r.stdout.indexOf('Global options:');
      expect(globalAt, args.join(' ')).toBeGreaterThan(0);
      // Every global flag is listed after the heading, none before it.
      for (const flag of ['--url', '--token-file', '--home', '--output', '--idle-timeout', '--sim']) {
        expect(r.stdout.indexOf(flag), `${args.join(' ')} ${flag}`).toBeGreaterThan(globalAt);
      }
    }
    const ask = (await cli(['ask', '--help'])).stdout;
    expect(ask.indexOf('--policy')).toBeLessThan(ask.indexOf('Global options:'));
    expect(ask.indexOf('Options:')).toBeLessThan(ask.indexOf('Global options:'));
  });

  it('names an unknown flag once, as typed', async () => {
    const r = await cli(['ask', '--bogus-flag', 'q']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('nsed: Unknown argument: bogus-flag');
    expect(r.stderr).not.toContain('bogusFlag');
  });

  it('prints the version with --version and -V, though bin/nsed.cjs usually answers first', async () => {
    for (const flag of ['--version', '-V'])
      expect(await cli([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('reports a parse-step usage error as one line, exit 2, before opening anything', async () => {
    const r = await cli(['resume', '--home', '/nonexistent/nsed-never-created']);
    expect(r).toMatchObject({ code: ExitCode.usage, stdout: '' });
    expect(r.stderr).toBe("nsed: name a session with -s ID or --last\nhint: list sessions with 'nsed sessions ls'\n");
  });

  it('ends an NDJSON run that failed in its parse step with one error event', async () => {
    const r = await cli(['ask', '-o', 'ndjson', '--rounds', '0', 'q']);
    expect(r.code).toBe(ExitCode.usage);
    expect(JSON.parse(r.stdout)).toMatchObject({ v: 1, seq: 1, type: 'error', code: 'usage', exit_code: 2 });
  });
});
