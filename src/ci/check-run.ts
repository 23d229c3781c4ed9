// A GitHub check run of a run's findings (docs/ci-review.md "A check run"): one check run named
// NAME on the head commit, its conclusion the verdict (success, failure, or neutral when the gate
// was inconclusive), its text the run's summary, and every placed finding an annotation. A step's
// own annotations are capped by GitHub at 10 errors and 10 warnings; a check run's are not, but it
// takes them 50 a request: the first 50 with the POST that creates it (or the PATCH that updates
// it), the rest in PATCHes of 50 more, which GitHub appends. A re-run finds the check run by name
// on the same commit and updates it, sending only the annotations it does not hold yet. GitHub is
// untrusted: every request is bounded in time and in bytes, every listing in pages, and the token
// goes in the Authorization header and nowhere else (the caller redacts it from every message).
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { ExitCode } from '../errors.js';
import type { PlacedFinding } from '../output/findings.js';

export type CheckConclusion = 'success' | 'failure' | 'neutral';

/** GitHub takes at most 50 annotations a request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** Annotations written at most (20 requests); the summary says how many more there were. */
export const MAX_ANNOTATIONS = 1000;
/** GitHub refuses an output summary or text over 65535 characters. */
const MAX_SUMMARY = 65_535;
/** A check run's existing annotations, 100 a page, read at most this many pages. */
const MAX_PAGES = 20;
/** One request's bounds: connecting, the answer's headers, a pause in its body, and its size. */
const CONNECT_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * The one rule for a check run's conclusion, from how the run ended (its exit code, and `gate`:
 * pass, fail, inconclusive or none): a failed gate is failure; exit 0 is success; an inconclusive
 * gate (exit 13) is neutral; any other end (a failed deliberation, a usage error, a signal) is failure.
 */
export function checkRunConclusion(exitCode: number, gate: string): CheckConclusion {
  if (gate === 'fail') return 'failure';
  if (exitCode === ExitCode.ok) return 'success';
  if (exitCode === ExitCode.inconclusive) return 'neutral';
  return 'failure';
}

/** Where a check run is written, from the environment only (the token is never a flag). */
export interface CheckRunTarget {
  token: string;
  /** OWNER/REPO */
  repo: string;
  /** The head commit: a pull request's head, else GITHUB_SHA. */
  sha: string;
  /** GITHUB_API_URL without a trailing slash. */
  apiUrl: string;
}

const SHA = /^[0-9a-f]{40}$/;

/**
 * The target in the environment, or why there is none: GITHUB_TOKEN (or GH_TOKEN),
 * GITHUB_REPOSITORY, the pull request's head sha from the event at GITHUB_EVENT_PATH (GITHUB_SHA is
 * a pull request's merge commit) else GITHUB_SHA, GITHUB_API_URL (default https://api.github.com).
 * `event` is the event file's text, when there is one to read.
 */
export function checkRunTarget(
  env: Readonly<Record<string, string | undefined>>,
  event: string | undefined,
): CheckRunTarget | { missing: string } {
  const token = (env['GITHUB_TOKEN'] || env['GH_TOKEN'] || '').trim();
  if (token === '') return { missing: 'no GITHUB_TOKEN (or GH_TOKEN) in the environment' };
  const repo = env['GITHUB_REPOSITORY'] ?? '';
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) return { missing: 'GITHUB_REPOSITORY is not OWNER/REPO' };
  const sha = headShaOf(event) ?? (SHA.test(env['GITHUB_SHA'] ?? '') ? env['GITHUB_SHA'] : undefined);
  if (sha === undefined) return { missing: 'no head commit: GITHUB_SHA is not a commit sha' };
  const apiUrl = (env['GITHUB_API_URL'] || 'https://api.github.com').replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(apiUrl);
  } catch {
    return { missing: 'GITHUB_API_URL is not a URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return { missing: 'GITHUB_API_URL is not an http(s) URL' };
  return { token, repo, sha, apiUrl };
}

function headShaOf(event: string | undefined): string | undefined {
  if (event === undefined) return undefined;
  try {
    const head = (JSON.parse(event) as { pull_request?: { head?: { sha?: unknown } } } | null)?.pull_request?.head?.sha;
    return typeof head === 'string' && SHA.test(head) ? head : undefined;
  } catch {
    return undefined;
  }
}

export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure' | 'warning' | 'notice';
  message: string;
  title?: string;
}

