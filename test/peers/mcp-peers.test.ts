// `nsed mcp` driven by MCP clients nobody here wrote: the MCP Inspector's CLI over stdio, and the
// MCP conformance suite's server scenarios over Streamable HTTP, both pinned by
// test/peers/package.json and its lockfile and run on a Node their `engines` allow, against a
// simulator and the server on loopback. (test/e2e/mcp.test.ts drives it with the SDK's client.)
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ajvModule from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../src/mcp/tool-defs.js';
import { CLI, waitForOutput, type CliProcess } from '../harness/process.js';
import { makeRig, type Rig } from '../harness/rig.js';
import { peerEnv, peersOrReason, runPeer } from './run-peer.js';

const SOURCE = fileURLToPath(new URL('./', import.meta.url));
const INSPECTOR = join('node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'cli', 'build', 'index.js');
const CONFORMANCE = join('node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = join(SOURCE, 'conformance-baseline.yml');
/** A backstop against a hung peer, never a measure of speed (each run takes about a second). */
const PEER_BOUND_MS = 120_000;
const MCP_TOKEN = 'peers-mcp-token-0123456789abcdef';

/**
 * The conformance suite's server scenarios that apply to a server of nsed's kind: the rest call
 * the reference server's fixture tools, prompts, completions and resources, which nsed has none
 * of (conformance-baseline.yml lists them, each with why).
 */
const APPLICABLE = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'resources-subscribe',
  'resources-unsubscribe',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

const ajv = new ajvModule.default({ allErrors: true, strict: false });

let peers: { node: string; dir: string } | undefined;
let missing: string | undefined;
let rig: Rig;
let home: string;

beforeAll(async () => {
  const got = await peersOrReason({
    source: SOURCE,
    name: 'mcp-peers',
    packages: ['@modelcontextprotocol/inspector', '@modelcontextprotocol/conformance'],
    main: CONFORMANCE,
  });
  if ('missing' in got) {
    missing = got.missing;
    return;
  }
  peers = got;
  rig = await makeRig();
  // The peers' own HOME: the Inspector keeps a catalog and client config under it.
  home = await mkdtemp(join(tmpdir(), 'nsed-peers-home-'));
}, 20 * 60_000);

afterAll(async () => {
  await rig?.close();
  if (home !== undefined) await rm(home, { recursive: true, force: true });
});

/** `inspector --cli ARGS -- node nsed mcp`, the server given the rig's orchestrator and store. */
async function inspect(
  args: string[],
): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
  if (peers === undefined) throw new Error('no peers');
  const r = await runPeer(
    peers.node,
    [
      join(peers.dir, INSPECTOR),
      '-e',
      `NSED_URL=${rig.sim.url}`,
      '-e',
      `NSED_HOME=${rig.home}`,
      '--format',
      'json',
      ...args,
      '--',
      process.execPath,
      CLI,
      'mcp',
    ],
    { env: peerEnv({ HOME: home }), timeoutMs: PEER_BOUND_MS },
  );
  try {
    return { code: r.code, json: JSON.parse(r.stdout) as Record<string, unknown>, stderr: r.stderr };
  } catch {
    throw new Error(
      `the Inspector printed no JSON (exit ${r.code}): ${r.stdout.slice(0, 500)} ${r.stderr.slice(-1500)}`,
    );
  }
}

type Structured = Record<string, unknown>;

describe('the MCP Inspector’s CLI against nsed mcp over stdio', () => {
  it('lists every tool, and its --strict schema check finds no error (reliability #257)', async (ctx) => {
    if (missing !== undefined) ctx.skip(missing);
    const r = await inspect(['--method', 'tools/list', '--strict']);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const tools = (r.json['result'] as { tools: Array<{ name: string; outputSchema?: unknown }> }).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    for (const t of tools) expect(t.outputSchema, t.name).toBeDefined();
    // Portability warnings (nullable `type` arrays) are advice; an error-severity finding is exit 6.
    expect(r.stderr).toMatch(/\b0 errors\b/);
  });

  it('calls deliberate to its end: the answer, verdict and usage, valid against the outputSchema, in the CLI’s store (reliability #257)', async (ctx) => {
    if (missing !== undefined) ctx.skip(missing);
    const r = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'deliberate',
      '--tool-args-json',
      JSON.stringify({ question: 'Should the index be cached?', rounds: 2 }),
    ]);
    expect(r.code, r.stderr.slice(-1500)).toBe(0);
    const result = r.json['result'] as { isError?: boolean; structuredContent: Structured };
    expect(result.isError ?? false).toBe(false);
    const s = result.structuredContent;
    const check = ajv.compile(MCP_TOOLS.find((t) => t.name === 'deliberate')?.outputSchema ?? {});
    expect(check(s), JSON.stringify(check.errors)).toBe(true);
    expect(s).toMatchObject({ done: true, status: 'complete', usage: { cost_source: 'reported' } });
    expect(s['verdict']).toMatchObject({ rounds: { completed: 2 } });
    // Each round's convergence is the one the verdict shows (reliability #259).
    const perRound = (s['verdict'] as { convergence: { per_round: Array<{ round: number; value: number }> } })
      .convergence.per_round;
    expect(
      (s['rounds'] as Array<{ round: number; convergence: number | null }>).map((x) => [x.round, x.convergence]),
    ).toEqual(perRound.map((p) => [p.round, p.value]));
    const stored = await rig.session<{ turns: Array<{ role: string; content: string }> }>(String(s['session']));
    expect(stored.turns.at(-1)?.content).toBe(s['content']);

    // The session, as a resource another host (here, another Inspector run) lists and reads.
    const listed = await inspect(['--method', 'resources/list']);
    const uri = `nsed://sessions/${String(s['session'])}`;
    expect((listed.json['result'] as { resources: Array<{ uri: string }> }).resources.map((x) => x.uri)).toContain(uri);
    const read = await inspect(['--method', 'resources/read', '--uri', uri]);
    const text = (read.json['result'] as { contents: Array<{ text?: string }> }).contents[0]?.text ?? '';
    expect(text).toContain('Should the index be cached?');
    expect(text).toContain(String(s['content']).split('\n')[0]);
  });

  it('gets a tool error with nsed’s code and hint for an unknown session (reliability #215)', async (ctx) => {
    if (missing !== undefined) ctx.skip(missing);
    const r = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'wait',
      '--tool-args-json',
      JSON.stringify({ session: '20200101-deadbeef' }),
    ]);
    const result = r.json['result'] as { isError?: boolean; content: Array<{ text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/^not_found \(exit 3\): no session matches '20200101-deadbeef'\nhint: /);
  });
});

