// The nsed GitHub Action's comment step (action.yml, `comment: true`): keeps ONE comment on the
// pull request the run belongs to, with the run's summary, updated in place on every run, re-run
// and new push. The comment is found by a hidden marker holding the comment's key (the repository,
// the pull request, the job, its matrix leg and the step, or the `comment-key` input; never the
// run, which each push changes), among the comments the token's own user wrote, through GitHub's
// REST API at $GITHUB_API_URL: GET /user, GET /repos/{owner}/{repo}/issues/{n}/comments (every
// page), then PATCH /repos/{owner}/{repo}/issues/comments/{id}, or POST a new one.
// The token is sent in the Authorization header and nowhere else: never printed, never written.
// A comment that cannot be written is a warning, not a failure: the verdict is the step's.
import { readFileSync } from 'node:fs';
import { api, apiUrl as githubApi, ownLogin, readEvent, setOutput, warn as stepWarning } from './github.mjs';

const env = process.env;
/** GitHub refuses a comment body over 65536 characters. */
const MAX_BODY = 65_536;
/** 100 comments a page; a pull request with more than 10 000 comments is searched no further. */
const MAX_PAGES = 100;

/** The marker: an HTML comment GitHub does not show, naming the key (whose characters cannot close it). */
const markerOf = (key) => `<!-- nsed-council key=${key.replace(/[^A-Za-z0-9._\-:/@+=#]/g, '_')} -->`;

/** The comment's body: the marker, then the summary, cut with a line saying so where GitHub's limit needs it. */
function bodyOf(marker, summary) {
  const head = `${marker}\n`;
  const cut = "\n\n*Truncated: the whole summary is in the run's step summary.*\n";
  if (head.length + summary.length <= MAX_BODY) return head + summary;
  return head + summary.slice(0, MAX_BODY - head.length - cut.length) + cut;
}

const warn = (message) => stepWarning('nsed comment', message);

/**
 * The key of the pull request's one comment: the `comment-key` input, else the repository, the
 * pull request, the job, its matrix leg and the step. Not the run: a re-run and a new push edit
 * the comment the first run wrote.
 */
function commentKey(repo, pr) {
  const own = env['NSED_COMMENT_KEY'] ?? '';
  if (own !== '') return own;
  const parts = [repo, `pull/${pr}`, env['GITHUB_JOB'] || 'job'];
  if ((env['NSED_COMMENT_LEG'] ?? '') !== '') parts.push(env['NSED_COMMENT_LEG']);
  parts.push(env['NSED_COMMENT_STEP'] || 'nsed');
  return parts.join(':');
}

/** The first comment of `login` carrying the marker, searching every page (by the Link header's rel="next"). */
async function findComment(base, issue, token, marker, login) {
  let url = `${base}/issues/${issue}/comments?per_page=100`;
  for (let page = 0; page < MAX_PAGES && url !== undefined; page++) {
    const { json, link } = await api('GET', url, token);
    if (!Array.isArray(json)) throw new Error('the comment listing is not a list');
    // Another author's comment may carry the marker too (quoted, or on purpose): never a candidate.
    const found = json.find(
      (c) =>
        c?.user?.login === login && typeof c?.body === 'string' && c.body.includes(marker) && Number.isInteger(c.id),
    );
    if (found !== undefined) return found;
    const next = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
    // Only pages of the same API: a Link header pointing elsewhere is not followed.
    url = next !== undefined && new URL(next).origin === new URL(base).origin ? next : undefined;
  }
  return undefined;
}

async function main() {
  const token = env['NSED_GITHUB_TOKEN'] ?? '';
  const repo = env['GITHUB_REPOSITORY'] ?? '';
  const apiUrl = githubApi();
  const event = readEvent();
  const pr = event?.pull_request?.number;
  if (!Number.isInteger(pr)) {
    process.stdout.write('nsed: not a pull request run: no comment to keep\n');
    return;
  }
  if (token === '') return warn('no github-token: the pull request gets no comment');
  if (!/^[^/\s]+\/[^/\s]+$/.test(repo)) return warn('GITHUB_REPOSITORY is not OWNER/REPO: no comment');
  const base = `${apiUrl}/repos/${repo}`;
  const marker = markerOf(commentKey(repo, pr));
  const body = bodyOf(marker, readFileSync(env['NSED_SUMMARY_FILE'] ?? '', 'utf8'));
  const found = await findComment(base, pr, token, marker, await ownLogin(token));
  let comment;
  if (found !== undefined) {
    try {
      comment = (await api('PATCH', `${base}/issues/comments/${found.id}`, token, { body })).json;
      process.stdout.write(`nsed: updated comment ${found.id} on pull request #${pr}\n`);
    } catch (err) {
      // A comment of ours that can no longer be edited (locked, deleted meanwhile): make another.
      warn(`could not update comment ${found.id} (${err.message}); writing a new one`);
    }
  }
  if (comment === undefined) {
    comment = (await api('POST', `${base}/issues/${pr}/comments`, token, { body })).json;
    process.stdout.write(`nsed: commented on pull request #${pr}\n`);
  }
  if (Number.isInteger(comment?.id)) setOutput('comment-id', String(comment.id));
  if (typeof comment?.html_url === 'string') setOutput('comment-url', comment.html_url);
}

try {
  await main();
} catch (err) {
  warn(`the pull request comment was not written: ${err instanceof Error ? err.message : String(err)}`);
}
