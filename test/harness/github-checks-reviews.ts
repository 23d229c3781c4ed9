// The part of the loopback GitHub stand-in (github-api.ts) that the Action's check-run and review
// steps use, in the shapes GitHub documents ("REST API endpoints for check runs", "... for pull
// request reviews", "... for pull request review comments", "List pull requests files"):
//   POST  /repos/{o}/{r}/check-runs                        201, the check run
//   PATCH /repos/{o}/{r}/check-runs/{id}                   200; its annotations are appended
//   GET   /repos/{o}/{r}/check-runs/{id}/annotations       paged
//   GET   /repos/{o}/{r}/commits/{ref}/check-runs?check_name=   {total_count, check_runs}
//   GET   /repos/{o}/{r}/pulls/{n}  (Accept: application/vnd.github.diff)   the diff, as text
//   GET   /repos/{o}/{r}/pulls/{n}/files                   paged, each with its `patch`
//   GET   /repos/{o}/{r}/pulls/{n}/comments                paged review comments
//   GET   /repos/{o}/{r}/pulls/{n}/reviews                 paged
//   POST  /repos/{o}/{r}/pulls/{n}/reviews                 200, the review; its comments listed
// and GitHub's refusals (422): more than 50 annotations in one request, an annotation or a
// conclusion of no documented shape, a review comment on a line outside the diff ("Pull request
// review thread line must be part of the diff") or spanning two hunks, an event of no such name.

export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface CheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  html_url: string;
  output: { title: string | null; summary: string | null; annotations_count: number };
  annotations: Annotation[];
}

export interface PullFile {
  filename: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  patch?: string;
}

export interface ReviewComment {
  id: number;
  pull_request_review_id: number;
  commit_id: string;
  path: string;
  line: number;
  side: string;
  start_line: number | null;
  start_side: string | null;
  body: string;
  user: { login: string; id: number; type: string };
}

export interface Review {
  id: number;
  user: { login: string; id: number; type: string };
  body: string;
  state: 'COMMENTED' | 'CHANGES_REQUESTED' | 'APPROVED';
  commit_id: string;
  html_url: string;
}

export interface ChecksAndReviews {
  checkRuns: CheckRun[];
  files: Map<number, PullFile[]>;
  reviewComments: Map<number, ReviewComment[]>;
  reviews: Map<number, Review[]>;
  /** The diff of each pull request, as GET .../pulls/{n} answers it in the diff media type. */
  diffs: Map<number, string>;
}

type Send = (status: number, json: unknown, headers?: Record<string, string>) => void;

/** A listing's page as GitHub pages it: `per_page` (30, at most 100), `page`, a Link header. */
export function paged(all: readonly unknown[], u: URL, origin: string, send: Send): void {
  const per = Math.min(100, Number(u.searchParams.get('per_page') ?? 30));
  const page = Number(u.searchParams.get('page') ?? 1);
  const last = Math.max(1, Math.ceil(all.length / per));
  const link = (p: number, rel: string): string => `<${origin}${u.pathname}?per_page=${per}&page=${p}>; rel="${rel}"`;
  const links = [
    ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
    ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : []),
  ];
  send(200, all.slice((page - 1) * per, page * per), links.length === 0 ? {} : { link: links.join(', ') });
}

/** The new side's lines each hunk of a patch shows (added or context), hunk by hunk. */
export function patchHunks(patch: string): Array<Set<number>> {
  const hunks: Array<Set<number>> = [];
  let lines: Set<number> | undefined;
  let right = 0;
  for (const text of patch.split('\n')) {
    const head = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (head !== null) {
      lines = new Set();
      hunks.push(lines);
      right = Number(head[1]);
    } else if (lines !== undefined && (text.startsWith('+') || text.startsWith(' '))) lines.add(right++);
  }
  return hunks;
}

const LEVELS = ['notice', 'warning', 'failure'];
const CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out'];

