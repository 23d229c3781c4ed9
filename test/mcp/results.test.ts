// What a host's model is given back, through the MCP TypeScript SDK's own client and the real
// `nsed mcp` over stdio against a simulator on loopback: a bad value refused in the CLI's words
// for its flag, `detail: "brief"` and `"full"`, the links beside the text that resources/read
// resolves, and an answer past 20,000 tokens cut with a link to the whole of it.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { RESULT_TOKENS_MAX, tokensOf } from '../../src/mcp/result-fit.js';
import { connectMcp, isError, structured, text, type McpHost } from '../harness/mcp-host.js';
import { useRig } from '../harness/rig.js';

const links = (r: unknown): Array<{ uri: string; mimeType?: string | undefined }> =>
  ((r as CallToolResult).content ?? []).flatMap((c) =>
    c.type === 'resource_link' ? [{ uri: c.uri, mimeType: c.mimeType }] : [],
  );
const resourceText = (c: { text: string } | { blob: string } | undefined): string =>
  c !== undefined && 'text' in c ? c.text : '';
/** A result's size as a host's model pays for it: every text block and the structured content. */
const resultTokens = (r: unknown): number =>
  tokensOf(text(r)) + tokensOf(JSON.stringify((r as CallToolResult).structuredContent ?? {}));

describe('nsed mcp: bad values in the CLI’s words', { timeout: 180_000 }, () => {
  const rig = useRig();
  let host: McpHost;
  beforeAll(async () => {
    host = await connectMcp(rig);
  });
  afterAll(async () => {
    await host.close();
  });

  // Each a value the flag's rule refuses: the argument, its flag and the value on both sides.
  const cases: Array<{ arg: string; args: Record<string, unknown>; flag: string }> = [
    { arg: 'rounds', args: { rounds: 0 }, flag: '--rounds=0' },
    { arg: 'rounds', args: { rounds: 2.5 }, flag: '--rounds=2.5' },
    { arg: 'max_cost', args: { max_cost: 0 }, flag: '--max-cost=0' },
    { arg: 'max_tokens', args: { max_tokens: -3 }, flag: '--max-tokens=-3' },
    { arg: 'agents', args: { agents: ['CortexA'] }, flag: '--agents=CortexA' },
    { arg: 'policy', args: { policy: ' ' }, flag: '--policy= ' },
    { arg: 'gates.min-convergence', args: { gates: { 'min-convergence': 2 } }, flag: '--min-convergence=2' },
    { arg: 'gates.max-cost', args: { gates: { 'max-cost': -1 } }, flag: '--max-cost-gate=-1' },
  ];

  it('each is refused as the CLI refuses its flag, naming the argument, and nothing is sent', async () => {
    const posts = (): number => rig.sim.requests.filter((q) => q.method === 'POST').length;
    const before = posts();
    for (const c of cases) {
      const cli = await rig.run(['ask', c.flag, 'Is this refused?']);
      expect(cli.code, c.arg).toBe(ExitCode.usage);
      const [line = '', hint] = cli.stderr.trim().split('\n');
      const said = /^nsed: (.*)$/.exec(line)?.[1] ?? line;
      // The CLI names the flag as its messages spell it (`-p/--policy`); the tool, the argument.
      const named = said.replace(/^(-\w\/)?--[\w-]+/, c.arg);
      expect(named, c.arg).not.toBe(said);
      const r = await host.client.callTool({
        name: 'deliberate',
        arguments: { question: 'Is this refused?', ...c.args },
      });
      expect(isError(r), c.arg).toBe(true);
      const [first, second] = text(r).split('\n');
      expect(first, c.arg).toBe(`usage (exit 2): ${named}`);
      // The hint, where the CLI gives one, comes along in the tools' terms.
      if (hint !== undefined) expect(second, c.arg).toMatch(/^hint: /);
    }
    expect(posts()).toBe(before);
  });
});

