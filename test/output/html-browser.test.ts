// The HTML report in a real browser (Debian's chromium driven by playwright-core): it loads from
// file:// with no console error and no request but its own file, shows the rounds, candidates
// and chart lines the session holds, opens a proposal on click and from the keyboard, prints
// with every proposal open, and runs nothing a hostile server put in it. Screenshots (light and
// dark) go to the test's temporary folder and to /tmp/nsed-report.png, /tmp/nsed-report-dark.png.
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CouncilVerdict } from '../../src/council/verdict.js';
import { makeRig, type Rig } from '../harness/rig.js';
import { deliberationSession, HOSTILE } from './html-fixtures.js';
import { fullVerdict } from './report-fixtures.js';

/** Where .ci/run installs Debian's chromium (`apt-get install -y chromium`). */
const CHROMIUM = process.env['NSED_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser)
  console.warn(
    `skipping the HTML report browser tests: no chromium at ${CHROMIUM} (install it: apt-get install chromium)`,
  );

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let dir: string;
let rig: Rig;
let browser: BrowserContext;

beforeAll(async () => {
  if (!haveBrowser) return;
  dir = await mkdtemp(join(tmpdir(), 'nsed-html-browser-'));
  rig = await makeRig();
  // A new, empty profile: nothing cached or configured from another run can load or hide anything.
  browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
    viewport: { width: 1100, height: 1300 },
  });
});

