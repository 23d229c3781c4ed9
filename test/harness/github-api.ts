// A loopback stand-in for the part of GitHub's REST API the Action's comment step uses, in the
// shapes GitHub documents ("REST API endpoints for issue comments"): the comments of an issue or
// pull request, paged (`per_page`, `page`, a `Link` header with rel="next"/"last"), created with
// POST (201) and edited with PATCH (200); GET /user, which an installation token such as the
// workflow's GITHUB_TOKEN may not read (403, "Resource not accessible by integration"), its
// comments being github-actions[bot]'s. A request without the expected bearer token is 401
// ("Bad credentials"); editing a comment another user wrote is 403. Every request is recorded.
// Check runs, pull request files, reviews and review comments: github-checks-reviews.ts.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checksAndReviews, type ChecksAndReviews } from './github-checks-reviews.js';

export interface Comment {
  id: number;
  node_id: string;
  url: string;
  html_url: string;
  issue_url: string;
  body: string;
  user: { login: string; id: number; type: string };
  author_association: string;
  created_at: string;
  updated_at: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  body: unknown;
}

export interface GithubApi {
  url: string;
  requests: RecordedRequest[];
  /** The comments of each issue number, oldest first. */
  comments: Map<number, Comment[]>;
  /** Adds a comment by someone else (not the token's user). */
  seed(issue: number, body: string, login?: string): Comment;
  /** Check runs, pull request files, reviews and review comments (github-checks-reviews.ts). */
  pulls: ChecksAndReviews;
  close(): Promise<void>;
}

const BOT = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };

export async function startGithubApi(opts: { owner: string; repo: string; token: string }): Promise<GithubApi> {
  const comments = new Map<number, Comment[]>();
  const requests: RecordedRequest[] = [];
  let nextId = 1_000;
  let url = '';
  const make = (issue: number, body: string, user: Comment['user']): Comment => {
    const id = nextId++;
    const now = new Date(Date.UTC(2026, 11, 1, 12, 0, id % 60)).toISOString().replace('.000', '');
    const c: Comment = {
      id,
      node_id: `IC_${id}`,
      url: `${url}/repos/${opts.owner}/${opts.repo}/issues/comments/${id}`,
      html_url: `https://github.com/${opts.owner}/${opts.repo}/pull/${issue}#issuecomment-${id}`,
      issue_url: `${url}/repos/${opts.owner}/${opts.repo}/issues/${issue}`,
      body,
      user,
      author_association: 'NONE',
      created_at: now,
      updated_at: now,
    };
    comments.set(issue, [...(comments.get(issue) ?? []), c]);
    return c;
  };
  const base = `/repos/${opts.owner}/${opts.repo}`;
  const pulls: ChecksAndReviews = {
    checkRuns: [],
    files: new Map(),
    reviewComments: new Map(),
    reviews: new Map(),
    diffs: new Map(),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const raw = await readBody(req);
      const body: unknown = raw === '' ? undefined : JSON.parse(raw);
      requests.push({
        method: req.method ?? '',
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        authorization: req.headers.authorization,
        body,
      });
      const send = (status: number, json: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        res.end(JSON.stringify(json));
      };
      if (req.headers.authorization !== `Bearer ${opts.token}`)
        return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
      if (u.pathname === '/user' && req.method === 'GET')
        return send(403, {
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest/users/users#get-the-authenticated-user',
          status: '403',
        });
      const list = new RegExp(`^${base}/issues/(\\d+)/comments$`).exec(u.pathname);
      const one = new RegExp(`^${base}/issues/comments/(\\d+)$`).exec(u.pathname);
      if (list !== null && req.method === 'GET') {
        const all = comments.get(Number(list[1])) ?? [];
        const per = Math.min(100, Number(u.searchParams.get('per_page') ?? 30));
        const page = Number(u.searchParams.get('page') ?? 1);
        const last = Math.max(1, Math.ceil(all.length / per));
        const link = (p: number, rel: string): string =>
          `<${url}${u.pathname}?per_page=${per}&page=${p}>; rel="${rel}"`;
        const links = [
          ...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []),
          ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : []),
        ];
        return send(200, all.slice((page - 1) * per, page * per), links.length === 0 ? {} : { link: links.join(', ') });
      }
      if (list !== null && req.method === 'POST') {
        const text = (body as { body?: unknown } | undefined)?.body;
        if (typeof text !== 'string') return send(422, { message: 'Invalid request.' });
        return send(201, make(Number(list[1]), text, BOT));
      }
      if (one !== null && req.method === 'PATCH') {
        const id = Number(one[1]);
        const c = [...comments.values()].flat().find((x) => x.id === id);
        if (c === undefined) return send(404, { message: 'Not Found' });
        if (c.user.login !== BOT.login) return send(403, { message: 'Resource not accessible by integration' });
        const text = (body as { body?: unknown } | undefined)?.body;
        if (typeof text !== 'string') return send(422, { message: 'Invalid request.' });
        c.body = text;
        c.updated_at = new Date(Date.UTC(2026, 11, 1, 13)).toISOString().replace('.000', '');
        return send(200, c);
      }
      const answered = checksAndReviews(pulls, {
        base,
        origin: url,
        repoUrl: `https://github.com/${opts.owner}/${opts.repo}`,
        bot: BOT,
        nextId: () => nextId++,
      })(req.method ?? '', u, body, send, {
        accept: req.headers.accept ?? '',
        sendText: (status, text, type) => {
          res.writeHead(status, { 'content-type': type });
          res.end(text);
        },
      });
      if (!answered) send(404, { message: 'Not Found' });
    })().catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    comments,
    pulls,
    seed: (issue, body, login = 'octocat') => make(issue, body, { login, id: 583231, type: 'User' }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