describe('nsed mcp: brief and full results, with links', { timeout: 180_000 }, () => {
  const rig = useRig();
  let host: McpHost;
  beforeAll(async () => {
    host = await connectMcp(rig);
  });
  afterAll(async () => {
    await host.close();
  });

  it('brief is the answer and a one-line verdict, with the transcript and the report linked; full adds rounds, gates and usage', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Design a cache for a read-heavy API', policy: 'fast', gates: { 'min-convergence': 0.5 } },
    });
    expect(isError(r), text(r)).toBe(false);
    const s = structured(r);
    const session = String(s['session']);
    const content = String(s['content']);
    // Brief: the answer, then one line of verdict; nothing of the rounds.
    const [answer, verdict, ...more] = text(r).split('\n\n— ');
    expect(answer).toBe(content);
    expect(more).toEqual([]);
    expect(verdict).toMatch(new RegExp(`^session ${session} · chosen Cortex\\w+ · convergence \\d+%$`));
    expect(text(r)).not.toMatch(/^round \d/m);

    expect(links(r)).toEqual([
      { uri: `nsed://sessions/${session}`, mimeType: 'text/markdown' },
      { uri: `nsed://sessions/${session}/report.html`, mimeType: 'text/html' },
    ]);
    const transcript = await host.client.readResource({ uri: `nsed://sessions/${session}` });
    expect(resourceText(transcript.contents[0])).toContain(content.split('\n')[0]);
    expect(resourceText(transcript.contents[0])).toContain('Design a cache for a read-heavy API');
    const report = await host.client.readResource({ uri: `nsed://sessions/${session}/report.html` });
    expect(resourceText(report.contents[0])).toMatch(/^<!doctype html>/i);

    // Full, for the same turn: the brief text, then a line per round, the gate's checks and the usage.
    const full = await host.client.callTool({ name: 'wait', arguments: { session, after: 0, detail: 'full' } });
    const f = structured(full);
    expect(f).toMatchObject({ session, done: true, content });
    expect(text(full).startsWith(text(r))).toBe(true);
    const rounds = f['rounds'] as Array<{ round: number; total_rounds: number }>;
    expect(rounds.length).toBeGreaterThan(0);
    for (const x of rounds) expect(text(full)).toMatch(new RegExp(`^round ${x.round}/${x.total_rounds} · `, 'm'));
    expect(text(full)).toMatch(/^gate pass\n {2}✓ /m);
    expect(text(full)).toMatch(/^usage: \d+ tokens in, \d+ out · \$/m);
    expect(links(full).map((l) => l.uri)).toEqual(links(r).map((l) => l.uri));
  });
});

describe('nsed mcp: an answer past 20,000 tokens', { timeout: 180_000 }, () => {
  // The simulator's answer runs on to 120,000 bytes: about 30,000 tokens.
  const rig = useRig({ faults: ['all:answer-bytes=120000'] });
  let host: McpHost;
  beforeAll(async () => {
    host = await connectMcp(rig);
  });
  afterAll(async () => {
    await host.close();
  });

  it('is cut to fit, says where, and links the whole answer, which resources/read returns', async () => {
    const r = await host.client.callTool({
      name: 'deliberate',
      arguments: { question: 'Write down everything about caching', policy: 'fast' },
    });
    expect(isError(r), text(r).slice(0, 300)).toBe(false);
    const s = structured(r);
    const session = String(s['session']);
    const stored = await rig.session<{ turns: Array<{ content: string }> }>(session);
    const whole = String(stored.turns.at(-1)?.content);
    expect(tokensOf(whole)).toBeGreaterThan(RESULT_TOKENS_MAX);

    expect(resultTokens(r)).toBeLessThanOrEqual(RESULT_TOKENS_MAX);
    const rest = `nsed://sessions/${session}/answer`;
    expect(s['cut']).toEqual({ answer_tokens: tokensOf(whole), shown_tokens: expect.any(Number), rest });
    const head = String(s['content']);
    expect(whole.startsWith(head)).toBe(true);
    expect(head.length).toBeGreaterThan(10_000);
    expect(text(r)).toContain(`${head}\n\n[cut: the answer is about ${tokensOf(whole)} tokens`);
    expect(text(r)).toContain(`resources/read ${rest}]`);
    expect(links(r).map((l) => l.uri)).toEqual([
      `nsed://sessions/${session}`,
      `nsed://sessions/${session}/report.html`,
      rest,
    ]);
    const read = await host.client.readResource({ uri: rest });
    expect(resourceText(read.contents[0])).toBe(whole);

    // The verdict of the same session is cut alike.
    const v = await host.client.callTool({ name: 'verdict', arguments: { session } });
    expect(resultTokens(v)).toBeLessThanOrEqual(RESULT_TOKENS_MAX);
    expect(structured(v)['cut']).toMatchObject({ rest });
    expect(links(v).map((l) => l.uri)).toContain(rest);
  });
});
