// The nsed GitHub Action's review step (action.yml, `pr-review: true`): one pull-request review per
// head commit, with a comment on each finding nsed kept that lies inside the pull request's diff
// (GET /repos/{o}/{r}/pulls/{n}/files: the new side's lines of each patch hunk), a suggestion
// where the council gave a replacement of at most five lines, and a hidden fingerprint in each
// comment (the findings' identity across runs, as nsed's SARIF and Code Quality give it), so that a
// re-run or a new push posts only the findings not commented yet (GET .../pulls/{n}/comments) and
// says how many it kept. The event is COMMENT, never APPROVE: a council's review is advice; it is
// REQUEST_CHANGES only when `pr-review-request-changes` asks for it and the step failed or a
// finding in the diff is an error. Findings outside the diff stay in the step summary and the
// check run; paths nsed refused never reach the rdjsonl file this step reads. The token is sent in
// the Authorization header and nowhere else. A review that cannot be written is a warning.
import {
  allPages,
  api,
  apiUrl,
  fingerprintOf,
  headSha,
  ownLogin,
  readEvent,
  readFindings,
  repository,
  setOutput,
  titleOf,
  warn,
} from './github.mjs';

const env = process.env;
/** GitHub lists at most 3000 files of a pull request, 100 a page. */
const MAX_FILE_PAGES = 30;
/** Review comments and reviews read, 100 a page, at most this many pages each. */
const MAX_PAGES = 50;
/** Comments one review carries at most; the review's body counts the rest. */
const MAX_COMMENTS = 100;
/** A suggestion replaces at most this many lines: a longer one is a rewrite to read, not to click. */
const MAX_SUGGESTION_LINES = 5;
const REVIEW_MARKER = '<!-- nsed-review -->';
const fpMarker = (fp) => `<!-- nsed-finding fp=${fp} -->`;
/** The fingerprint a comment of ours ends with; only there: the council's text before it cannot add one. */
const FP_AT_END = /\n<!-- nsed-finding fp=([0-9a-f]{32}) -->$/;
const ICON = { error: '🛑', warning: '⚠️', notice: 'ℹ️' };

/**
 * The lines of the new side of each file a patch can hold a comment on, hunk by hunk: a line of
 * the file as changed that the diff shows (added, or context). A comment over several lines must
 * lie in one hunk.
 */
function hunksOf(patch) {
  const hunks = [];
  let lines;
  let right = 0;
  for (const text of String(patch).split('\n')) {
    const head = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (head !== null) {
      lines = new Set();
      hunks.push(lines);
      right = Number(head[1]);
    } else if (lines === undefined || text.startsWith('\\')) continue;
    else if (text.startsWith('-')) continue;
    else if (text.startsWith('+') || text.startsWith(' ')) lines.add(right++);
  }
  return hunks;
}

/** Text no code span of the council's can close: its own fence is longer than any run of backticks in it. */
const fenceFor = (text) => '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));

/** The council's text as comment text: it cannot forge a fingerprint or a marker (an HTML comment opening). */
const inert = (text) => text.replaceAll('<!--', '&lt;!--');

