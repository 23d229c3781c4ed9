// A canary token through every command (docs/reliability.md #74, #75, #88, #89): in the URL's
// query string, and echoed back by a server inside the answer, the reasoning and a proposal. It
// appears nowhere in the store's files, in an export (any format, stdout or --out), in `sessions
// show`, in doctor's report or on stderr. (The answer a turn prints on stdout is the server's,
// byte for byte: that stream is the user's, and it is not redacted.)
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNdjson, runCliInProcess, type CliResult, useRig } from '../harness/rig.js';
import { sseHead, startServer, type ScriptedServer } from '../harness/scripted-server.js';
import { tempHome } from '../harness/temp-store.js';

const CANARY = 'canary-7f3a9c1e5b2d';

/** Every file under `dir`, with its text. */
async function filesUnder(dir: string): Promise<Array<{ file: string; text: string }>> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    out.push({ file, text: await readFile(file, 'utf8') });
  }
  return out;
}

function expectNoCanary(where: string, text: string, canary = CANARY): void {
  // The message names the place, so a failure says which output leaked.
  expect(text.includes(canary), `${where} holds the canary`).toBe(false);
}

const FORMATS = ['json', 'markdown', 'messages', 'ndjson', 'thread'];

/**
 * A server that echoes the token everywhere an answer can carry text: the reasoning, a proposal's
 * previews and claims, the answer (split over two chunks), and a URL with it as api_key.
 */
function echoRoute(): Parameters<typeof startServer>[0] {
  let n = 0;
  return (req, res) => {
    if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route; your token is ${CANARY}` } }));
      return;
    }
    n += 1;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: `c${n}`, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    sseHead(res, { 'x-nsed-session-id': `oc-echo-${n}` });
    res.write(chunk({ nsed_session_id: `oc-echo-${n}`, reasoning_content: `thinking with ${CANARY}` }));
    res.write(chunk({ reasoning_content: 'in mind' }));
    res.write(
      chunk({
        nsed_round: {
          round: 1,
          total_rounds: 1,
          progress: 1,
          scored: true,
          candidates: [
            {
              agent_id: 'CortexA',
              score: 0.9,
              content_preview: `proposal quoting ${CANARY}`,
              thought_preview: `thought about ${CANARY}`,
              claims: [{ claim: `the token is ${CANARY}`, verdict: 'correct' }],
            },
            // An agent id is a key of the verdict's scores: the token in it is redacted as a key.
            { agent_id: `Cortex-${CANARY}`, score: 0.4, content_preview: 'a second proposal' },
          ],
        },
      }),
    );
    res.write(chunk({ content: `The answer repeats ${CANARY.slice(0, 9)}` }));
    res.write(chunk({ content: `${CANARY.slice(9)} and https://example.com/x?api_key=${CANARY}&page=2.` }));
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  };
}

describe('a token the server echoes back, in a value or a key (reliability #89)', () => {
  let server: ScriptedServer;
  let home: string;
  let env: Record<string, string>;
  const run = (args: string[]): Promise<CliResult> => runCliInProcess(args, { env });

  beforeAll(async () => {
    server = await startServer(echoRoute());
  });
  afterAll(async () => {
    await server.close();
  });

  it('is in no store file, export, show, doctor report or stderr, in any output mode', async () => {
    home = await tempHome();
    env = { NSED_HOME: home, NSED_URL: server.url, NSED_TOKEN: CANARY, NO_COLOR: '1' };
    let id = '';
    for (const mode of ['text', 'json', 'ndjson', 'final']) {
      const reports = ['--summary', join(home, `summary-${mode}.md`), '--junit', join(home, `junit-${mode}.xml`)];
      const r = await run(['ask', '-o', mode, '-p', 'deep', ...reports, 'What is my token?']);
      expect(r.code, r.stderr).toBe(0);
      expectNoCanary(`ask -o ${mode} stderr`, r.stderr);
      // The answer on stdout is the server's own (not vacuous: the canary did travel).
      if (mode === 'final') expect(r.stdout).toContain(CANARY);
      if (mode === 'ndjson') id = String(parseNdjson(r.stdout)[0]?.['session']);
    }
    const next = await run(['continue', '--verbose', '-s', id, 'And again?']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`url ${server.url} (from NSED_URL)`);
    expectNoCanary('continue --verbose stderr', next.stderr);

    for (const args of [[], ['--json'], ['-o', 'json'], ['-o', 'ndjson'], ['-o', 'final'], ['--rounds']]) {
      const r = await run(['sessions', 'show', id, ...args]);
      expect(r.code, r.stderr).toBe(0);
      expectNoCanary(`sessions show ${args.join(' ')}`, r.stdout + r.stderr);
    }
    const shown = await run(['sessions', 'show', id, '--json']);
    const doc = JSON.parse(shown.stdout) as { turns: Array<{ role: string; content: string; reasoning: string }> };
    const answer = doc.turns.findLast((t) => t.role === 'assistant');
    expect(answer?.content).toBe('The answer repeats *** and https://example.com/x?api_key=***&page=2.');
    expect(answer?.reasoning).toBe('thinking with ***\nin mind');
    // The agent id that held the token is a key of the scores: redacted as a key, its score kept.
    const verdict = (answer as unknown as { verdict: { scores: Record<string, number> } }).verdict;
    expect(verdict.scores).toEqual({ CortexA: 0.9, 'Cortex-***': 0.4 });

    for (const format of FORMATS) {
      const r = await run(['sessions', 'export', id, '--format', format]);
      expect(r.code, r.stderr).toBe(0);
      expectNoCanary(`export --format ${format}`, r.stdout + r.stderr);
      const file = join(home, `export.${format}`);
      expect((await run(['sessions', 'export', id, '--format', format, '--out', file])).code).toBe(0);
      expectNoCanary(`export --format ${format} --out`, await readFile(file, 'utf8'));
    }
    const doctor = await run(['doctor']);
    expectNoCanary('doctor', doctor.stdout + doctor.stderr);

    // A batch's result lines, on stdout and in --out, and its reports.
    const items = join(home, 'items.jsonl');
    await writeFile(items, '{"id":"one","prompt":"What is my token?"}\n');
    const batchOut = join(home, 'results.jsonl');
    const batch = await run(['batch', items, '-p', 'deep', '--out', batchOut, '--summary', join(home, 'batch.md')]);
    expect(batch.code, batch.stderr).toBe(0);
    expect(JSON.parse(await readFile(batchOut, 'utf8'))).toMatchObject({ id: 'one', status: 'ok' });
    expectNoCanary('batch', batch.stdout + batch.stderr);
    const toStdout = await run(['batch', items, '-p', 'deep']);
    expect(toStdout.code, toStdout.stderr).toBe(0);
    expectNoCanary('batch result lines on stdout', toStdout.stdout + toStdout.stderr);

    const files = await filesUnder(home);
    expect(files.filter((f) => f.file.endsWith('.json')).length).toBeGreaterThanOrEqual(4);
    for (const { file, text } of files) expectNoCanary(file, text);
  });
});

