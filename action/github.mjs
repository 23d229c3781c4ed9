// What the Action's comment and review steps (action/comment.mjs, action/review.mjs) share:
// requests to GitHub's REST API at $GITHUB_API_URL, bounded in time and in pages, the token only
// in the Authorization header; the step's outputs; warnings as workflow commands; the findings nsed
// wrote as rdjsonl; the event's pull request and head commit. The server is untrusted: every
// listing is read page by page up to a fixed number of pages, and only through Link headers that
// stay on the same API.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const env = process.env;
const REQUEST_TIMEOUT_MS = 30_000;

export const apiUrl = () => (env['GITHUB_API_URL'] || 'https://api.github.com').replace(/\/+$/, '');

/** The step's warning, one line (a warning, never a failure: the verdict is the nsed step's). */
export const warn = (title, message) =>
  process.stdout.write(`::warning title=${title}::${String(message).replace(/[\r\n]+/g, ' ')}\n`);

export { setOutput } from './step.mjs';

/** One request, bounded in time: the answer's JSON and its Link header, or an error naming the status. */
export async function api(method, url, token, body) {
  const res = await globalThis.fetch(url, {
    method,
    headers: {
      Accept: 'application/vnd.github+json',
      Authorization: `Bearer ${token}`,
      'X-GitHub-Api-Version': '2022-11-28',
      'User-Agent': 'nsed-action',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    redirect: 'error',
  });
  if (!res.ok) {
    // GitHub's own words (e.g. "Resource not accessible by integration") say which permission is missing.
    const said = await res
      .json()
      .then((j) => (typeof j?.message === 'string' ? `: ${j.message.slice(0, 200)}` : ''))
      .catch(() => '');
    throw Object.assign(new Error(`${method} ${new URL(url).pathname} answered ${res.status}${said}`), {
      status: res.status,
    });
  }
  return { json: res.status === 204 ? null : await res.json(), link: res.headers.get('link') ?? '' };
}

/**
 * Every item of a paged listing, following rel="next" on the same origin, `maxPages` pages at most;
 * `itemsOf` picks the list out of a page (a bare array, or e.g. `check_runs` of an object).
 */
export async function allPages(url, token, { maxPages, itemsOf = (json) => json }) {
  const items = [];
  let next = url;
  for (let page = 0; page < maxPages && next !== undefined; page++) {
    const { json, link } = await api('GET', next, token);
    const list = itemsOf(json);
    if (!Array.isArray(list)) throw new Error(`${new URL(next).pathname} did not answer a list`);
    items.push(...list);
    const found = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
    next = found !== undefined && new URL(found).origin === new URL(url).origin ? found : undefined;
  }
  return items;
}

/**
 * The login whose comments and reviews are this token's: GET /user's. An installation token (the
 * workflow's GITHUB_TOKEN) may not read /user (403); what it writes is github-actions[bot]'s.
 */
export async function ownLogin(token) {
  try {
    const { json } = await api('GET', `${apiUrl()}/user`, token);
    if (typeof json?.login === 'string' && json.login !== '') return json.login;
    throw new Error('GET /user named no login');
  } catch (err) {
    if (err?.status === 403) return 'github-actions[bot]';
    throw err;
  }
}

/** The workflow's event (pull_request, pull_request_target, push, …), or undefined when there is none to read. */
export function readEvent() {
  try {
    return JSON.parse(readFileSync(env['GITHUB_EVENT_PATH'] ?? '', 'utf8'));
  } catch {
    return undefined;
  }
}

/** OWNER/REPO of the run, or undefined when GITHUB_REPOSITORY is not one. */
export function repository() {
  const repo = env['GITHUB_REPOSITORY'] ?? '';
  return /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo) ? repo : undefined;
}

/**
 * The commit the findings are about: a pull request's head (GITHUB_SHA is its merge commit, or
 * for pull_request_target the base's), else GITHUB_SHA.
 */
export function headSha(event) {
  const head = event?.pull_request?.head?.sha;
  if (typeof head === 'string' && /^[0-9a-f]{40}$/.test(head)) return head;
  const sha = env['GITHUB_SHA'] ?? '';
  return /^[0-9a-f]{40}$/.test(sha) ? sha : undefined;
}

/** Longest message kept from a finding: nsed cuts them already; this holds for any file. */
const MAX_MESSAGE = 4000;

/**
 * The findings of nsed's rdjsonl file (`--rdjson`): path, lines, severity, code, message and the
 * first suggestion. A line that is not such a Diagnostic is skipped, and counted.
 */
export function readFindings(file) {
  const findings = [];
  let skipped = 0;
  const lineOf = (p) => (Number.isSafeInteger(p?.line) && p.line >= 1 ? p.line : undefined);
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    let d;
    try {
      d = JSON.parse(text);
    } catch {
      skipped++;
      continue;
    }
    const path = d?.location?.path;
    const start = lineOf(d?.location?.range?.start);
    const end = lineOf(d?.location?.range?.end) ?? start;
    const severity = { ERROR: 'error', WARNING: 'warning', INFO: 'notice' }[d?.severity];
    if (typeof path !== 'string' || path === '' || start === undefined || end < start || severity === undefined) {
      skipped++;
      continue;
    }
    if (typeof d.message !== 'string' || d.message.trim() === '') {
      skipped++;
      continue;
    }
    const s = Array.isArray(d.suggestions) ? d.suggestions[0] : undefined;
    const sStart = lineOf(s?.range?.start);
    const sEnd = lineOf(s?.range?.end) ?? sStart;
    findings.push({
      path,
      line: start,
      endLine: end,
      severity,
      code: typeof d.code?.value === 'string' ? d.code.value : `nsed ${severity}`,
      message: d.message.slice(0, MAX_MESSAGE),
      // Only a suggestion for exactly the finding's lines: anything else would replace lines it does not name.
      suggestion: typeof s?.text === 'string' && sStart === start && sEnd === end ? s.text : null,
    });
  }
  return { findings, skipped };
}

/** A finding's title, when the council gave one (the code of a finding without one is `nsed SEVERITY`). */
export const titleOf = (f) => (/^nsed (error|warning|notice)$/.test(f.code) ? null : f.code);

/**
 * A finding's identity across runs, as nsed's SARIF and Code Quality reports give it
 * (src/output/export/finding-identity.ts: the same hash of path, first line, check and message;
 * test/e2e/action-review.test.ts holds the two equal).
 */
export const fingerprintOf = (f) =>
  createHash('sha256')
    .update(JSON.stringify([f.path, f.line, f.code, f.message]))
    .digest('hex')
    .slice(0, 32);
