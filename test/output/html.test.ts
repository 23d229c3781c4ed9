// The HTML report (export --format html, --html FILE): what it shows of a session, that every
// server text in it stays text, and that a 200-round, 8-candidate session stays a usable size.
// The page in a real browser is test/output/html-browser.test.ts.
import { describe, expect, it } from 'vitest';
import { renderExport } from '../../src/output/export/formats.js';
import { REPORT_CSP, htmlReport } from '../../src/output/export/html.js';
import { deliberationSession } from './html-fixtures.js';

/** Size bound of the 200 x 8 page: what a browser opens at once and a CI artifact store keeps without fuss. */
const LARGE_LIMIT_BYTES = 8 * 1024 * 1024;

const count = (html: string, re: RegExp): number => html.match(re)?.length ?? 0;

describe('the HTML report', () => {
  it('is one self-contained page: the CSP meta tag, inline style, no script, no external URL to load', () => {
    const html = htmlReport(deliberationSession({ rounds: 3, candidates: 3 }));
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`);
    expect(REPORT_CSP).toContain("default-src 'none'");
    expect(REPORT_CSP).toContain('img-src data:');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    expect(html).not.toMatch(/\s(src|srcset|action)=/i);
    // The only absolute URL is the answer's own link, which is a link, never a load.
    expect(new Set([...html.matchAll(/https?:\/\/[^"'\s<]+/g)].map((m) => m[0]))).toEqual(
      new Set(['https://example.invalid/runbook']),
    );
    expect(renderExport('html', deliberationSession({ rounds: 3, candidates: 3 }))).toBe(html);
  });

  it('shows the question, the rendered answer, policy, job, times, the verdict and the gate checks', () => {
    const s = deliberationSession({ rounds: 3, candidates: 3 });
    const html = htmlReport(s);
    expect(html).toContain('<blockquote class="text question">Is the migration plan safe?</blockquote>');
    expect(html).toContain('<h2>The plan is safe</h2>');
    expect(html).toContain('<strong>rollback step</strong>');
    expect(html).toContain('<code class="language-sh">migrate --dry-run\n</code>');
    expect(html).toContain('<th>step</th>');
    expect(html).toContain('job <b class="mono">job-42</b>');
    expect(html).toContain('policy <b class="mono">nsed:deep</b>');
    expect(html).toContain('<time>2026-12-01T09:00:00.000Z</time>');
    expect(html).toContain('council <b>CortexA, CortexB, CortexC · 3 rounds</b>');
    const v = s.turns.at(-1)?.verdict;
    expect(v?.chosen?.agent).toBe('CortexA');
    expect(html).toContain('<dt>Chosen</dt><dd><b>CortexA</b>, score');
    expect(html).toContain(`<dt>Margin</dt><dd>${v?.margin?.toFixed(2)}</dd>`);
    expect(html).toContain(`<dt>Convergence</dt><dd>${Math.round((v?.convergence.final ?? 0) * 100)}%`);
    expect(html).toContain('<dt>Rounds</dt><dd>3 completed of 3 planned</dd>');
    expect(html).toMatch(
      /<dt>Claims of the chosen proposal<\/dt><dd><ul class="counts"><li class="badge v-wrong">\d+ wrong/,
    );
    expect(html).toContain('<h3>Gates: <span class="st-fail">fail</span></h3>');
    expect(html).toContain(
      '<td><code>max-wrong</code></td><td>wrong claims of the chosen proposal</td><td>≤ 0</td><td>1</td><td class="st-fail">✗ fail</td>',
    );
  });

  it('draws the charts as inline SVG: one convergence line, one score line per agent with the chosen one marked', () => {
    const html = htmlReport(deliberationSession({ rounds: 5, candidates: 4 }));
    const featured = html.slice(html.indexOf('<section id="answer"'), html.indexOf('</section>'));
    expect(count(featured, /<polyline class="series s0" data-series="convergence"/g)).toBe(1);
    for (const agent of ['CortexA', 'CortexB', 'CortexC', 'CortexD'])
      expect(count(featured, new RegExp(`<polyline [^>]*data-series="${agent}"`, 'g'))).toBe(1);
    expect(featured).toMatch(/<polyline class="series s0 chosen" data-series="CortexA" points="(\S+,\S+ ){4}\S+,\S+">/);
    expect(featured).toContain('CortexA <span class="chosen-mark">★ chosen</span>');
  });

  it('shows each round: candidates by score with claims in verdict colours, the proposal collapsed, only the last round open', () => {
    const html = htmlReport(deliberationSession({ rounds: 3, candidates: 3 }));
    expect(count(html, /<details class="round" id="turn-5-round-\d+"/g)).toBe(3);
    expect(html).toContain('<details class="round" id="turn-5-round-3" open>');
    expect(html).toContain('<details class="round" id="turn-5-round-1">');
    expect(count(html, /<tr class="candidate"/g)).toBe(9);
    expect(count(html, /<details class="proposal">/g)).toBe(9);
    expect(html).not.toContain('<details class="proposal" open');
    expect(html).toMatch(
      /<li><span class="badge v-wrong">wrong<\/span> Cortex\w claim \d of round \d[^<]*<span class="reason">— checked/,
    );
    expect(html).toContain('<span class="badge v-verified">verified</span>');
    expect(html).toMatch(/<td>CortexA <span class="chosen-mark" title="chosen">★<\/span><\/td>/);
  });

  it('places an injection in the round it landed in, lists tool calls with their results, and shows a failed turn', () => {
    const html = htmlReport(deliberationSession({ rounds: 3, candidates: 2 }));
    const round2 = html.slice(html.indexOf('id="turn-5-round-2"'), html.indexOf('id="turn-5-round-3"'));
    expect(round2).toContain('1 injection');
    expect(round2).toContain('<span class="badge">injected #1</span> <span class="text">mind the rollback</span>');
    expect(html).toContain('<h3>4. Injection (round 2, #1) </h3>');
    expect(html).toMatch(
      /<tr class="tool"><td><code>calculator<\/code><\/td><td><pre>\{&quot;expression&quot;:&quot;10000\*3&quot;\}<\/pre><\/td><td>ok<\/td><td class="num">0<\/td><td><pre>30000<\/pre><\/td><\/tr>/,
    );
    expect(html).toContain('<h3>2. Assistant <span class="badge st-failed">failed</span></h3>');
    expect(html).toContain('<p class="error">the deliberation failed at round 2: agent CortexB timed out</p>');
    // Every turn, in order.
    const order = [...html.matchAll(/<article class="turn (\w+)" id="turn-(\d+)">/g)].map((m) => `${m[2]}:${m[1]}`);
    expect(order).toEqual(['1:user', '2:assistant', '3:user', '4:injection', '5:assistant']);
  });

  it('keeps every hostile text as text: no tag, event handler, javascript: link or image survives', () => {
    const html = htmlReport(deliberationSession({ rounds: 2, candidates: 3, hostile: true }));
    const head = html.slice(0, html.indexOf('</style>'));
    expect(head).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img[\s>]|<svg>|<circle onload/i);
    expect(count(html, /<style[\s>]/g)).toBe(1);
    // No tag has an event handler (attribute values cannot hold a '"': it is escaped).
    expect(html.replace(/="[^"]*"/g, '=""')).not.toMatch(/<[^>]*\son\w+\s*=/i);
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toContain('</details></td></tr></table><script>');
    expect(html).toContain('&lt;script&gt;window.__pwned = 1;');
    expect(html).toContain('&lt;/details&gt;&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;window.__pwned = 6');
    // The javascript: link is refused by markdown-it's link check and stays its source text.
    expect(html).toContain('[click me](javascript:window.__pwned=3)');
    // An agent name that tries to leave its attribute stays inside it.
    expect(html).toContain('data-agent="CortexB&quot; onmouseover=&quot;window.__pwned = 7&quot; x=&quot;"');
    // Images are off: the tracker is a link to follow or not, never a request when the page opens.
    expect(html).toContain('<p>!<a href="http://127.0.0.1:9/pixel.png">tracker</a></p>');
    // The same number of elements as in the harmless session: nothing opened or closed early.
    const tags = (h: string): number => count(h, /<(details|table|tr|article|section)[\s>]/g);
    expect(tags(html)).toBe(tags(htmlReport(deliberationSession({ rounds: 2, candidates: 3 }))));
  });

  it('a 200-round, 8-candidate session stays under its size bound (size and render time reported)', () => {
    const s = deliberationSession({ rounds: 200, candidates: 8 });
    const started = performance.now();
    const html = htmlReport(s);
    const ms = performance.now() - started;
    const bytes = Buffer.byteLength(html, 'utf8');
    console.log(
      `html report, 200 rounds x 8 candidates: ${(bytes / 1024 / 1024).toFixed(2)} MiB, rendered in ${ms.toFixed(0)} ms`,
    );
    expect(bytes).toBeLessThan(LARGE_LIMIT_BYTES);
    expect(count(html, /<details class="round"/g)).toBe(200);
    expect(count(html, /<tr class="candidate"/g)).toBe(1600);
    // 200 rounds: no per-round dot on the lines but the chosen one's last point (the SVG stays small).
    const featured = html.slice(html.indexOf('<section id="answer"'), html.indexOf('</section>'));
    expect(count(featured, /<circle /g)).toBe(1);
  });

  it('a session without an answer still renders its turns', () => {
    const s = deliberationSession({ rounds: 1, candidates: 1 });
    s.turns = s.turns.slice(0, 1);
    const html = htmlReport(s);
    expect(html).toContain('This session has no answer yet.');
    expect(html).toContain('<article class="turn user" id="turn-1">');
  });
});
