import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunk } from '../api/fixtures.js';
import { instantClock, runCliInProcess } from '../harness/cli.js';
import { parseNdjson } from '../harness/ndjson.js';
import { scriptedRig, sendJson } from '../harness/scripted-rig.js';
import { sseHead } from '../harness/scripted-server.js';

/**
 * A replay that differs is never recorded as a clean answer (docs/reliability.md #33, #37, C5):
 * a loopback server drops the stream after 9 events, and its /resume replays text of the same
 * lengths with other characters (each piece reversed). The real CLI, in each output mode, against
 * a real temp store; the clock is the one stand-in (back-off sleeps end at once).
 */

const JOB = 'oc-replay-1700000000000';
const ev = (json: string): string => `data: ${json}\n\n`;
const PIECES = ['alpha ', 'bravo ', 'charlie ', 'delta ', 'echo ', 'foxtrot ', 'golf ', 'hotel '];
const MORE = ['india ', 'juliet.'];
const reversed = (s: string): string => [...s].reverse().join('');
const SHOWN = PIECES.join('');
const REPLAYED = PIECES.map(reversed).join('');
/** What the orchestrator records: the job as its replay tells it. */
const RECORDED = (REPLAYED + MORE.join('')).trim();
const SPLICE = SHOWN + MORE.join('');

const rig = scriptedRig('replay');

async function run(args: string[], result: 'completed' | 'running' = 'completed') {
  let asked = 0;
  const server = await rig.serve((_req, res, seen) => {
    const role = ev(chunk({ role: 'assistant', nsed_session_id: JOB }));
    if (seen.url === '/v1/chat/completions') {
      sseHead(res, { 'x-nsed-session-id': JOB });
      // 9 events (the role chunk and 8 pieces), then a close without [DONE].
      res.end(role + PIECES.map((t) => ev(chunk({ content: t }))).join(''));
      return;
    }
    if (seen.url.endsWith('/result')) {
      asked += 1;
      // Running when the drop is settled, then as the job ended.
      const done = asked > 1 && result === 'completed';
      return sendJson(res, 200, {
        job_id: JOB,
        status: done ? 'completed' : 'running',
        result: done ? RECORDED : null,
      });
    }
    if (seen.url.endsWith('/resume')) {
      sseHead(res, { 'x-nsed-session-id': JOB });
      const replay = PIECES.map((t) => ev(chunk({ content: reversed(t) }))).join('');
      const more = MORE.map((t) => ev(chunk({ content: t }))).join('');
      res.end(role + replay + more + ev(chunk({}, 'stop')) + ev('[DONE]'));
      return;
    }
    return sendJson(res, 404, { error: 'not found' });
  });
  const home = await rig.home({ fresh: true });
  const r = await runCliInProcess(['ask', '--url', server.url, ...args, 'x'], {
    env: { NSED_HOME: home, NO_COLOR: '1' },
    clock: instantClock(),
  });
  const id = (await readdir(join(home, 'sessions'))).find((f) => f.endsWith('.json'))?.replace(/\.json$/, '') ?? '';
  const stored = JSON.parse(await readFile(join(home, 'sessions', `${id}.json`), 'utf8')) as {
    turns: Array<{ role: string; content: string; status: string; diverged?: boolean }>;
  };
  const answer = stored.turns.find((t) => t.role === 'assistant');
  return { ...r, id, answer };
}

const warning = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('nsed: warning:'));

describe('a replay that differs after a resume (reliability #33, #37)', () => {
  it('final prints and records the recorded answer, with a warning on stderr (reliability #33, C5)', async () => {
    const r = await run(['-o', 'final']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${RECORDED}\n`);
    expect(warning(r.stderr)).toHaveLength(1);
    expect(r.answer).toMatchObject({ content: RECORDED, status: 'complete', diverged: true });
  });

  it('json carries the recorded answer and says it diverged (reliability #33)', async () => {
    const r = await run(['-o', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ content: RECORDED, diverged: true });
    expect(warning(r.stderr)).toHaveLength(1);
    expect(r.answer).toMatchObject({ content: RECORDED, diverged: true });
  });

  it('ndjson marks the finish event, whose content is the recorded answer (reliability #33)', async () => {
    const r = await run(['-o', 'ndjson']);
    expect(r.code).toBe(0);
    const events = parseNdjson(r.stdout);
    const shown = events
      .filter((e) => e['type'] === 'text')
      .map((e) => String(e['text']))
      .join('');
    expect(shown).toBe(SPLICE);
    expect(events.at(-1)).toMatchObject({ type: 'finish', content: RECORDED, diverged: true });
    expect(warning(r.stderr)).toHaveLength(1);
    expect(r.answer).toMatchObject({ content: RECORDED, diverged: true });
  });

  it('text says the printed answer is a splice, and records the recorded one (reliability #33)', async () => {
    const r = await run(['-o', 'text']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(SPLICE.trim());
    const [line] = warning(r.stderr);
    expect(line).toContain('spliced from two texts');
    expect(line).toContain(r.id);
    expect(r.answer).toMatchObject({ content: RECORDED, diverged: true });
  });

  it('warns under -q too, in every mode (reliability #33)', async () => {
    for (const mode of ['text', 'final', 'json', 'ndjson']) {
      const r = await run(['-q', '-o', mode]);
      expect(r.code).toBe(0);
      expect(warning(r.stderr)).toHaveLength(1);
    }
  });

  it('keeps the splice, marked, when the orchestrator gives no recorded answer (reliability #33)', async () => {
    const r = await run(['-o', 'final'], 'running');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${SPLICE}\n`);
    expect(warning(r.stderr)[0]).toContain('the splice is kept');
    expect(r.answer).toMatchObject({ content: SPLICE, diverged: true });
  });

  it('shows the mark in sessions show and in every export (reliability #33)', async () => {
    const r = await run(['-o', 'final']);
    const env = { NSED_HOME: rig.homeDir, NO_COLOR: '1' };
    const show = await runCliInProcess(['sessions', 'show', r.id], { env });
    expect(show.stdout).toContain('REPLAY DIFFERED');
    const md = await runCliInProcess(['sessions', 'export', r.id, '--format', 'markdown'], { env });
    expect(md.stdout).toContain('**replay differed**');
    const doc = await runCliInProcess(['sessions', 'export', r.id, '--format', 'json'], { env });
    const turns = (JSON.parse(doc.stdout) as { turns: Array<{ role: string; diverged: boolean }> }).turns;
    expect(turns.find((t) => t.role === 'assistant')?.diverged).toBe(true);
    const nd = await runCliInProcess(['sessions', 'export', r.id, '--format', 'ndjson'], { env });
    expect(parseNdjson(nd.stdout).at(-1)).toMatchObject({ type: 'finish', diverged: true, content: RECORDED });
  });
});
