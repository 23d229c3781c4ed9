import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { renderExport } from '../../src/output/export/formats.js';
import { reportOf } from '../../src/output/export/report-turn.js';
import { SUMMARY_LIMIT_BYTES, summaryMarkdown } from '../../src/output/export/summary.js';
import type { Turn } from '../../src/session/model.js';
import type { VerdictClaim } from '../../src/council/verdict.js';
import {
  candidate,
  claim,
  failingGate,
  fullVerdict,
  nullVerdict,
  passingGate,
  reportTurn,
  round,
  sessionWith,
} from './report-fixtures.js';

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

describe('the step summary (--summary, export --format summary)', () => {
  it('shows the outcome, the gate checks with ✓/✗, the verdict, question, answer, rounds, claims, injections and tool calls', () => {
    const md = summaryMarkdown(reportTurn(), fullVerdict(), failingGate);
    expect(md.split('\n')[0]).toBe('## nsed · ✗ gate failed');
    expect(md).toContain('session `20261201-abc` · job `job-42` · policy `nsed:deep`');
    expect(md).toContain('| `min-convergence` | convergence | ≥ 90% | 81% | ✗ fail |');
    expect(md).toContain('| `max-wrong` | wrong claims of the chosen proposal | ≤ 0 | 1 | ✗ fail |');
    expect(md).toContain('| `max-contested` | contested claims of the chosen proposal | ≤ 3 | 1 | ✓ pass |');
    expect(md).toContain('| `min-margin` | margin over the runner-up | ≥ 0.05 | not reported | ✗ inconclusive |');
    expect(md).toContain('- Chosen: **CortexA**, score 0.82 (from job complete)');
    expect(md).toContain('- Runner-up: CortexB, score 0.75');
    expect(md).toContain('- Margin: 0.07');
    expect(md).toContain('- Convergence: 81%, held for 1 final round');
    expect(md).toContain('- Rounds: 2 completed of 2 planned');
    expect(md).toContain(
      '- Claims of the chosen proposal: 1 wrong · 1 contested · 0 unverified · 0 unknown · 1 verified',
    );
    expect(md).toContain('- Dissent: CortexB');
    expect(md).toContain('> Is the migration plan safe?');
    expect(md).toContain('```sh\nmigrate --dry-run\n```');
    expect(md).toContain('| 1/2 | 62% | CortexA | 0.61 | 2 | 0 | 1 |');
    expect(md).toContain('| 2/2 | 81% | CortexA | 0.82 | 2 | 1 | 0 |');
    expect(md).toContain('#### ✗ wrong (1)\n\n- The table has no index — _it has one since v2_');
    expect(md).toContain('#### ⚠ contested (1)\n\n- Downtime is zero\n');
    expect(md).toContain('- round 1, #1: mind the rollback');
    expect(md).toContain('| `calculator` | `{"x":2}` | ok | 0 | 4 |');
    expect(md).not.toContain('Truncated');
  });

  it('shows who voted how: rendered as GitHub renders it, a ballot table with a row per evaluator, stand-ins marked', () => {
    const md = summaryMarkdown(reportTurn(), fullVerdict(), null);
    const html = new MarkdownIt({ html: false }).render(md);
    const section = html.slice(html.indexOf('<h3>Ballots of round 2</h3>'));
    const table = section.slice(0, section.indexOf('</table>')).replace(/\n/g, '');
    expect(table).toContain('<th>Evaluator</th><th>Stance</th><th>Score</th><th>Synthetic</th>');
    const rows = table.split('<tr>').slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('<td>CortexB</td><td>disagree</td><td>-0.20</td><td>no</td>');
    expect(rows[0]).toContain('<td>the index exists</td>');
    expect(rows[1]).toContain('<td>CortexC</td><td>agree</td><td>0.80</td><td>yes (a stand-in)</td>');
    expect(md).toContain('- Endorsed by: 0 of 1 real evaluators');
    expect(md).toContain('- Synthetic evaluations: 33% of the final round, 20% of all');
    expect(md).toContain('- Dissent: CortexB (disagree)');
  });

  it('says "not reported" for every verdict field the server did not report, never a guessed value', () => {
    const md = summaryMarkdown(reportTurn(), nullVerdict, null);
    expect(md.split('\n')[0]).toBe('## nsed · deliberation completed');
    expect(md).toContain('_No gates were set for this turn._');
    for (const line of [
      '- Chosen: not reported',
      '- Runner-up: not reported',
      '- Margin: not reported',
      '- Convergence: not reported',
      '- Rounds: not reported completed of not reported planned',
      '- Claims of the chosen proposal: not reported',
      '- Claims of all final candidates: not reported',
      '- Dissent: not reported',
      '- Final scores: not reported',
    ])
      expect(md).toContain(line);
    // Rounds still come from the record; their convergence was not reported.
    expect(md).toContain('| 1/2 | — | CortexA | 0.61 |');
    expect(md).toContain('### Claims of the chosen proposal\n\n_Not reported._');
  });

  it('without a recorded verdict it says so, and a passing or inconclusive gate has its own title', () => {
    expect(summaryMarkdown(reportTurn(), null, null)).toContain('_No verdict was recorded for this turn._');
    expect(summaryMarkdown(reportTurn(), fullVerdict(), passingGate).split('\n')[0]).toBe('## nsed · ✓ gates passed');
    const inconclusive = { status: 'inconclusive' as const, checks: [failingGate.checks[3]!] };
    expect(summaryMarkdown(reportTurn(), nullVerdict, inconclusive).split('\n')[0]).toBe(
      '## nsed · ✗ gate inconclusive',
    );
  });

  it('shows a failed turn as failed, with its error', () => {
    const md = summaryMarkdown(reportTurn({ status: 'failed', error: 'quorum lost' }), null, null);
    expect(md.split('\n')[0]).toBe('## nsed · ✗ deliberation failed');
    expect(md).toContain('> **failed:** quorum lost');
  });

  it('says no gate was judged for a turn that did not complete, never that none was set', () => {
    const failed = summaryMarkdown(reportTurn({ status: 'failed', error: 'quorum lost' }), null, null);
    expect(failed).toContain('### Gates\n\n_No gate was judged: the turn failed before an answer._\n');
    expect(failed).not.toContain('No gates were set');
    const cut = summaryMarkdown(reportTurn({ status: 'interrupted', error: 'reset' }), null, null);
    expect(cut).toContain('_No gate was judged: the turn was interrupted before an answer._');
  });

  it("escapes the answer's raw HTML as the rounds' and claims' is, leaving code as written", () => {
    const answer =
      'See <img src="https://tracker.example/p.png"> and `<kbd>`.\n\n```html\n<img src=x>\n```\n<script>x</script>';
    const md = summaryMarkdown(reportTurn({ answer }), null, null);
    expect(md).toContain('See &lt;img src="https://tracker.example/p.png"> and `<kbd>`.');
    expect(md).toContain('```html\n<img src=x>\n```\n&lt;script>x&lt;/script>');
  });

  it('cuts a very large question at its budget, says "Truncated" and closes the fence the cut left open', () => {
    const question = ['Review this:', '```ts', ...Array.from({ length: 5000 }, (_, i) => `const a${i} = ${i};`)].join(
      '\n',
    );
    const md = summaryMarkdown(reportTurn({ question }), null, null);
    const part = md.slice(md.indexOf('### Question'), md.indexOf('### Answer'));
    expect(part).toMatch(/\n> ```\n\n> \*\*Truncated:\*\* the question \(\d+ of 5002 lines left out\), to stay under/);
    expect(part).not.toContain('…');
    expect((part.match(/^> ```/gm) ?? []).length % 2).toBe(0);
    // One line longer than the whole budget is cut inside it, and says so.
    const long = summaryMarkdown(reportTurn({ question: `\`\`\`\n${'y'.repeat(100_000)}` }), null, null);
    expect(long).toContain('> ```\n> ```\n\n> **Truncated:** the question (1 of 2 lines left out)');
    const oneLine = summaryMarkdown(reportTurn({ question: 'z'.repeat(100_000) }), null, null);
    expect(oneLine).toContain('> **Truncated:** the question (cut inside its first line)');
  });

  it("puts the answer's own headings under its section, leaving fenced code as written", () => {
    const answer = '## Plan\n\n# Top\n\n###### Deep\n\n```md\n## not a heading\n```\n#hashtag';
    const md = summaryMarkdown(reportTurn({ answer }), null, null);
    expect(md).toContain(
      '### Answer\n\n#### Plan\n\n### Top\n\n###### Deep\n\n```md\n## not a heading\n```\n#hashtag\n',
    );
  });

  it('keeps server text on its line and out of the table: no raw HTML, no stray column', () => {
    const hostile = fullVerdict({ chosen: { agent: 'Evil|<img src=x>\nAgent', score: 1, source: 'last_round' } });
    const t = reportTurn({
      rounds: [round(1, 1, [candidate('A|B<script>', 0.5)])],
      toolCalls: [{ id: 'c', name: 'x|y', arguments: '{}\n| injected |', result: '<b>', status: 'ok' }],
    });
    const md = summaryMarkdown(t, hostile, null);
    expect(md).not.toMatch(/<(img|script|b)\b/);
    expect(md).toContain('| 1/1 | 62% | A\\|B&lt;script> | 0.50 |');
    expect(md).toContain('**Evil|&lt;img src=x> Agent**');
    expect(md).not.toContain('\n| injected |');
  });

  it("stays under GitHub's 1 MiB limit with a 200-round, 8-candidate session, and says what it cut", () => {
    const agents = Array.from({ length: 8 }, (_, i) => `Cortex${String.fromCharCode(65 + i)}`);
    const rounds = Array.from({ length: 200 }, (_, r) =>
      round(
        r + 1,
        200,
        agents.map((a, k) =>
          candidate(
            a,
            (k + r / 200) / 10,
            Array.from({ length: 6 }, (_, c) =>
              claim(`${a} claim ${c} `.repeat(20), c % 2 === 0 ? 'contested' : 'wrong', 'because '.repeat(20)),
            ),
          ),
        ),
      ),
    );
    const many = (n: number): VerdictClaim[] =>
      Array.from({ length: n }, (_, i) => ({ claim: `claim ${i} `.repeat(30), reason: 'reason '.repeat(30) }));
    const verdict = fullVerdict({
      rounds: { completed: 200, planned: 200 },
      convergence: {
        per_round: rounds.map((r) => ({ round: r.round, value: r.round / 200 })),
        final: 1,
        held: 1,
      },
      claims: {
        chosen: { verified: many(2000), contested: many(2000), unverified: [], wrong: many(2000), unknown: [] },
        chosen_counts: { verified: 2000, contested: 2000, unverified: 0, wrong: 2000, unknown: 0 },
        all_counts: { verified: 2000, contested: 2000, unverified: 0, wrong: 2000, unknown: 0 },
      },
    });
    const answer = Array.from({ length: 40_000 }, (_, i) => `line ${i} of a long answer ${'x'.repeat(40)}`);
    answer.splice(100, 0, '```text'); // a fence the cut falls inside
    const s = sessionWith({ content: answer.join('\n'), rounds, verdict, gate: failingGate } as Partial<Turn>);
    const md = renderExport('summary', s);
    expect(bytes(md)).toBeLessThanOrEqual(SUMMARY_LIMIT_BYTES);
    expect(md).toMatch(
      /> \*\*Truncated:\*\* the answer \(\d+ of 40001 lines left out\), to stay under GitHub's 1 MiB summary limit; the whole turn: `nsed sessions export 20261201-abc --format markdown`\./,
    );
    expect(md).toContain("> **Truncated:** the claims, to stay under GitHub's 1 MiB summary limit");
    // The fence the cut left open is closed before the rest of the summary.
    const afterAnswer = md.slice(md.indexOf('### Convergence by round'));
    const fences = md.slice(0, md.indexOf('### Convergence by round')).match(/^```/gm) ?? [];
    expect(fences.length % 2).toBe(0);
    // What matters most survives whole: the gates, the verdict and every round.
    expect(md).toContain('| `max-wrong` | wrong claims of the chosen proposal | ≤ 0 | 1 | ✗ fail |');
    expect(afterAnswer).toContain('| 200/200 | 100% | CortexH |');
    expect(afterAnswer.match(/^\| \d+\/200 \|/gm)).toHaveLength(200);
  });

  it('export --format summary reports the last answer, with the question it answers and its injections', () => {
    const s = sessionWith({ verdict: fullVerdict(), gate: passingGate } as Partial<Turn>, [
      {
        id: 'i1',
        role: 'user',
        kind: 'injection',
        content: 'focus',
        status: 'complete',
        ts: '',
        job_id: 'job-42',
        round: 2,
        sequence: 1,
      },
    ]);
    const r = reportOf(s);
    expect(r.turn.question).toBe('Is the migration plan safe?');
    expect(r.turn.injections).toEqual([{ message: 'focus', round: 2, sequence: 1 }]);
    expect(r.verdict?.chosen?.agent).toBe('CortexA');
    expect(r.gate?.status).toBe('pass');
    expect(renderExport('summary', s)).toContain('## nsed · ✓ gates passed');
  });

  it('reads no verdict from a record that does not hold a known version of it whole', () => {
    const s = sessionWith({ verdict: { v: 2, chosen: 'x' }, gate: 'pass' } as unknown as Partial<Turn>);
    expect(reportOf(s)).toMatchObject({ verdict: null, gate: null });
  });

  it('refuses a session without an answer (exit 3)', () => {
    const s = sessionWith();
    s.turns = s.turns.filter((t) => t.role === 'user');
    expect(() => reportOf(s)).toThrow(expect.objectContaining({ exitCode: 3 }));
  });
});
