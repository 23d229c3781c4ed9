// One word per count: a turn's "contested" numbers differ by whose claims they count (the
// chosen proposal's, or all candidates'), so every line that shows one says which: the plain
// progress, the gate lines, the annotations, the step summary and the HTML page of one turn.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

const rig = useRig();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-count-words-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LABEL = /all (final )?candidates|chosen proposal/i;

/** The lines that show a number of contested claims with no words saying whose, each with its section heading. */
function unlabelled(text: string): string[] {
  const out: string[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (/^#{1,3} /.test(line)) section = line;
    // A claim's own annotation names no count.
    if (/^::warning title=Contested claim/.test(line)) continue;
    const counts = /\d+\s+contested|contested\D{0,40}\d/i.test(line);
    if (counts && !LABEL.test(line) && !LABEL.test(section)) out.push(line);
  }
  return out;
}

describe('one word per count', () => {
  it('every contested count of one turn says whose claims it counts: progress, gates, annotations, summary, HTML', async () => {
    const summary = join(dir, 'summary.md');
    const html = join(dir, 'report.html');
    const r = await rig.run([
      'ask',
      '-p',
      'deep',
      '-o',
      'final',
      '--progress',
      'plain',
      '--annotate',
      '--max-contested',
      '9',
      '--summary',
      summary,
      '--html',
      html,
      'Plan the migration of the orders table',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const md = await readFile(summary, 'utf8');
    // The turn has both kinds of count, and they differ: the words are what tell them apart.
    expect(r.stderr).toMatch(/all candidates: \d+ wrong, \d+ contested/);
    expect(r.stderr).toMatch(/\(contested claims of the chosen proposal\): actual \d+/);
    expect(md).toContain('Contested (all candidates)');
    expect(unlabelled(r.stderr)).toEqual([]);
    expect(unlabelled(md)).toEqual([]);
    const page = (await readFile(html, 'utf8')).replace(/<[^>]+>/g, '');
    expect(page).toMatch(/all candidates: \d+ wrong, \d+ contested/);
    expect(page).toContain('contested claims of the chosen proposal');
  });
});
