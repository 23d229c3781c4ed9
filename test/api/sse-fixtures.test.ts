import { describe, expect, it } from 'vitest';
import { fixtures, type Fixture } from './fixtures.js';
import { runPieces, type Outcome } from '../harness/scripted-server.js';

/** C1 (conformance) and C2 (split invariance) on the parser layer, which the socket loop drives unchanged. */

function summary(o: Outcome): { events: Outcome['events']; error?: { code: string; drop?: string } } {
  if (o.error === undefined) return { events: o.events };
  return {
    events: o.events,
    error: { code: o.error.code, ...(o.error.drop === undefined ? {} : { drop: o.error.drop }) },
  };
}

function expected(f: Fixture): ReturnType<typeof summary> {
  return f.error === undefined ? { events: f.events } : { events: f.events, error: f.error };
}

function bytewise(bytes: Uint8Array): Uint8Array[] {
  return Array.from(bytes, (_b, i) => bytes.subarray(i, i + 1));
}

// A small deterministic PRNG so the random splits are the same on every run.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('SSE fixtures (C1, C2)', () => {
  it('has at least twenty fixtures', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
  });

  for (const f of fixtures) {
    describe(f.name, () => {
      it('produces the expected events when fed whole', () => {
        expect(summary(runPieces([f.bytes]))).toEqual(expected(f));
      });

      it('produces the same events when fed one byte at a time', () => {
        expect(summary(runPieces(bytewise(f.bytes)))).toEqual(expected(f));
      });

      it('produces the same events when split at every byte position', () => {
        const want = expected(f);
        for (let cut = 0; cut <= f.bytes.length; cut++) {
          const got = summary(runPieces([f.bytes.subarray(0, cut), f.bytes.subarray(cut)]));
          if (JSON.stringify(got) !== JSON.stringify(want)) expect({ cut, got }).toEqual({ cut, got: want });
        }
      });

      it('produces the same events under 200 random splits', () => {
        const rand = lcg(f.bytes.length + 7);
        const want = JSON.stringify(expected(f));
        for (let run = 0; run < 200; run++) {
          const pieces: Uint8Array[] = [];
          let at = 0;
          while (at < f.bytes.length) {
            const len = 1 + Math.floor(rand() * 12);
            pieces.push(f.bytes.subarray(at, at + len));
            at += len;
          }
          const got = summary(runPieces(pieces));
          if (JSON.stringify(got) !== want) expect({ run, got }).toEqual({ run, got: JSON.parse(want) as unknown });
        }
      });
    });
  }

  it('never echoes a malformed payload in its message (reliability #17)', () => {
    const secret = 'do-not-echo-this-payload';
    const out = runPieces([new TextEncoder().encode(`data: {"content":"${secret}"\n\n`)]);
    expect(out.error?.message).toBe('malformed chunk at event 1 of the stream');
  });

  it('strips escape sequences from an in-stream error message (reliability #19, #78)', () => {
    const f = fixtures.find((x) => x.name.startsWith('an error chunk after text'));
    const out = runPieces([f?.bytes ?? new Uint8Array()]);
    expect(out.error?.message).toBe('the orchestrator reported: deliberation failed: boom');
    expect(out.error?.exitCode).toBe(5);
  });

  it('redacts the token from an in-stream error message (reliability #74)', () => {
    const token = 'canary-tok-4f1e9a';
    const out = runPieces([new TextEncoder().encode(`data: {"error":"bad key ${token} for Bearer ${token}"}\n\n`)], {
      token,
    });
    expect(out.error?.message).not.toContain(token);
    expect(out.error?.message).toContain('***');
  });

  it('refuses an event larger than the cap without buffering more (reliability #14)', () => {
    const big = new TextEncoder().encode(`data: ${'x'.repeat(5000)}`);
    const out = runPieces([big.subarray(0, 2000), big.subarray(2000)], { maxEventBytes: 4096 });
    expect(out.error).toMatchObject({ code: 'server', exitCode: 5 });
    expect(out.error?.message).toContain('4 KiB');
  });

  it('accepts a 5 MB event under the default cap (reliability #14)', () => {
    const content = 'y'.repeat(5 * 1024 * 1024);
    const bytes = new TextEncoder().encode(
      `data: {"choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\ndata: [DONE]\n\n`,
    );
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 65536) pieces.push(bytes.subarray(at, at + 65536));
    const out = runPieces(pieces);
    expect(out.error).toBeUndefined();
    expect(out.events[0]).toMatchObject({ type: 'text', index: 1 });
    expect(out.events[0]?.type === 'text' ? out.events[0].text.length : 0).toBe(content.length);
  });
});