const LEVEL = { error: 'failure', warning: 'warning', notice: 'notice' } as const;

export const annotationOf = (f: PlacedFinding): CheckAnnotation => ({
  path: f.path,
  start_line: f.line,
  end_line: f.endLine ?? f.line,
  annotation_level: LEVEL[f.severity],
  message: f.message,
  ...(f.title === null ? {} : { title: f.title.slice(0, 255) }),
});

/** What makes two annotations the same one (GitHub returns what it was given, as these fields). */
const sameKey = (a: Partial<CheckAnnotation> | null | undefined): string =>
  JSON.stringify([a?.path, a?.start_line, a?.end_line, a?.annotation_level, a?.message, a?.title ?? null]);

const TITLES: Record<CheckConclusion, string> = { success: 'passed', failure: 'failed', neutral: 'inconclusive' };

/** The check run's text: the summary, cut to GitHub's limit, saying how many findings were left out. */
export function checkRunSummary(text: string, notWritten: number): string {
  const tail =
    notWritten > 0
      ? `\n\n*${notWritten} more finding${notWritten === 1 ? '' : 's'} not annotated: a check run holds ${MAX_ANNOTATIONS} at most here.*\n`
      : '';
  const cut = "\n\n*Truncated: the whole summary is in the run's step summary.*\n";
  if (text.length + tail.length <= MAX_SUMMARY) return (text === '' ? 'nsed wrote no summary.' : text) + tail;
  return text.slice(0, MAX_SUMMARY - tail.length - cut.length) + cut + tail;
}

export interface CheckRunWrite {
  name: string;
  conclusion: CheckConclusion;
  /** The summary's markdown. */
  summary: string;
  findings: readonly PlacedFinding[];
  completedAt: string;
}

export interface CheckRunWritten {
  id: number;
  url: string | null;
  /** False when it was created, true when a re-run updated the one on the commit. */
  updated: boolean;
  conclusion: CheckConclusion;
  /** Annotations the check run holds for this run's findings. */
  annotations: number;
}

/** A request GitHub refused or answered with no JSON: its message names the request, never the token. */
export class GithubError extends Error {}