describe('a token in the URL query string (reliability #88)', () => {
  const rig = useRig();
  const QUERY_CANARY = 'qcanary-41d9e0c2a7';

  it('is stored, shown and exported as ***, with the rest of the URL kept', async () => {
    const url = `${rig.sim.url}/?token=${QUERY_CANARY}&region=eu`;
    const shownUrl = `${rig.sim.url}/?token=***&region=eu`;
    const env = { NSED_URL: '' };
    const ask = await rig.run(['ask', '--url', url, '-o', 'ndjson', 'Design a cache'], { env });
    expect(ask.code, ask.stderr).toBe(0);
    const events = parseNdjson(ask.stdout);
    expect(events[0]?.['url']).toBe(shownUrl);
    expectNoCanary('ask -o ndjson', ask.stdout + ask.stderr, QUERY_CANARY);
    const id = String(events[0]?.['session']);
    expect((await rig.session(id))['orchestrator']).toBe(shownUrl);

    const next = await rig.run(['continue', '--verbose', '--url', url, '-s', id, 'And for writes?'], { env });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`url ${shownUrl} (from --url)`);
    expectNoCanary('continue --verbose', next.stdout + next.stderr, QUERY_CANARY);

    for (const format of FORMATS) {
      const r = await rig.run(['sessions', 'export', id, '--format', format]);
      expectNoCanary(`export --format ${format}`, r.stdout + r.stderr, QUERY_CANARY);
    }
    const doctor = await rig.run(['doctor', '--url', url, '-o', 'json'], { env });
    expect(JSON.parse(doctor.stdout)).toMatchObject({ url: shownUrl, url_source: 'flag' });
    expectNoCanary('doctor', doctor.stdout + doctor.stderr, QUERY_CANARY);
    // A URL that does not parse is named without its credentials too.
    const bad = await rig.run(['ask', '--url', `htp:/x?api_key=${QUERY_CANARY}`, 'q'], { env });
    expect(bad.code).toBe(2);
    expectNoCanary('a bad URL', bad.stderr, QUERY_CANARY);
    for (const { file, text } of await filesUnder(rig.home)) expectNoCanary(file, text, QUERY_CANARY);
  });
});

describe('a token in the URL path (reliability #180)', () => {
  const rig = useRig();

  it('is *** in the error message of every output mode, as on stderr', async () => {
    const env = { NSED_URL: `${rig.sim.url}/${CANARY}/x`, NSED_TOKEN: CANARY };
    const json = await rig.run(['ask', '-o', 'json', 'Design a cache'], { env });
    expect(json.code, json.stderr).toBe(3);
    const error = (JSON.parse(json.stdout) as { error: { message: string } }).error;
    expect(error.message).toContain('POST /***/x/v1/chat/completions');
    expectNoCanary('ask -o json', json.stdout + json.stderr);
    const ndjson = await rig.run(['ask', '-o', 'ndjson', 'Design a cache'], { env });
    expect(ndjson.code, ndjson.stderr).toBe(3);
    const events = parseNdjson(ndjson.stdout);
    expect(events[0]?.['url']).toBe(`${rig.sim.url}/***/x`);
    expect(events.at(-1)).toMatchObject({ type: 'error', message: expect.stringContaining('/***/x/') as unknown });
    expectNoCanary('ask -o ndjson', ndjson.stdout + ndjson.stderr);
    for (const { file, text } of await filesUnder(rig.home)) expectNoCanary(file, text);
  });
});