function commentBody(f, fp) {
  const title = titleOf(f);
  const head = `${ICON[f.severity]} **${f.severity}${title === null ? '' : `: ${inert(title)}`}**`;
  const parts = [head, '', inert(f.message)];
  if (f.suggestion !== null && f.endLine - f.line + 1 <= MAX_SUGGESTION_LINES) {
    const fence = fenceFor(f.suggestion);
    parts.push('', `${fence}suggestion`, f.suggestion, fence);
  }
  parts.push('', fpMarker(fp));
  return parts.join('\n');
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

async function main() {
  const token = env['NSED_GITHUB_TOKEN'] ?? '';
  const repo = repository();
  const event = readEvent();
  const pr = event?.pull_request?.number;
  if (!Number.isSafeInteger(pr)) {
    process.stdout.write('nsed: not a pull request run: no review to post\n');
    return;
  }
  const sha = headSha(event);
  if (token === '') return warn('nsed review', 'no github-token: the pull request gets no review');
  if (repo === undefined) return warn('nsed review', 'GITHUB_REPOSITORY is not OWNER/REPO: no review');
  if (sha === undefined) return warn('nsed review', 'the event names no head commit: no review');
  const base = `${apiUrl()}/repos/${repo}`;
  const rdjson = env['NSED_RDJSON_FILE'] ?? '';
  const read = rdjson === '' ? { findings: [], skipped: 0 } : readFindings(rdjson);
  if (read.skipped > 0) warn('nsed review', `${read.skipped} line(s) of ${rdjson} are no finding: skipped`);

  const files = await allPages(`${base}/pulls/${pr}/files?per_page=100`, token, { maxPages: MAX_FILE_PAGES });
  const diff = new Map();
  for (const f of files)
    if (typeof f?.filename === 'string' && f.status !== 'removed' && typeof f.patch === 'string')
      diff.set(f.filename, hunksOf(f.patch));
  const inDiff = (f) =>
    (diff.get(f.path) ?? []).some((hunk) => {
      for (let l = f.line; l <= f.endLine; l++) if (!hunk.has(l)) return false;
      return true;
    });

  const login = await ownLogin(token);
  const ours = (item) => item?.user?.login === login && typeof item?.body === 'string';
  const comments = await allPages(`${base}/pulls/${pr}/comments?per_page=100`, token, { maxPages: MAX_PAGES });
  const posted = new Set();
  for (const c of comments.filter(ours)) {
    const fp = FP_AT_END.exec(c.body)?.[1];
    if (fp !== undefined) posted.add(fp);
  }

  const onDiff = read.findings.filter(inDiff);
  const outside = read.findings.length - onDiff.length;
  const fresh = [];
  let kept = 0;
  const seen = new Set();
  for (const f of onDiff) {
    const fp = fingerprintOf(f);
    if (posted.has(fp)) kept++;
    else if (!seen.has(fp)) fresh.push({ f, fp });
    seen.add(fp);
  }
  const sent = fresh.slice(0, MAX_COMMENTS);

  const reviews = await allPages(`${base}/pulls/${pr}/reviews?per_page=100`, token, { maxPages: MAX_PAGES });
  const reviewed = reviews.some((r) => ours(r) && r.commit_id === sha && r.body.includes(REVIEW_MARKER));
  setOutput('review-comments', String(sent.length));
  setOutput('review-kept', String(kept));
  if (sent.length === 0 && reviewed) {
    process.stdout.write(
      `nsed: no new findings on the diff (${plural(kept, 'kept from an earlier review', 'kept from earlier reviews')}): no review posted\n`,
    );
    return;
  }
  const failed = (env['NSED_EXIT_CODE'] ?? '') !== '0';
  const request =
    ['true', 'yes', '1'].includes((env['NSED_REQUEST_CHANGES'] ?? '').toLowerCase()) &&
    (failed || onDiff.some((f) => f.severity === 'error'));
  const lines = [
    REVIEW_MARKER,
    `**nsed council**: ${plural(sent.length, 'new finding')} on the diff, ${plural(kept, 'finding')} kept from earlier reviews` +
      (outside > 0 ? `, ${plural(outside, 'finding')} outside the diff (in the step summary)` : '') +
      '.',
  ];
  if (fresh.length > sent.length)
    lines.push(
      `${plural(fresh.length - sent.length, 'more finding')} not commented here: a review holds ${MAX_COMMENTS}.`,
    );
  const review = (
    await api('POST', `${base}/pulls/${pr}/reviews`, token, {
      commit_id: sha,
      body: lines.join('\n'),
      event: request ? 'REQUEST_CHANGES' : 'COMMENT',
      comments: sent.map(({ f, fp }) => ({
        path: f.path,
        line: f.endLine,
        side: 'RIGHT',
        ...(f.endLine === f.line ? {} : { start_line: f.line, start_side: 'RIGHT' }),
        body: commentBody(f, fp),
      })),
    })
  ).json;
  process.stdout.write(
    `nsed: reviewed pull request #${pr}: ${plural(sent.length, 'new comment')}, ${plural(kept, 'finding')} kept, ${plural(outside, 'finding')} outside the diff\n`,
  );
  if (Number.isSafeInteger(review?.id)) setOutput('review-id', String(review.id));
  if (typeof review?.html_url === 'string') setOutput('review-url', review.html_url);
}

try {
  await main();
} catch (err) {
  warn('nsed review', `the pull request review was not written: ${err instanceof Error ? err.message : String(err)}`);
}