/** Writes (or on a re-run updates) the check run; throws a GithubError when GitHub refuses or answers nonsense. */
export async function writeCheckRun(target: CheckRunTarget, w: CheckRunWrite): Promise<CheckRunWritten> {
  const dispatcher = new EnvHttpProxyAgent({
    connect: { timeout: CONNECT_TIMEOUT_MS },
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  try {
    return await write(new Github(target, dispatcher), target, w);
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

async function write(gh: Github, target: CheckRunTarget, w: CheckRunWrite): Promise<CheckRunWritten> {
  const base = `/repos/${target.repo}`;
  const all = w.findings.map(annotationOf);
  const annotations = all.slice(0, MAX_ANNOTATIONS);
  const output = {
    title: `nsed council ${TITLES[w.conclusion]}: ${all.length} finding${all.length === 1 ? '' : 's'}`,
    summary: checkRunSummary(w.summary, all.length - annotations.length),
  };
  const done = { status: 'completed', conclusion: w.conclusion, completed_at: w.completedAt };
  const listed = await gh.pages(
    `${base}/commits/${target.sha}/check-runs?check_name=${encodeURIComponent(w.name)}&filter=latest&per_page=100`,
    1,
    (json) => (json as { check_runs?: unknown } | null)?.check_runs,
  );
  const found = (listed as Array<{ id?: unknown; name?: unknown; head_sha?: unknown } | null>).find(
    (c) => c?.name === w.name && c.head_sha === target.sha && Number.isSafeInteger(c.id),
  );
  const foundId = found?.id as number | undefined;
  let pending = annotations;
  let run: unknown;
  if (foundId === undefined) {
    run = await gh.send('POST', `${base}/check-runs`, {
      name: w.name,
      head_sha: target.sha,
      ...done,
      output: { ...output, annotations: pending.slice(0, ANNOTATIONS_PER_REQUEST) },
    });
  } else {
    // A re-run: GitHub appends annotations to those the check run has, so only new ones are sent.
    const held = await gh.pages(`${base}/check-runs/${foundId}/annotations?per_page=100`, MAX_PAGES, (j) => j);
    const heldKeys = new Set((held as Array<Partial<CheckAnnotation> | null>).map(sameKey));
    pending = pending.filter((a) => !heldKeys.has(sameKey(a)));
    run = await gh.send('PATCH', `${base}/check-runs/${foundId}`, {
      name: w.name,
      ...done,
      output: { ...output, annotations: pending.slice(0, ANNOTATIONS_PER_REQUEST) },
    });
  }
  pending = pending.slice(ANNOTATIONS_PER_REQUEST);
  const answered = run as { id?: unknown; html_url?: unknown } | null;
  const id = Number.isSafeInteger(answered?.id) ? (answered?.id as number) : foundId;
  if (id === undefined) throw new GithubError('GitHub named no check run id');
  for (let i = 0; i < pending.length; i += ANNOTATIONS_PER_REQUEST)
    await gh.send('PATCH', `${base}/check-runs/${id}`, {
      output: { ...output, annotations: pending.slice(i, i + ANNOTATIONS_PER_REQUEST) },
    });
  const url = typeof answered?.html_url === 'string' ? answered.html_url.slice(0, 2000) : null;
  return { id, url, updated: foundId !== undefined, conclusion: w.conclusion, annotations: annotations.length };
}

/** GitHub's REST API at one origin: bounded requests, the token only in the Authorization header. */
class Github {
  private readonly origin: string;
  private readonly prefix: string;

  constructor(
    private readonly target: CheckRunTarget,
    private readonly dispatcher: Dispatcher,
  ) {
    const u = new URL(target.apiUrl);
    this.origin = u.origin;
    this.prefix = u.pathname.replace(/\/+$/, '');
  }

  /** One request: its JSON and Link header, or a GithubError naming the method, path and status. */
  async request(method: string, path: string, body?: unknown): Promise<{ json: unknown; link: string }> {
    const where = `${method} ${path.split('?')[0] ?? path}`;
    let res: Dispatcher.ResponseData;
    try {
      res = await this.dispatcher.request({
        origin: this.origin,
        path,
        method: method as Dispatcher.HttpMethod,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${this.target.token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'nsed',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        maxRedirections: 0,
      } as Dispatcher.RequestOptions);
    } catch (e) {
      throw new GithubError(`${where} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    const text = await readBounded(res.body, where);
    let json: unknown = null;
    if (text.trim() !== '')
      try {
        json = JSON.parse(text);
      } catch {
        if (res.statusCode < 300) throw new GithubError(`${where} answered no JSON`);
      }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      // GitHub's own words (e.g. "Resource not accessible by integration") say which permission is missing.
      const said = (json as { message?: unknown } | null)?.message;
      throw new GithubError(
        `${where} answered ${res.statusCode}${typeof said === 'string' ? `: ${said.replace(/\s+/g, ' ').slice(0, 200)}` : ''}`,
      );
    }
    const link = res.headers['link'];
    return { json, link: typeof link === 'string' ? link : '' };
  }

  async send(method: string, path: string, body: unknown): Promise<unknown> {
    return (await this.request(method, `${this.prefix}${path}`, body)).json;
  }

  /** Every item of a listing, following rel="next" on the same origin, `maxPages` pages at most. */
  async pages(path: string, maxPages: number, itemsOf: (json: unknown) => unknown): Promise<unknown[]> {
    const items: unknown[] = [];
    let next: string | undefined = `${this.prefix}${path}`;
    for (let page = 0; page < maxPages && next !== undefined; page++) {
      const { json, link }: { json: unknown; link: string } = await this.request('GET', next);
      const list = itemsOf(json);
      if (!Array.isArray(list)) throw new GithubError(`GET ${next.split('?')[0] ?? next} did not answer a list`);
      items.push(...(list as unknown[]));
      next = this.sameOrigin(/<([^>]+)>;\s*rel="next"/.exec(link)?.[1]);
    }
    return items;
  }

  private sameOrigin(url: string | undefined): string | undefined {
    if (url === undefined) return undefined;
    try {
      const u = new URL(url, this.origin);
      return u.origin === this.origin ? `${u.pathname}${u.search}` : undefined;
    } catch {
      return undefined;
    }
  }
}

async function readBounded(body: Dispatcher.ResponseData['body'], where: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw new GithubError(`${where} answered more than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
