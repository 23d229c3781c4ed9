// nsed's promptfoo provider run by promptfoo itself: `promptfoo eval` (the version bench/promptfoo
// pins, on a Node it supports) loads provider/promptfoo.mjs from this run's build, laid out as the
// package ships it, as a `file://` provider, and runs turns against simulators on loopback with
// its telemetry, update check, sharing and cache off. docs/ci.md "Councils in a promptfoo eval" is what this holds.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePromptfoo, promptfooEnv } from '../../bench/lib/promptfoo.mjs';
import { CLI } from '../harness/process.js';
import { makeRig, type Rig } from '../harness/rig.js';
import { runPeer, sayWhySkipped, type PeerRun } from './run-peer.js';

const PROVIDER = join(dirname(CLI), '..', 'provider', 'promptfoo.mjs');
const CI_PAGE = fileURLToPath(new URL('../../docs/ci.md', import.meta.url));
const TOKEN = 'pf-secret-token-5b1e0c7d9a';
/** promptfoo's whole run (a few seconds here); a backstop against a hang only. */
const EVAL_BOUND_MS = 5 * 60_000;

interface PfResult {
  testIdx: number;
  success: boolean;
  provider: { label?: string; id: string };
  response?: {
    output?: unknown;
    error?: string;
    cost?: number;
    tokenUsage?: { total?: number; prompt?: number; completion?: number };
    metadata?: Record<string, unknown>;
  };
  error?: string;
  gradingResult?: { pass: boolean; reason: string; componentResults?: Array<{ pass: boolean; reason: string }> };
}

let promptfoo: { node: string; main: string } | undefined;
let missing: string | undefined;
let metered: Rig;
let unmetered: Rig;
let dir: string;
let run: PeerRun;
let results: PfResult[] = [];
let written = '';

/** The tests of the config below, in order: each runs on the one provider it names. */
const TESTS = ['council', 'unmetered', 'unmetered-cost', 'token-in-config', 'exec', 'echo'] as const;

const resultOf = (test: (typeof TESTS)[number]): PfResult => {
  const r = results.find((x) => x.testIdx === TESTS.indexOf(test));
  if (r === undefined) throw new Error(`no result of ${test} in promptfoo's output: ${run.stderr.slice(-2000)}`);
  return r;
};

/** The one line of docs/ci.md that matches `pattern`. */
async function docsLine(pattern: RegExp): Promise<string> {
  const lines = (await readFile(CI_PAGE, 'utf8')).split('\n').filter((l) => pattern.test(l));
  if (lines.length !== 1) throw new Error(`docs/ci.md has ${lines.length} lines matching ${String(pattern)}`);
  return lines[0] ?? '';
}

