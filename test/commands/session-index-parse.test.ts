import { describe, expect, it } from 'vitest';
import { search } from '../../src/commands/sessions/search.js';
import { stats } from '../../src/commands/sessions/stats.js';
import { parseCommandLine } from '../../src/commands/parse-step.js';
import { sinceIso } from '../../src/commands/shared/session-index.js';
import { NsedError } from '../../src/errors.js';
import { runCliInProcess } from '../harness/cli.js';
import { tempHome } from '../harness/temp-store.js';

const usage = (fn: () => unknown): NsedError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof NsedError) return err;
    throw err;
  }
  throw new Error('no error');
};

describe('sessions search, stats: what they accept', () => {
  it('search joins the words, maps --gate to the recorded status and the policy to its model string', () => {
    expect(
      parseCommandLine(search, { query: ['retry', 'budget'], gate: 'failed', policy: 'deep', json: false }).options,
    ).toEqual({
      query: 'retry budget',
      policy: 'nsed:deep',
      since: undefined,
      gate: 'fail',
      limit: undefined,
      json: false,
    });
  });

  it('refuses a query without a word, and a --since that is neither a date nor a span (exit 2)', () => {
    const empty = usage(() => parseCommandLine(search, { query: ['--', '!!'], json: false }).options);
    expect([empty.exitCode, empty.message]).toEqual([2, 'name the words to search for']);
    const many = usage(
      () => parseCommandLine(search, { query: Array.from({ length: 33 }, (_, i) => `w${i}`), json: false }).options,
    );
    expect([many.exitCode, many.message]).toEqual([2, 'the query has 33 different words; search takes at most 32']);
    const since = usage(() => parseCommandLine(stats, { since: 'yesterday', json: false }).options);
    expect(since.exitCode).toBe(2);
    expect(since.message).toBe("--since 'yesterday' is neither a date nor a span");
    expect(since.hint).toContain('7d');
  });

  it('reads --since as a day from midnight UTC, an ISO time, or a span back from now', () => {
    const now = new Date('2026-03-10T12:00:00.000Z');
    expect(sinceIso('2026-03-02', now)).toBe('2026-03-02T00:00:00.000Z');
    expect(sinceIso('2026-03-02T08:30:00+02:00', now)).toBe('2026-03-02T06:30:00.000Z');
    expect(sinceIso('7d', now)).toBe('2026-03-03T12:00:00.000Z');
    expect(sinceIso('12h', now)).toBe('2026-03-10T00:00:00.000Z');
  });

  it('says what was wrong on one line of stderr, with what to do, and exits 2', async () => {
    const r = await runCliInProcess(['sessions', 'stats', '--since', 'soon'], {
      env: { NO_COLOR: '1', NSED_HOME: await tempHome() },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^nsed: --since 'soon' is neither a date nor a span\n/);
  });

  it('prints an empty store as a row of nothing known: null figures, never 0 dollars', async () => {
    const r = await runCliInProcess(['sessions', 'stats', '--json'], {
      env: { NO_COLOR: '1', NSED_HOME: await tempHome() },
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({
        key: null,
        sessions: 0,
        cost_usd: null,
        input_tokens: null,
        convergence: { mean: null, sessions: 0 },
      }),
    ]);
  });

  it('prints one JSON line per row with -o ndjson', async () => {
    const r = await runCliInProcess(['-o', 'ndjson', 'sessions', 'stats'], {
      env: { NO_COLOR: '1', NSED_HOME: await tempHome() },
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines.map((l) => (JSON.parse(l) as { sessions: number }).sessions)).toEqual([0]);
  });
});
