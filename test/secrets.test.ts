// What is redacted and how (docs/reliability.md #74, #88, #89): credential-shaped URL parts, the
// known tokens, text written in pieces, and documents string by string.
import { describe, expect, it } from 'vitest';
import {
  isCredentialName,
  mayRedactJson,
  redactCredentials,
  redactDeep,
  redactSecrets,
  redactUrl,
  Secrets,
} from '../src/secrets.js';

describe('credential-shaped URL parts (reliability #88)', () => {
  it('knows credential parameter names in their usual spellings, and leaves others alone', () => {
    for (const name of [
      'token',
      'access_token',
      'api_key',
      'apikey',
      'apiKey',
      'key',
      'auth',
      'sig',
      'X-Amz-Signature',
      'X-Amz-Security-Token',
      'password',
      'client_secret',
      'X-Goog-Credential',
      'api%5Fkey',
    ]) {
      expect(isCredentialName(name), name).toBe(true);
    }
    for (const name of ['page', 'region', 'monkey', 'design', 'session', 'q', 'keyboard_layout']) {
      expect(isCredentialName(name), name).toBe(false);
    }
  });

  it('replaces userinfo and credential parameter values by ***, keeping the rest of the URL', () => {
    expect(redactUrl('https://user:pw@host.example/v1?token=abc&region=eu#frag')).toBe(
      'https://***@host.example/v1?token=***&region=eu#frag',
    );
    expect(redactUrl('http://127.0.0.1:8080/?access_token=t0k;sig=zz&page=2')).toBe(
      'http://127.0.0.1:8080/?access_token=***;sig=***&page=2',
    );
    expect(redactUrl('http://127.0.0.1:8080/?token=')).toBe('http://127.0.0.1:8080/?token=');
    // Idempotent: redacting twice changes nothing more.
    const once = redactUrl('https://u@h/?key=1');
    expect(redactUrl(once)).toBe(once);
  });

  it('finds them in prose and in JSON text, and Bearer credentials too, but not the words', () => {
    expect(redactCredentials('see "https://h/x?api_key=SECRET" or Bearer abc.def')).toBe(
      'see "https://h/x?api_key=***" or Bearer ***',
    );
    expect(redactCredentials('sending the bearer token; a basic idea')).toBe('sending the bearer token; a basic idea');
  });
});

describe('known tokens (reliability #89)', () => {
  it('replaces every occurrence, also escaped inside a JSON string; a run does not search text for a token under 4 characters', () => {
    expect(redactSecrets('a tok"en b tok\\"en', 'tok"en')).toBe('a *** b ***');
    const secrets = new Secrets();
    secrets.add('abc');
    expect(secrets.redact('abc abc')).toBe('abc abc');
    secrets.add('  canary-1234\n');
    secrets.add(undefined);
    expect(secrets.redact('x canary-1234 y')).toBe('x *** y');
  });

  it('catches a token split across the pieces of a stream, at every split position', () => {
    const secrets = new Secrets();
    const token = 'canary-0123456789';
    secrets.add(token);
    const text = `before ${token} after https://h/?token=${token}x&n=1 and Bearer q.r-99\n`;
    for (let cut = 0; cut <= text.length; cut++) {
      for (const second of [cut, Math.min(text.length, cut + 5)]) {
        const r = secrets.streaming();
        const out = r.push(text.slice(0, cut)) + r.push(text.slice(cut, second)) + r.push(text.slice(second)) + r.end();
        expect(out, `cut at ${cut}/${second}`).toBe('before *** after https://h/?token=***&n=1 and Bearer ***\n');
      }
    }
  });

  it('holds back nothing that cannot start a secret: whole lines pass at once', () => {
    const secrets = new Secrets();
    secrets.add('canary-0123456789');
    const r = secrets.streaming();
    expect(r.push('round 1 of 3: CortexA leads\n')).toBe('round 1 of 3: CortexA leads\n');
    expect(r.push('thinking about cana')).toBe('thinking about ');
    expect(r.push('dian geese\n')).toBe('canadian geese\n');
    expect(r.end()).toBe('');
  });

  it("passes every terminal escape sequence through whole, at once: a spinner's `ESC[?2026h` is never cut at its `?` (reliability #165)", () => {
    const secrets = new Secrets();
    secrets.add('canary-0123456789');
    const r = secrets.streaming();
    for (const seq of [
      '\x1b[?2026h',
      '\x1b[?2026l',
      '\x1b[38;5;12m',
      '\x1b[1;2H',
      '\x1b]8;;https://h/?a=1\x07',
      '\x1b]0;c\x1b\\',
    ])
      expect(r.push(seq), JSON.stringify(seq)).toBe(seq);
    expect(r.push('frame\x1b[?2026l')).toBe('frame\x1b[?2026l');
    // What follows a sequence is judged on its own: an unfinished parameter there is still held.
    expect(r.push('\x1b[2mhttps://h/?token=ab')).toBe('\x1b[2mhttps://h/');
    expect(r.push('c1\x1b[22m\n')).toBe('?token=***\x1b[22m\n');
    expect(r.end()).toBe('');
  });

  it("ends a credential-shaped part at a control character: the escape after a parameter's value stays", () => {
    expect(redactCredentials('at https://h/?token=abc123\x1b[0m done')).toBe('at https://h/?token=***\x1b[0m done');
    expect(redactCredentials('\x1b[2mhttps://user:pw@h/\x1b[22m')).toBe('\x1b[2mhttps://***@h/\x1b[22m');
  });

  it('takes linear time on a long word: a scheme is looked for at word starts, not at every letter', () => {
    const long = 'x'.repeat(1_500_000);
    expect(redactCredentials(long)).toBe(long);
  });

  it('redacts a document string by string, a __proto__ key staying a key', () => {
    const doc = JSON.parse('{"a": ["x canary-1234", 3, null, {"__proto__": "canary-1234"}], "true": true}') as unknown;
    const out = redactDeep(doc, (t) => redactSecrets(t, 'canary-1234'));
    expect(JSON.stringify(out)).toBe('{"a":["x ***",3,null,{"__proto__":"***"}],"true":true}');
    expect(JSON.stringify(doc)).toContain('canary-1234');
  });

  it('redacts the keys of a document too, two keys that redact alike staying two entries', () => {
    const doc = { scores: { 'Cortex-canary-1234': 0.4, 'Cortex-***': 0.3, CortexA: 0.9 } };
    const out = redactDeep(doc, (t) => redactSecrets(t, 'canary-1234'));
    expect(out).toEqual({ scores: { 'Cortex-***': 0.4, 'Cortex-*** (2)': 0.3, CortexA: 0.9 } });
  });
});

