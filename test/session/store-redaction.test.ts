import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Secrets } from '../../src/secrets.js';
import { openFileStore } from '../../src/session/file-store.js';
import { session, tempHome, turn } from '../harness/temp-store.js';

const TOKEN = 'sk-canary-7f3a9c';

/** The run's secrets, counting the strings it is asked to redact one by one. */
class CountingSecrets extends Secrets {
  calls = 0;
  override redact(text: string): string {
    this.calls++;
    return super.redact(text);
  }
}

async function storeWith(secrets: Secrets) {
  return openFileStore(await tempHome(), {
    redact: (text) => secrets.redact(text),
    redactRecord: (record, json) => secrets.redactRecord(record, json),
  });
}

describe('what a session file gets redacted (reliability #89)', () => {
  it('a created or updated session holds no known token nor credential, in values or keys', async () => {
    const secrets = new CountingSecrets();
    secrets.add(TOKEN);
    const store = await storeWith(secrets);
    await store.create(session('s1', { title: `about ${TOKEN}`, turns: [turn('t1', { content: 'plain' })] }));
    await store.update('s1', (s) => {
      s.turns.push(
        turn('t2', {
          // A control character makes JSON write a \u escape; a URL with credentials; the token as a key.
          content: `see https://user:pw@example.test/x?api_key=abc123\u0001 and Bearer ${TOKEN}`,
          meta: { [TOKEN]: 1 },
        } as never),
      );
    });
    const text = await readFile(path.join(store.dir, 's1.json'), 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('pw@');
    expect(text).not.toContain('abc123');
    expect(text).toContain('***');
    expect((await store.read('s1')).turns).toHaveLength(2);
  });

  it('a session whose JSON text holds nothing to redact is written without a walk of its strings', async () => {
    const secrets = new CountingSecrets();
    secrets.add(TOKEN);
    const store = await storeWith(secrets);
    const clean = session('s2', { title: 'a plain title', turns: [turn('t1', { content: 'a plain answer' })] });
    await store.create(clean);
    await store.update('s2', (s) => {
      s.turns.push(turn('t2', { content: 'another plain answer' }));
    });
    expect(secrets.calls).toBe(0);
    const text = await readFile(path.join(store.dir, 's2.json'), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ title: 'a plain title' });
    expect(text).toContain('another plain answer');
  });
});
