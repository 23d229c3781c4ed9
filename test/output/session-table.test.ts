// `sessions ls` on a terminal of a given width (docs/reliability.md #165): one row per session,
// never wider than the terminal, as gh's tables are: titles cut first, then the least useful
// columns dropped; the id and the state always stay.
import { describe, expect, it } from 'vitest';
import { sessionTable } from '../../src/output/session-list.js';
import type { SessionSummary } from '../../src/session/index.js';
import { sumUsage } from '../../src/council/usage.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const session = (id: string, title: string, state: SessionSummary['state'] = 'ok'): SessionSummary => ({
  id,
  title,
  policy: 'nsed:deep',
  turns: 3,
  created: '2026-03-01T11:00:00Z',
  updated: '2026-03-01T11:57:00Z',
  state,
  usage: sumUsage([]),
});
const SESSIONS = [
  session('20260301-0a1b2c3d', 'Plan the database migration from the old cluster to the new one, keeping the API'),
  session('20260301-4e5f6a7b', 'Name the risks', 'interrupted'),
  session('20260301-8c9d0e1f', 'Schätze die Kosten für den Umzug der Datenbank auf den neuen Cluster'),
];
const rowsAt = (width?: number): string[] => sessionTable(SESSIONS, NOW, width).trimEnd().split('\n');

describe('the sessions table on a terminal', () => {
  it('without a width, keeps every column and titles up to 48 characters', () => {
    const rows = rowsAt();
    expect(rows[0]).toMatch(/^ID +TITLE +POLICY +TURNS +UPDATED +STATE$/);
    expect(rows[1]).toContain('Plan the database migration from the old cluste…');
  });

  for (const width of [120, 79, 60, 40, 30])
    it(`at ${width} columns, one row per session, none wider than the terminal, ids whole (reliability #165)`, () => {
      const rows = rowsAt(width);
      expect(rows).toHaveLength(1 + SESSIONS.length);
      for (const r of rows) expect([...r].length, r).toBeLessThanOrEqual(width);
      for (const [i, s] of SESSIONS.entries()) expect(rows[i + 1]?.startsWith(s.id)).toBe(true);
    });

  it('cuts the title to what the other columns leave, and keeps them all while a title of 10 fits', () => {
    const rows = rowsAt(79);
    expect(rows[0]).toMatch(/^ID +TITLE +POLICY +TURNS +UPDATED +STATE$/);
    expect(rows[1]).toMatch(/^20260301-0a1b2c3d {2}Plan the database… {2}nsed:deep {6}3 {2}3 min ago {2}ok$/);
    expect(rows[2]).toMatch(/interrupted$/);
  });

  it('on a narrow terminal drops POLICY, then TURNS, then UPDATED; the state column stays aligned', () => {
    const rows = rowsAt(40);
    expect(rows[0]).toMatch(/^ID +TITLE +STATE$/);
    const state = rows[0]?.indexOf('STATE') ?? -1;
    expect(rows.slice(1).map((r) => r.indexOf(r.endsWith('interrupted') ? 'interrupted' : 'ok'))).toEqual([
      state,
      state,
      state,
    ]);
    expect(rowsAt(53)[0]).toMatch(/^ID +TITLE +UPDATED +STATE$/);
    // Too narrow for a title of 10 beside the id and the state: the title gets what is left.
    expect(rows[1]).toBe('20260301-0a1b2c3d  Plan th…  ok');
  });

  it('leaves a table that fits alone', () => {
    const one = [session('20260301-0a1b2c3d', 'Short')];
    expect(sessionTable(one, NOW, 200)).toBe(sessionTable(one, NOW));
  });
});