afterAll(async () => {
  if (!haveBrowser) return;
  await browser?.close();
  await rig?.close();
  await rm(dir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  requests: string[];
  errors: string[];
  url: string;
}

/** Opens a report and records every request and every console error or uncaught exception. */
async function open(file: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Opened> {
  const page = await browser.newPage();
  await page.emulateMedia({ colorScheme });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const url = pathToFileURL(file).href;
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, errors, url };
}

/** The hand-built session, stored as a session file, exported by the real CLI. */
async function exported(name: string, opts: Parameters<typeof deliberationSession>[0]): Promise<string> {
  const s = deliberationSession(opts);
  s.id = `20261201-${name}`;
  await writeFile(join(rig.home, 'sessions', `${s.id}.json`), JSON.stringify(s));
  const file = join(dir, `${name}.html`);
  const r = await rig.run(['sessions', 'export', s.id, '--format', 'html', '--out', file]);
  expect(r.code, r.stderr).toBe(0);
  return file;
}

describe.skipIf(!haveBrowser)('the HTML report in chromium', () => {
  it('a run with --html: loads from file:// with no console error and no other request, and shows its rounds, candidates and chart lines', async () => {
    const file = join(dir, 'run.html');
    const r = await rig.run([
      'ask',
      '-o',
      'json',
      '--agents',
      'CortexA,CortexB,CortexC',
      '--rounds',
      '3',
      '--html',
      file,
      'Design a cache',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const verdict = (JSON.parse(r.stdout) as { verdict: CouncilVerdict }).verdict;
    const { page, requests, errors, url } = await open(file);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    const answer = page.locator('#answer');
    expect(await answer.locator('blockquote.question').innerText()).toBe('Design a cache');
    expect(await answer.locator('.answer h2').first().innerText()).toBe('Design a cache');
    const rounds = page.locator('details.round');
    expect(await rounds.count()).toBe(verdict.rounds.completed);
    // Only the last round is open: its candidates show, the earlier rounds' are collapsed.
    expect(await page.locator('details.round[open]').count()).toBe(1);
    expect(await page.locator('details.round[open] tr.candidate').count()).toBe(3);
    for (const agent of ['CortexA', 'CortexB', 'CortexC']) {
      const line = page.locator(`#answer svg.chart polyline[data-series="${agent}"]`);
      expect(await line.count()).toBe(1);
      expect(await line.isVisible()).toBe(true);
    }
    expect(await page.locator('#answer svg.chart polyline.chosen').getAttribute('data-series')).toBe(
      verdict.chosen?.agent,
    );
    expect(await page.locator('#answer svg.chart polyline[data-series="convergence"]').count()).toBe(
      (verdict.convergence.per_round?.length ?? 0) > 0 ? 1 : 0,
    );
    await page.close();
  });

  it('shows the ballots as an evaluator × proposal matrix: a cell per evaluation, coloured by stance, stand-ins marked synthetic', async () => {
    const s = deliberationSession({ rounds: 2, candidates: 2 });
    s.id = '20261201-ballots';
    const answer = s.turns.findLast((t) => t.role === 'assistant' && t.status === 'complete');
    if (answer === undefined) throw new Error('the fixture has no answer');
    (answer as unknown as Record<string, unknown>)['verdict'] = fullVerdict();
    await writeFile(join(rig.home, 'sessions', `${s.id}.json`), JSON.stringify(s));
    const file = join(dir, 'ballots.html');
    const r = await rig.run(['sessions', 'export', s.id, '--format', 'html', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const { page, errors, requests, url } = await open(file);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    const matrix = page.locator('#answer table.ballots');
    expect(await matrix.isVisible()).toBe(true);
    expect(await matrix.locator('thead th').allInnerTexts()).toEqual(['Evaluator / proposal', 'CortexA', 'CortexB']);
    expect(await matrix.locator('thead th.chosen').innerText()).toBe('CortexA');
    expect(await matrix.locator('tbody th').allInnerTexts()).toEqual(['CortexB', 'CortexC', 'CortexA']);
    // Three evaluations, three empty cells (nobody evaluates their own proposal here).
    expect(await matrix.locator('td.cell:not(.none)').count()).toBe(3);
    expect(await matrix.locator('td.cell.none').count()).toBe(3);
    expect(await matrix.locator('td.s-disagree').innerText()).toContain('disagree');
    const standIn = matrix.locator('td.synthetic');
    expect(await standIn.count()).toBe(1);
    expect(await standIn.getAttribute('title')).toBe('agree, synthetic');
    // Stances are told apart by colour as well as by word.
    type Styled = { getComputedStyle(el: unknown): { backgroundColor: string } };
    const bg = (sel: string): Promise<string> =>
      matrix.locator(sel).evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).backgroundColor);
    expect(await bg('td.s-disagree')).not.toBe(await bg('td.s-neutral'));
    expect(await page.locator('script').count()).toBe(0);
    await page.close();
  });

  it("shows what each answer cost and the session's total: reported, estimated from the agents' prices, and unknown as unknown, never $0 (reliability #250)", async () => {
    const asked = async (args: string[], faults: string[]): Promise<string> => {
      rig.sim.setFaults(faults);
      try {
        const r = await rig.run([...args, '-o', 'json']);
        expect(r.code, r.stderr).toBe(0);
        return (JSON.parse(r.stdout) as { session: string }).session;
      } finally {
        rig.sim.setFaults([]);
      }
    };
    const id = await asked(['ask', '-p', 'fast', 'Plan the database migration'], []);
    await asked(['continue', '-s', id, '-p', 'fast', 'Name the risks'], ['all:meter=tokens']);
    await asked(['continue', '-s', id, '-p', 'fast', 'Say what to test first'], ['all:meter=none']);
    const file = join(dir, 'usage.html');
    const r = await rig.run(['sessions', 'export', id, '--format', 'html', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const { page, errors, requests, url } = await open(file);
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    const total = page.locator('header.page .usage.total');
    expect(await total.isVisible()).toBe(true);
    expect(await total.innerText()).toMatch(
      /^cost at least \$0\.\d+ \(1 of 3 answers' cost unknown\) · [\d,]+ tokens in, [\d,]+ out$/,
    );
    expect(await page.locator('article.turn.assistant .usage').allInnerTexts()).toEqual([
      expect.stringMatching(/^cost \$0\.\d+ · [\d,]+ tokens in, [\d,]+ out$/),
      expect.stringMatching(/^cost \$0\.\d+ \(estimated\) · [\d,]+ tokens in, [\d,]+ out$/),
      'cost unknown · tokens not reported',
    ]);
    // The answer at the top is the last one: its cost is unknown, and says so.
    expect(await page.locator('#answer .usage').innerText()).toBe('cost unknown · tokens not reported');
    expect(await page.locator('body').innerText()).not.toMatch(/\$0(?:\.0*)?(?![.\d])/);
    await page.close();
  });

  it('opens a proposal on click and from the keyboard, and prints with every proposal open', async () => {
    const file = await exported('click', { rounds: 4, candidates: 3 });
    const { page, errors } = await open(file);
    const proposal = page.locator('details.round[open] details.proposal').first();
    const text = proposal.locator('div.text');
    expect(await text.isVisible()).toBe(false);
    await proposal.locator('summary').click();
    expect(await text.isVisible()).toBe(true);
    expect(await text.innerText()).toMatch(/^CortexA proposes, in round 4:/);
    // The keyboard: a summary takes the focus and Enter opens it.
    const second = page.locator('details.round[open] details.proposal').nth(1);
    await second.locator('summary').focus();
    await page.keyboard.press('Enter');
    expect(await second.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true);
    // Print: a closed round's proposals are shown too.
    const closed = page.locator('details.round:not([open]) details.proposal div.text').first();
    expect(await closed.isVisible()).toBe(false);
    await page.emulateMedia({ media: 'print' });
    expect(await closed.isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('runs nothing a hostile server sent: script tags, event handlers, javascript: links, SVG with script, a proposal closing its <details>', async () => {
    const file = await exported('hostile', { rounds: 3, candidates: 3, hostile: true });
    const { page, requests, errors, url } = await open(file);
    // Open every round, then move over and click everything a payload could hang on.
    const closed = page.locator('details.round:not([open]) > summary');
    for (let n = await closed.count(); n > 0; n--) await closed.first().click();
    for (const el of await page.locator('tr.candidate, .injection, .answer p').all()) await el.hover();
    for (const s of await page.locator('details.proposal > summary').all()) await s.click();
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    // The payloads are on the page as text, where a reader can see them.
    expect(await page.locator('#answer .answer').innerText()).toContain(HOSTILE.script);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.locator('script, img, iframe, object, embed, svg:not(.chart)').count()).toBe(0);
    // The proposal's "</details><script>" did not close anything: each round holds all its candidates.
    expect(await page.locator('details.round').count()).toBe(3);
    for (const round of await page.locator('details.round').all())
      expect(await round.locator('tr.candidate').count()).toBe(3);
    await page.close();
  });

  it('a 200-round, 8-candidate session opens, with one line per agent (load time reported); screenshots light and dark', async () => {
    const file = await exported('large', { rounds: 200, candidates: 8 });
    const started = performance.now();
    const { page, errors, requests, url } = await open(file);
    const loadMs = performance.now() - started;
    // The page's own navigation timing (the test has no DOM types: the expression runs in the page).
    const timing = await page.evaluate<number>(
      'Math.round(performance.getEntriesByType("navigation")[0]?.loadEventEnd ?? -1)',
    );
    console.log(
      `html report in chromium, 200 rounds x 8 candidates: page load ${timing} ms (goto ${loadMs.toFixed(0)} ms)`,
    );
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    expect(await page.locator('details.round').count()).toBe(200);
    expect(await page.locator('#answer svg.chart polyline[data-series^="Cortex"]').count()).toBe(8);
    await page.close();

    const small = await exported('shot', { rounds: 6, candidates: 4 });
    for (const scheme of ['light', 'dark'] as const) {
      const shown = await open(small, scheme);
      const shot = join(dir, `report-${scheme}.png`);
      await shown.page.screenshot({ path: shot, fullPage: true });
      await copyFile(shot, scheme === 'light' ? '/tmp/nsed-report.png' : '/tmp/nsed-report-dark.png');
      expect(shown.errors).toEqual([]);
      await shown.page.close();
    }
  });
});