describe('a document judged by its JSON text before it is walked (reliability #89)', () => {
  const TOKEN = 'canary-1234';
  // Strings in which the redaction finds something, each as JSON.stringify writes it and as a
  // hand-edited file may write it (escapes of characters JSON lets stand as themselves).
  const SECRET_STRINGS = [
    `x ${TOKEN} y`,
    `quote"${TOKEN}`,
    'Authorization: Bearer abc.def-123',
    'line one\nBearer\tzz9_yy8',
    '\tBasic  dXNlcjpwYXNz==',
    'see https://user:pw@example.com/path',
    'git+ssh://git@host/x',
    'https://h/x?api_key=abc&page=2',
    'a;token=zz',
    'prose with &access_token=v1 inside',
    '\x1b[2mhttps://u:p@h/\x1b[22m',
  ];
  const encodings = (text: string): string[] => {
    const plain = JSON.stringify(text);
    return [
      plain,
      plain.replaceAll('/', '\\/'),
      // Every letter written as \uXXXX, as a hand-edited file may hide it.
      `"${[...text].map((c) => (/[a-z]/.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : JSON.stringify(c).slice(1, -1))).join('')}"`,
    ];
  };

  it('never says a document holds nothing to redact when redacting it would change a string or a key', () => {
    let checked = 0;
    for (const text of SECRET_STRINGS) {
      for (const json of encodings(text)) {
        for (const doc of [`{"turns": [{"content": ${json}}]}`, `{${json}: 1}`, `[1, "a", ${json}]`]) {
          const value = JSON.parse(doc) as unknown;
          const redact = (t: string): string => redactSecrets(t, TOKEN);
          expect(redactDeep(value, redact), doc).not.toBe(value);
          expect(mayRedactJson(doc, [TOKEN]), doc).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBe(SECRET_STRINGS.length * 9);
  });

  it('says a session as nsed writes it holds nothing to redact, so it is not walked', () => {
    const session = {
      id: '20261130-3f9a2c1b',
      orchestrator: 'http://127.0.0.1:8080',
      turns: [
        { role: 'user', content: 'What is "basic" arithmetic?\nAnd a bearer bond?', ts: '2026-11-30T00:00:00.000Z' },
        { role: 'assistant', content: 'a = b is not\tcode; 2 + 2', verdict: { scores: { CortexA: 0.9 } } },
      ],
    };
    const json = `${JSON.stringify(session, null, 2)}\n`;
    expect(mayRedactJson(json, [TOKEN])).toBe(false);
    const secrets = new Secrets();
    secrets.add(TOKEN);
    const parsed = JSON.parse(json) as typeof session;
    expect(secrets.redactRecord(parsed, json)).toBe(parsed);
    // A string the reader added that the text does not hold is judged too (the id, from the file name).
    const renamed = { ...parsed, id: `x${TOKEN}` };
    expect(secrets.redactRecord(renamed, json, [renamed.id])).toEqual({ ...parsed, id: 'x***' });
  });

  it('walks a document whose text names the token, and redacts it as before', () => {
    const secrets = new Secrets();
    secrets.add(TOKEN);
    const json = JSON.stringify({ turns: [{ content: `said ${TOKEN}` }], [`k-${TOKEN}`]: 1 });
    expect(secrets.redactRecord(JSON.parse(json) as unknown, json)).toEqual({
      turns: [{ content: 'said ***' }],
      'k-***': 1,
    });
  });
});