beforeAll(async () => {
  try {
    promptfoo = await ensurePromptfoo(() => undefined);
  } catch (err) {
    missing = sayWhySkipped(
      `promptfoo could not be installed (no registry?): ${String((err as Error).message ?? err).slice(0, 300)}`,
    );
    return;
  }
  // The orchestrator asks for a token, read by the provider from NSED_TOKEN as the CLI reads it.
  metered = await makeRig({ token: TOKEN });
  // A server that reports no cost at all (docs/simulator.md "Faults", meter=none).
  unmetered = await makeRig({ token: TOKEN, faults: ['meter=none'] });
  dir = await mkdtemp(join(tmpdir(), 'nsed-promptfoo-'));
  // `nsed` on PATH for the exec: recipe, as an installed package puts it there.
  const bin = join(dir, 'bin');
  await mkdir(bin);
  await writeFile(join(bin, 'nsed'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  const config = [
    'description: nsed provider under promptfoo',
    'prompts:',
    "  - '{{question}}'",
    'providers:',
    `  - id: file://${PROVIDER}`,
    '    label: council',
    '    config:',
    `      url: ${metered.sim.url}`,
    `      home: ${metered.home}`,
    '      rounds: 2',
    `  - id: file://${PROVIDER}`,
    '    label: unmetered',
    '    config:',
    `      url: ${unmetered.sim.url}`,
    `      home: ${unmetered.home}`,
    `  - id: file://${PROVIDER}`,
    '    label: token-in-config',
    '    config:',
    `      url: ${metered.sim.url}`,
    '      token: not-here',
    // docs/ci.md's recipe for promptfoo's exec: provider, as written there.
    await docsLine(/^ {2}- id: "exec: /),
    '    label: exec',
    'tests:',
    '  - vars: { question: "Should the index be cached?" }',
    '    providers: [council]',
    '    assert:',
    '      - type: cost',
    '        threshold: 1',
    '      - type: javascript',
    '        value: context.providerResponse.metadata.verdict.rounds.completed === 2',
    '  - vars: { question: "Should the index be cached?" }',
    '    providers: [unmetered]',
    '  - vars: { question: "Should the index be cached?" }',
    '    providers: [unmetered]',
    '    assert:',
    '      - type: cost',
    '        threshold: 1',
    '  - vars: { question: "Should the index be cached?" }',
    '    providers: [token-in-config]',
    '  - vars: { question: "Should the index be cached?" }',
    '    providers: [exec]',
    '    assert:',
    '      - type: icontains',
    '        value: index',
    // The council repeats the question, which holds the token: the response must not.
    `  - vars: { question: "Is ${TOKEN} a safe cache key?" }`,
    '    providers: [council]',
    '',
  ].join('\n');
  await writeFile(join(dir, 'promptfooconfig.yaml'), config);
  const out = join(dir, 'out.json');
  run = await runPeer(
    promptfoo.node,
    [
      promptfoo.main,
      'eval',
      '-c',
      join(dir, 'promptfooconfig.yaml'),
      '--no-cache',
      '--no-progress-bar',
      '--no-table',
      '-o',
      out,
    ],
    {
      cwd: dir,
      env: {
        ...promptfooEnv(join(dir, 'promptfoo')),
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        NSED_TOKEN: TOKEN,
        // For the exec: recipe, whose nsed reads its orchestrator and store as any run does.
        NSED_URL: metered.sim.url,
        NSED_HOME: metered.home,
        NO_COLOR: '1',
      },
      timeoutMs: EVAL_BOUND_MS,
    },
  );
  written = await readFile(out, 'utf8').catch(() => '');
  results = written === '' ? [] : (JSON.parse(written) as { results: { results: PfResult[] } }).results.results;
}, 20 * 60_000);

afterAll(async () => {
  await metered?.close();
  await unmetered?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the promptfoo provider, run by promptfoo eval', () => {
  it('returns the answer, tokens, cost and verdict of a metered turn, and promptfoo’s cost assertion passes on it', async (ctx) => {
    if (missing !== undefined) ctx.skip(missing);
    expect(results.length, `promptfoo exited ${run.code}: ${run.stderr.slice(-2000)}`).toBe(TESTS.length);
    const r = resultOf('council');
    expect(r.success, JSON.stringify(r.gradingResult)).toBe(true);
    const meta = r.response?.metadata ?? {};
    // The figures are the turn's own, as nsed recorded it in the store the config named.
    const session = await metered.session<{ turns: Array<{ role: string; usage?: Record<string, number | null> }> }>(
      String(meta['session']),
    );
    const usage = session.turns.find((t) => t.role === 'assistant')?.usage;
    expect(usage?.['cost_usd']).toBeGreaterThan(0);
    expect(r.response?.cost).toBe(usage?.['cost_usd']);
    expect(r.response?.tokenUsage).toMatchObject({
      prompt: usage?.['input_tokens'],
      completion: usage?.['output_tokens'],
      total: Number(usage?.['input_tokens']) + Number(usage?.['output_tokens']),
    });
    expect(meta['cost_source']).toBe('reported');
    expect(meta['status']).toBe('complete');
    expect(String(meta['job_id'])).not.toBe('');
    expect(typeof r.response?.output).toBe('string');
    expect(String(r.response?.output)).toContain('index');
  });

  it('gives no cost for a server that reports none, so promptfoo’s cost assertion cannot pass on it (reliability #255)', async (ctx) => {
    if (missing !== undefined) ctx.skip(missing);
    const r = resultOf('unmetered');
    expect(r.success, r.error).toBe(true);
    expect(r.response?.cost).toBeUndefined();
    expect(r.response?.tokenUsage?.total ?? null).toBeNull();
    expect(r.response?.metadata?.['cost_source']).toBe('unknown');
    expect(r.response?.metadata?.['usage']).toMatchObject({ input_tokens: null, output_tokens: null, cost_usd: null });
    // The answer is there all the same.
    expect(String(r.response?.output)).toContain('index');
    // promptfoo's cost assertion on it errs ("providers that do not return cost"): never a pass.
    const judged = resultOf('unmetered-cost');
    expect(judged.success).toBe(false);
    expect(String(judged.error)).toMatch(/do not return cost/);
  });

  it('refuses a token in the provider config, naming NSED_TOKEN, and returns no token, even one the council repeats (reliability #256)', async (ctx) => {
    if (missing !== undefined) ctx.skip(missing);
    const r = resultOf('token-in-config');
    expect(r.success).toBe(false);
    expect(r.response?.error ?? r.error).toMatch(/cannot set token.*NSED_TOKEN/);
    expect(written.replaceAll(`Is ${TOKEN} a safe cache key?`, '')).not.toContain(TOKEN);
    // What the provider returns is redacted even where the council repeats the token back.
    const echo = resultOf('echo');
    expect(String(echo.response?.output)).toContain('a safe cache key');
    expect(JSON.stringify(echo.response)).not.toContain(TOKEN);
  });

  it('runs the manual’s exec: recipe as written: the prompt is the question, promptfoo’s two JSON arguments are not', async (ctx) => {
    if (missing !== undefined) ctx.skip(missing);
    const r = resultOf('exec');
    expect(r.success, JSON.stringify(r.gradingResult ?? r.error)).toBe(true);
    const answer = String(r.response?.output);
    expect(answer).toContain('Should the index be cached?');
    expect(answer).not.toContain('"vars"');
    expect(answer).not.toContain('basePath');
  });
});
