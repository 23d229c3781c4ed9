// `sessions search` and `sessions stats` on a terminal: the real CLI on a pseudo-terminal, drawn
// by a terminal emulator, over the fixed store of the search index's tests.
import { describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import { HAS_PTY, NO_PTY, onScreen, texts } from '../harness/screen.js';
import { searchSessions } from '../harness/search-store.js';
import { tempHome } from '../harness/temp-store.js';

async function fixedStore(): Promise<string> {
  const home = await tempHome();
  const store = openFileStore(home);
  for (const s of searchSessions()) await store.create(s);
  return home;
}

describe.skipIf(!HAS_PTY)(HAS_PTY ? 'search and stats on a terminal' : NO_PTY, () => {
  it('stats shows one aligned row per policy, an unknown cost said as such beside the known dollars', async () => {
    const home = await fixedStore();
    const r = await onScreen(['sessions', 'stats', '--by', 'policy'], { columns: 100, env: { NSED_HOME: home } })
      .result;
    expect(r.code, texts(r.rows).join('\n')).toBe(0);
    expect(r.rows.filter((row) => row.wrapped)).toEqual([]);
    expect(texts(r.rows).filter((t) => t.trim() !== '')).toEqual([
      'POLICY     SESSIONS  ANSWERS  TOKENS    COST       GATES P/F/I  CONVERGENCE  LEADER CHANGED',
      'nsed:deep  5         3        1810/520  $0.88      1/0/1        0.95         50% of 2',
      'nsed:fast  1         1        500/100   1 unknown  0/1/0        0.60         100% of 1',
    ]);
  });

  it('search shows its matches best first as ls shows sessions, and says when none matches', async () => {
    const home = await fixedStore();
    const r = await onScreen(['sessions', 'search', 'retry'], { columns: 100, env: { NSED_HOME: home } }).result;
    expect(r.code, texts(r.rows).join('\n')).toBe(0);
    const rows = texts(r.rows).filter((t) => t.trim() !== '');
    expect(rows[0]).toMatch(/^ID +TITLE +/);
    expect(rows.slice(1).map((t) => t.split(' ')[0])).toEqual(['s1', 's5', 's4', 's2']);
    const none = await onScreen(['sessions', 'search', 'nothing', 'like', 'this'], {
      columns: 100,
      env: { NSED_HOME: home },
    }).result;
    expect(none.code).toBe(0);
    expect(texts(none.rows).filter((t) => t.trim() !== '')).toEqual(['no session matches']);
  });
});