/**
 * Forwards each request to nsed mcp with the bearer token the conformance suite has no option
 * for, and the `Host` it named rewritten to the server's when it named this proxy (any other
 * `Host`, such as the DNS-rebinding scenario's `evil.example.com`, goes through as it came).
 */
async function tokenProxy(target: URL, token: string): Promise<Server> {
  const server = createServer((req, res) => {
    const own = [
      `127.0.0.1:${(server.address() as AddressInfo).port}`,
      `localhost:${(server.address() as AddressInfo).port}`,
    ];
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (own.includes(String(headers.host))) headers.host = target.host;
    const up = request({ host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

describe('the MCP conformance suite against nsed mcp --http', () => {
  it('passes every server scenario that applies to a council server, the rest named in its baseline (reliability #258)', async (ctx) => {
    if (missing !== undefined || peers === undefined) return ctx.skip(missing);
    const server: CliProcess = rig.spawn(['mcp', '--http', '0'], {
      env: { NSED_MCP_TOKEN: MCP_TOKEN },
      stdin: 'inherit-open',
    });
    let proxy: Server | undefined;
    const out = await mkdtemp(join(tmpdir(), 'nsed-conformance-'));
    try {
      let said = '';
      await waitForOutput(server, (o) => (said = o).includes('/mcp\n'));
      const url = new URL(String(/nsed mcp listening on (\S+)/.exec(said)?.[1]));
      proxy = await tokenProxy(url, MCP_TOKEN);
      const port = (proxy.address() as AddressInfo).port;
      const r = await runPeer(
        peers.node,
        [
          join(peers.dir, CONFORMANCE),
          'server',
          '--url',
          `http://127.0.0.1:${port}/mcp`,
          '--expected-failures',
          BASELINE,
          '-o',
          out,
        ],
        { env: peerEnv({ HOME: home }), timeoutMs: PEER_BOUND_MS },
      );
      // Exit 0: no scenario outside the baseline failed, and none inside it passed (a stale entry is exit 1).
      expect(r.code, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-1500)}`).toBe(0);
      // Each scenario that applies ran, and every one of its checks succeeded.
      const dirs = await readdir(out);
      for (const scenario of APPLICABLE) {
        const dir = dirs.find((d) => d.startsWith(`server-${scenario}-`));
        expect(dir, `no results for ${scenario}`).toBeDefined();
        const checks = JSON.parse(await readFile(join(out, String(dir), 'checks.json'), 'utf8')) as Array<{
          id: string;
          status: string;
        }>;
        expect(checks.length, scenario).toBeGreaterThan(0);
        for (const c of checks) expect(`${scenario}/${c.id}: ${c.status}`).toBe(`${scenario}/${c.id}: SUCCESS`);
      }
      expect(`${r.stdout}${r.stderr}`).not.toContain(MCP_TOKEN);
    } finally {
      proxy?.closeAllConnections();
      await new Promise<void>((resolve) => (proxy === undefined ? resolve() : proxy.close(() => resolve())));
      server.kill('SIGTERM');
      await server.result;
      await rm(out, { recursive: true, force: true });
    }
  });
});
