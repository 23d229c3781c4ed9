// `sessions show` and `export` of session files the store did not redact as it wrote them: a
// file someone edited by hand, in the escapes JSON allows, and one as nsed writes it. The real
// CLI in a process: `sessions show ID` runs from the fast entry (dist/fast.cjs).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../harness/process.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

const TOKEN = 'canary-5e1d0b7c';
// The token with every letter written as \uXXXX, as JSON allows and a hand edit may do.
const ESCAPED = [...TOKEN]
  .map((c) => (/[a-z]/.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
  .join('');

async function writeSession(home: string, id: string, json: string): Promise<void> {
  await mkdir(join(home, 'sessions'), { recursive: true, mode: 0o700 });
  await writeFile(join(home, 'sessions', `${id}.json`), json, { mode: 0o600 });
}

const answer = (id: string, content: string, over = {}) =>
  turn(id, { role: 'assistant', content, policy_id: 'nsed:deep', job_id: `job-${id}`, ...over });

describe('a session file edited by hand (reliability #89)', () => {
  it('is shown and exported without the token or a credential, in every output mode', async () => {
    const home = await tempHome();
    const id = '20261201-0a1b2c3d';
    const edited = session(id, {
      turns: [
        turn('t1', { content: `my token is ${TOKEN}` }),
        answer('t2', 'the escaped one: ESCAPED, and https://user:pw-9z@example.com/x?api_key=zz9&page=2', {
          reasoning: `thinking of ${TOKEN}`,
          rounds: [
            {
              round: 1,
              total_rounds: 1,
              progress: 1,
              scored: true,
              candidates: [{ agent_id: `Cortex-${TOKEN}`, score: 0.4, content_preview: `a proposal naming ${TOKEN}` }],
            },
          ],
        }),
      ],
    });
    // Written as an editor would save it: the second mention of the token in \u escapes.
    await writeSession(home, id, JSON.stringify(edited, null, 2).replace('ESCAPED', ESCAPED));
    const env = { NSED_HOME: home, NSED_TOKEN: TOKEN, NO_COLOR: '1' };
    const runs = [
      ['sessions', 'show', id],
      ['sessions', 'show', id, '--rounds', '--ballots'],
      ['sessions', 'show', id, '--json'],
      ['sessions', 'show', id, '-o', 'ndjson'],
      ['sessions', 'show', id, '-o', 'final'],
      ['sessions', 'export', id, '--format', 'markdown'],
    ];
    for (const args of runs) {
      const r = await spawnCli(args, { env }).result;
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      const out = r.stdout + r.stderr;
      expect(out, args.join(' ')).not.toContain(TOKEN);
      expect(out, args.join(' ')).not.toContain('pw-9z');
      expect(out, args.join(' ')).not.toContain('api_key=zz9');
      // Not vacuous: the answer is there, each secret in it as ***.
      expect(out, args.join(' ')).toContain('the escaped one: ***');
    }
    const doc = JSON.parse((await spawnCli(['sessions', 'show', id, '--json'], { env }).result).stdout) as {
      turns: Array<{ content: string; reasoning: string | null }>;
    };
    expect(doc.turns[0]?.content).toBe('my token is ***');
    expect(doc.turns[1]?.content).toBe('the escaped one: ***, and https://***@example.com/x?api_key=***&page=2');
    expect(doc.turns[1]?.reasoning).toBe('thinking of ***');
  });

  it('shows a file as nsed writes it unchanged, word for word', async () => {
    const home = await tempHome();
    const id = '20261201-4e5f6a7b';
    const content = 'a basic answer: x = y; see http://127.0.0.1:8080/docs and "quotes"\nover two lines';
    await writeSession(home, id, `${JSON.stringify(session(id, { turns: [answer('t1', content)] }), null, 2)}\n`);
    const r = await spawnCli(['sessions', 'show', id, '-o', 'final'], {
      env: { NSED_HOME: home, NSED_TOKEN: TOKEN },
    }).result;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${content}\n`);
  });
});
