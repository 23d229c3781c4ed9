import { describe, expect, it } from 'vitest';
import { runTool } from '../../src/tools/run-tool.js';

const node = (code: string, opts: { timeoutMs?: number; maxOutputBytes?: number } = {}) => ({
  argv: [process.execPath, '-e', code],
  timeoutMs: opts.timeoutMs ?? 60_000,
  maxOutputBytes: opts.maxOutputBytes ?? 1024 * 1024,
});
const call = { name: 'calc', callId: 'call_1', args: '{"expr":"2+2"}' };

describe('running a declared tool (a real process)', () => {
  it('gives the arguments on stdin and in NSED_TOOL_*, withholds the token, and returns stdout without its last newline', async () => {
    const code = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log([s,process.env.NSED_TOOL_ARGS,process.env.NSED_TOOL_NAME,process.env.NSED_TOOL_CALL_ID,process.env.NSED_TOKEN].join('|')))`;
    const r = await runTool(node(code), call, { PATH: process.env['PATH'], NSED_TOKEN: 'secret' });
    expect(r).toMatchObject({ status: 'ok', exitCode: 0, content: '{"expr":"2+2"}|{"expr":"2+2"}|calc|call_1|' });
  });

  it('runs argv as given, with no shell: metacharacters in arguments are plain text', async () => {
    const r = await runTool(
      {
        argv: [process.execPath, '-e', 'console.log(process.argv[1])', '$(touch /tmp/x); echo hi'],
        timeoutMs: 60_000,
        maxOutputBytes: 1000,
      },
      call,
      {},
    );
    expect(r.content).toBe('$(touch /tmp/x); echo hi');
  });

  it('turns a non-zero exit into an error result carrying the status and stderr', async () => {
    const r = await runTool(node(`console.error('boom');process.exit(4)`), call, {});
    expect(r).toMatchObject({ status: 'error', exitCode: 4 });
    expect(r.content).toBe('error: tool calc exited with status 4: boom');
  });

  it('stops a tool at its time limit', async () => {
    const r = await runTool(node('setTimeout(()=>{}, 600000)', { timeoutMs: 300 }), call, {});
    expect(r).toMatchObject({ status: 'timeout', exitCode: null });
    expect(r.content).toMatch(/did not finish within 0.3 s/);
  });

  it('cuts the output at the cap and stops the tool', async () => {
    const r = await runTool(
      node(`setInterval(()=>process.stdout.write('x'.repeat(65536)), 1)`, { maxOutputBytes: 100_000 }),
      call,
      {},
    );
    expect(r.status).toBe('capped');
    expect(r.content.startsWith('x'.repeat(100_000))).toBe(true);
    expect(r.content.length).toBeLessThan(100_200);
  });

  it('reports a program that cannot be started', async () => {
    const r = await runTool({ argv: ['/nonexistent/tool'], timeoutMs: 60_000, maxOutputBytes: 10 }, call, {});
    expect(r).toMatchObject({ status: 'error', exitCode: null });
    expect(r.content).toMatch(/could not be started \(ENOENT\)/);
  });
});
