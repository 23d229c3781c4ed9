// A token the server echoes (docs/reliability.md #89), on stdout: `-o json > result.json` is how
// scripts and CI keep a result, and an uploaded artifact is not masked. The server here is the
// simulator with the token written into what it says (test/harness/rewriting-proxy.ts): into a
// claim, a claim's reason, a proposal's preview and an agent id, on both paths (the compat chat
// stream, and the native one that --rounds takes). json, ndjson and text print each of those
// with the token as `***`, as the store and every report do, while the answer itself is the
// server's, byte for byte (docs/usage.md "Secrets"); so does --estimate, which lists the agents.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNdjson, testRig } from '../harness/rig.js';
import { startTextRewritingProxy } from '../harness/rewriting-proxy.js';

const CANARY = 'sk-echo-canary-5e8d21b7';

/** The simulator's words, each with the token put in: an agent id, a claim, a reason, a preview. */
function echo(text: string): string {
  return text
    .replaceAll('CortexC', `CortexC-${CANARY}`)
    .replaceAll('cache', `cache ${CANARY}`)
    .replaceAll('depends on the workload', `depends on ${CANARY}`)
    .replaceAll('plausible but not demonstrated', `plausible to ${CANARY}`);
}

const PATHS = [
  { name: 'compat', flags: ['-p', 'deep'] },
  { name: 'native', flags: ['-p', 'deep', '--rounds', '3'] },
];

/** The document with the answer's own fields taken out: what is left is nsed's to redact. */
function withoutAnswer(value: Record<string, unknown>, answerKeys: readonly string[]): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).filter(([k]) => !answerKeys.includes(k))));
}

describe('a token the server echoes, on stdout (reliability #89)', () => {
  for (const path of PATHS) {
    it(`is *** in -o json and -o ndjson outside the answer, which stays the server's (${path.name} path)`, async () => {
      const rig = await testRig({ seed: 7 });
      const proxy = await startTextRewritingProxy(rig.sim.url, echo);
      try {
        const env = { NSED_URL: proxy.url, NSED_TOKEN: CANARY };
        const json = await rig.run(['ask', '-o', 'json', ...path.flags, 'Design a cache'], { env });
        expect(json.code, json.stderr).toBe(0);
        const doc = JSON.parse(json.stdout) as Record<string, unknown> & {
          content: string;
          verdict: { scores: Record<string, number> };
          rounds: Array<{ candidates: Array<{ agent_id: string; content_preview: string; claims?: unknown[] }> }>;
        };
        // Not vacuous: the server did echo it, and the answer keeps it as the server wrote it.
        expect(doc.content).toContain(`cache ${CANARY}`);
        expect(withoutAnswer(doc, ['content']).includes(CANARY), 'json outside content').toBe(false);
        expect(Object.keys(doc.verdict.scores)).toContain('CortexC-***');
        const candidates = doc.rounds.flatMap((r) => r.candidates);
        expect(candidates.map((c) => c.agent_id)).toContain('CortexC-***');
        expect(candidates.some((c) => c.content_preview.includes('cache ***'))).toBe(true);
        const claims = JSON.stringify(candidates.map((c) => c.claims ?? []));
        expect(claims).toContain('cache ***');
        expect(claims).toMatch(/"reason":"(depends on|plausible to) \*\*\*/);
        expect(json.stderr).not.toContain(CANARY);

        const nd = await rig.run(['ask', '-o', 'ndjson', ...path.flags, 'Design a cache'], { env });
        expect(nd.code, nd.stderr).toBe(0);
        const events = parseNdjson(nd.stdout);
        const answerText = events
          .filter((e) => e['type'] === 'text')
          .map((e) => String(e['text']))
          .join('');
        const finish = events.find((e) => e['type'] === 'finish') ?? {};
        expect(String(finish['content'])).toContain(`cache ${CANARY}`);
        if (answerText !== '') expect(answerText).toBe(finish['content']);
        for (const e of events) {
          const answerKeys = e['type'] === 'text' ? ['text'] : e['type'] === 'finish' ? ['content'] : [];
          expect(withoutAnswer(e, answerKeys).includes(CANARY), `ndjson ${String(e['type'])} event`).toBe(false);
        }
        const ndText = nd.stdout;
        expect(ndText).toContain('CortexC-***');
        expect(nd.stderr).not.toContain(CANARY);

        // -o text prints the answer, byte for byte, and nothing of the council's with the token in it.
        const text = await rig.run(['ask', '-o', 'text', ...path.flags, 'Design a cache'], { env });
        expect(text.code, text.stderr).toBe(0);
        expect(text.stdout).toBe(`${doc.content}\n`);
        expect(text.stderr).not.toContain(CANARY);
      } finally {
        await proxy.close();
      }
    });
  }

  it('is *** in an agent id of --estimate, in text as in json, for a question and a batch', async () => {
    const rig = await testRig({ seed: 7 });
    const proxy = await startTextRewritingProxy(rig.sim.url, echo);
    try {
      const env = { NSED_URL: proxy.url, NSED_TOKEN: CANARY };
      const items = join(rig.home, 'items.jsonl');
      await writeFile(items, '{"id":"one","prompt":"Design a queue"}\n');
      for (const words of [
        ['ask', '--estimate', '-p', 'deep', 'Design a queue'],
        ['batch', items, '--estimate', '-p', 'deep'],
      ]) {
        for (const mode of ['text', 'json']) {
          const r = await rig.run([...words, '-o', mode], { env });
          expect(r.code, r.stderr).toBe(0);
          expect(r.stdout).toContain('CortexC-***');
          expect(r.stdout.includes(CANARY), `${words[0]} --estimate -o ${mode}`).toBe(false);
        }
      }
    } finally {
      await proxy.close();
    }
  });
});