function annotationsOf(output: unknown): Annotation[] | string {
  const list = (output as { annotations?: unknown } | undefined)?.annotations ?? [];
  if (!Array.isArray(list)) return 'annotations is not an array';
  if (list.length > 50) return 'Only 50 annotations are allowed per request';
  for (const a of list as Array<Record<string, unknown>>)
    if (
      typeof a['path'] !== 'string' ||
      !Number.isInteger(a['start_line']) ||
      !Number.isInteger(a['end_line']) ||
      !LEVELS.includes(String(a['annotation_level'])) ||
      typeof a['message'] !== 'string'
    )
      return 'Invalid annotation';
  return list as Annotation[];
}

/**
 * Answers a request of these endpoints, and says whether it did. `bot` is the token's user
 * (what its reviews and comments are written as); `nextId` numbers what is made.
 */
export function checksAndReviews(
  state: ChecksAndReviews,
  ctx: { base: string; origin: string; repoUrl: string; bot: Review['user']; nextId: () => number },
): (
  method: string,
  u: URL,
  body: unknown,
  send: Send,
  raw: { accept: string; sendText: (status: number, text: string, type: string) => void },
) => boolean {
  return (method, u, body, send, raw) => {
    const p = u.pathname;
    const b = (body ?? {}) as Record<string, unknown>;
    const m = (re: string): RegExpExecArray | null => new RegExp(`^${ctx.base}${re}$`).exec(p);
    let at: RegExpExecArray | null;
    if (method === 'POST' && m('/check-runs') !== null) {
      const annotations = annotationsOf(b['output']);
      if (typeof annotations === 'string') return (send(422, { message: annotations }), true);
      if (typeof b['name'] !== 'string' || typeof b['head_sha'] !== 'string')
        return (send(422, { message: 'Invalid request.' }), true);
      if (b['conclusion'] !== undefined && !CONCLUSIONS.includes(String(b['conclusion'])))
        return (send(422, { message: 'Invalid conclusion' }), true);
      const id = ctx.nextId();
      const output = (b['output'] ?? {}) as { title?: string; summary?: string };
      const run: CheckRun = {
        id,
        name: b['name'],
        head_sha: b['head_sha'],
        status: String(b['status'] ?? 'queued'),
        conclusion: (b['conclusion'] as string | undefined) ?? null,
        html_url: `${ctx.repoUrl}/runs/${id}`,
        output: { title: output.title ?? null, summary: output.summary ?? null, annotations_count: annotations.length },
        annotations: [...annotations],
      };
      state.checkRuns.push(run);
      return (send(201, run), true);
    }
    if ((at = m('/check-runs/(\\d+)')) !== null && method === 'PATCH') {
      const run = state.checkRuns.find((r) => r.id === Number(at?.[1]));
      if (run === undefined) return (send(404, { message: 'Not Found' }), true);
      const annotations = annotationsOf(b['output']);
      if (typeof annotations === 'string') return (send(422, { message: annotations }), true);
      if (b['conclusion'] !== undefined && !CONCLUSIONS.includes(String(b['conclusion'])))
        return (send(422, { message: 'Invalid conclusion' }), true);
      if (typeof b['name'] === 'string') run.name = b['name'];
      if (typeof b['status'] === 'string') run.status = b['status'];
      if (typeof b['conclusion'] === 'string') run.conclusion = b['conclusion'];
      const output = b['output'] as { title?: string; summary?: string } | undefined;
      if (output?.title !== undefined) run.output.title = output.title;
      if (output?.summary !== undefined) run.output.summary = output.summary;
      // GitHub appends the annotations of each update to those the check run holds.
      run.annotations.push(...annotations);
      run.output.annotations_count = run.annotations.length;
      return (send(200, run), true);
    }
    if ((at = m('/check-runs/(\\d+)/annotations')) !== null && method === 'GET') {
      const run = state.checkRuns.find((r) => r.id === Number(at?.[1]));
      if (run === undefined) return (send(404, { message: 'Not Found' }), true);
      return (paged(run.annotations, u, ctx.origin, send), true);
    }
    if ((at = m('/commits/([^/]+)/check-runs')) !== null && method === 'GET') {
      const name = u.searchParams.get('check_name');
      const runs = state.checkRuns.filter((r) => r.head_sha === at?.[1] && (name === null || r.name === name));
      return (send(200, { total_count: runs.length, check_runs: runs.toReversed() }), true);
    }
    if ((at = m('/pulls/(\\d+)')) !== null && method === 'GET') {
      const diff = state.diffs.get(Number(at[1]));
      if (diff === undefined) return (send(404, { message: 'Not Found' }), true);
      if (raw.accept.includes('application/vnd.github.diff'))
        return (raw.sendText(200, diff, 'text/plain; charset=utf-8'), true);
      return (send(200, { number: Number(at[1]), url: `${ctx.origin}${p}`, state: 'open' }), true);
    }
    if ((at = m('/pulls/(\\d+)/files')) !== null && method === 'GET')
      return (paged(state.files.get(Number(at[1])) ?? [], u, ctx.origin, send), true);
    if ((at = m('/pulls/(\\d+)/comments')) !== null && method === 'GET')
      return (paged(state.reviewComments.get(Number(at[1])) ?? [], u, ctx.origin, send), true);
    if ((at = m('/pulls/(\\d+)/reviews')) !== null && method === 'GET')
      return (paged(state.reviews.get(Number(at[1])) ?? [], u, ctx.origin, send), true);
    if ((at = m('/pulls/(\\d+)/reviews')) !== null && method === 'POST') {
      const pr = Number(at[1]);
      const event = b['event'];
      const STATE = { COMMENT: 'COMMENTED', REQUEST_CHANGES: 'CHANGES_REQUESTED', APPROVE: 'APPROVED' } as const;
      if (typeof event !== 'string' || !(event in STATE))
        return (send(422, { message: 'Unprocessable Entity', errors: ['event is not valid'] }), true);
      const hunks = new Map((state.files.get(pr) ?? []).map((f) => [f.filename, patchHunks(f.patch ?? '')]));
      const asked = (b['comments'] ?? []) as Array<Record<string, unknown>>;
      for (const c of asked) {
        const line = Number(c['line']);
        const start = c['start_line'] === undefined ? line : Number(c['start_line']);
        const inOne = (hunks.get(String(c['path'])) ?? []).some((h) => h.has(start) && h.has(line));
        if (typeof c['body'] !== 'string' || start > line || !inOne)
          return (
            send(422, {
              message: 'Unprocessable Entity',
              errors: ['Pull request review thread line must be part of the diff'],
            }),
            true
          );
      }
      const id = ctx.nextId();
      const commit = String(b['commit_id'] ?? '');
      const review: Review = {
        id,
        user: ctx.bot,
        body: String(b['body'] ?? ''),
        state: STATE[event as keyof typeof STATE],
        commit_id: commit,
        html_url: `${ctx.repoUrl}/pull/${pr}#pullrequestreview-${id}`,
      };
      state.reviews.set(pr, [...(state.reviews.get(pr) ?? []), review]);
      const made = asked.map((c): ReviewComment => ({
        id: ctx.nextId(),
        pull_request_review_id: id,
        commit_id: commit,
        path: String(c['path']),
        line: Number(c['line']),
        side: String(c['side'] ?? 'RIGHT'),
        start_line: c['start_line'] === undefined ? null : Number(c['start_line']),
        start_side: c['start_side'] === undefined ? null : String(c['start_side']),
        body: String(c['body']),
        user: ctx.bot,
      }));
      state.reviewComments.set(pr, [...(state.reviewComments.get(pr) ?? []), ...made]);
      return (send(200, review), true);
    }
    return false;
  };
}
