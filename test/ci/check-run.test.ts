// The one rule for a check run's conclusion, where its commit and token come from, and its text
// (src/ci/check-run.ts); the requests themselves are proved against the GitHub stand-in in
// test/e2e/action-check-run.test.ts.
import { describe, expect, it } from 'vitest';
import { checkRunConclusion, checkRunSummary, checkRunTarget, MAX_ANNOTATIONS } from '../../src/ci/check-run.js';
import { ExitCode } from '../../src/errors.js';

const HEAD = 'a'.repeat(40);
const MERGE = 'f'.repeat(40);
const ENV = { GITHUB_TOKEN: 'ghs_x', GITHUB_REPOSITORY: 'acme/widgets', GITHUB_SHA: MERGE };

describe('the check run conclusion (reliability #320)', () => {
  it.each([
    ['success', ExitCode.ok, 'pass'],
    ['success', ExitCode.ok, 'none'],
    ['failure', ExitCode.gateFailed, 'fail'],
    ['neutral', ExitCode.inconclusive, 'inconclusive'],
    ['failure', ExitCode.usage, 'none'],
    ['failure', 130, 'none'],
  ])('is %s after exit %i with gate %s', (conclusion, exitCode, gate) => {
    expect(checkRunConclusion(exitCode, gate)).toBe(conclusion);
  });
});

describe('where the check run is written, from the environment only', () => {
  it("is the pull request's head from the event, not GITHUB_SHA, at api.github.com by default", () => {
    const event = JSON.stringify({ pull_request: { head: { sha: HEAD } } });
    expect(checkRunTarget(ENV, event)).toEqual({
      token: 'ghs_x',
      repo: 'acme/widgets',
      sha: HEAD,
      apiUrl: 'https://api.github.com',
    });
  });

  it('takes GH_TOKEN without GITHUB_TOKEN, GITHUB_SHA on a push, and GITHUB_API_URL without its trailing slash', () => {
    const env = { ...ENV, GITHUB_TOKEN: undefined, GH_TOKEN: 'gho_y', GITHUB_API_URL: 'https://ghe.example/api/v3/' };
    expect(checkRunTarget(env, JSON.stringify({ ref: 'refs/heads/main' }))).toEqual({
      token: 'gho_y',
      repo: 'acme/widgets',
      sha: MERGE,
      apiUrl: 'https://ghe.example/api/v3',
    });
  });

  it.each([
    [{ ...ENV, GITHUB_TOKEN: '' }, 'no GITHUB_TOKEN (or GH_TOKEN) in the environment'],
    [{ ...ENV, GITHUB_REPOSITORY: 'acme' }, 'GITHUB_REPOSITORY is not OWNER/REPO'],
    [{ ...ENV, GITHUB_SHA: 'main' }, 'no head commit: GITHUB_SHA is not a commit sha'],
    [{ ...ENV, GITHUB_API_URL: 'file:///etc' }, 'GITHUB_API_URL is not an http(s) URL'],
  ])('names what is missing: %j', (env, missing) => {
    expect(checkRunTarget(env, '{not json')).toEqual({ missing });
  });
});

describe("the check run's text", () => {
  it('counts the findings left out past the cap, and cuts a summary over 65535 characters', () => {
    expect(checkRunSummary('## nsed\n', 0)).toBe('## nsed\n');
    expect(checkRunSummary('', 0)).toBe('nsed wrote no summary.');
    expect(checkRunSummary('## nsed\n', 3)).toContain(
      `3 more findings not annotated: a check run holds ${MAX_ANNOTATIONS}`,
    );
    const long = checkRunSummary('x'.repeat(70_000), 1);
    expect(long.length).toBeLessThanOrEqual(65_535);
    expect(long).toContain('Truncated');
    expect(long).toContain('1 more finding not annotated');
  });
});

describe('GitHub is untrusted', () => {
  it('reads a check run that lists annotations without end 20 pages at most, never follows a link off the API, and is done', async () => {
    const { createServer } = await import('node:http');
    const { writeCheckRun } = await import('../../src/ci/check-run.js');
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
      const json = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      req.resume();
      if (req.url?.includes('/commits/'))
        // A next page on another host: never asked for.
        return json(
          200,
          { check_runs: [{ id: 7, name: 'nsed council', head_sha: HEAD }] },
          { link: '<http://203.0.113.1/elsewhere?page=2>; rel="next"' },
        );
      if (req.url?.includes('/annotations'))
        // Always one more page, on the same API.
        return json(200, [], {
          link: `<http://127.0.0.1:${port}/repos/acme/widgets/check-runs/7/annotations?page=9>; rel="next"`,
        });
      return json(200, { id: 7, html_url: 'https://github.test/runs/7' });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const written = await writeCheckRun(
        { token: 'ghs_x', repo: 'acme/widgets', sha: HEAD, apiUrl: `http://127.0.0.1:${port}` },
        { name: 'nsed council', conclusion: 'success', summary: '', findings: [], completedAt: '2026-01-01T00:00:00Z' },
      );
      expect(written).toMatchObject({ id: 7, updated: true, annotations: 0 });
      expect(seen.filter((s) => s.endsWith('/annotations'))).toHaveLength(20);
      expect(seen).toHaveLength(1 + 20 + 1);
      expect(seen.at(-1)).toBe('PATCH /repos/acme/widgets/check-runs/7');
    } finally {
      server.close();
    }
  });
});
