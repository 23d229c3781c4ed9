// The nsed GitHub Action's check-run step (action.yml, `check-run: NAME`): one check run named NAME
// on the head commit, its conclusion the verdict (success, failure, or neutral when the gate was
// inconclusive), its summary the step's summary, and every finding nsed kept as an annotation.
// A step's own annotations are capped by GitHub at 10 errors and 10 warnings; a check run's are
// not, but it takes them 50 a request: the first 50 with the POST that creates it (or the PATCH
// that updates it), the rest in PATCHes of 50 more, which GitHub appends. A re-run of the job finds
// the check run by name on the same commit (GET .../commits/{sha}/check-runs?check_name=NAME) and
// updates it, adding only the annotations it does not hold yet. Branch protection can require the
// check by its name. The token is sent in the Authorization header and nowhere else.
// A check run that cannot be written is a warning, not a failure: the verdict is the nsed step's.
import { readFileSync } from 'node:fs';
import {
  allPages,
  api,
  apiUrl,
  headSha,
  readEvent,
  readFindings,
  repository,
  setOutput,
  titleOf,
  warn,
} from './github.mjs';

const env = process.env;
/** GitHub takes at most 50 annotations a request. */
const BATCH = 50;
/** Annotations written at most (20 requests); the summary says how many more there were. */
const MAX_ANNOTATIONS = 1000;
/** GitHub refuses an output summary or text over 65535 characters. */
const MAX_SUMMARY = 65_535;
/** A check run's existing annotations, 100 a page, read at most this many pages. */
const MAX_PAGES = 20;
const LEVEL = { error: 'failure', warning: 'warning', notice: 'notice' };

/**
 * The check run's conclusion, from how the nsed step ended: success on exit 0, neutral when the
 * gate was inconclusive, failure otherwise (a failed gate, a failed deliberation, a usage error).
 */
function conclusionOf(exitCode, gate) {
  if (exitCode === '0') return 'success';
  if (gate === 'inconclusive') return 'neutral';
  return 'failure';
}

const TITLES = { success: 'passed', failure: 'failed', neutral: 'inconclusive' };

function summaryOf(file, notWritten) {
  let text;
  try {
    text = file === '' ? '' : readFileSync(file, 'utf8');
  } catch {
    // A summary nsed never wrote (it stopped before) leaves the conclusion and the annotations to say it.
    text = '';
  }
  const tail =
    notWritten > 0
      ? `\n\n*${notWritten} more finding${notWritten === 1 ? '' : 's'} not annotated: a check run holds ${MAX_ANNOTATIONS} at most here.*\n`
      : '';
  const cut = "\n\n*Truncated: the whole summary is in the run's step summary.*\n";
  if (text.length + tail.length <= MAX_SUMMARY) return (text === '' ? 'nsed wrote no summary.' : text) + tail;
  return text.slice(0, MAX_SUMMARY - tail.length - cut.length) + cut + tail;
}

const annotationOf = (f) => {
  const title = titleOf(f);
  return {
    path: f.path,
    start_line: f.line,
    end_line: f.endLine,
    annotation_level: LEVEL[f.severity],
    message: f.message,
    ...(title === null ? {} : { title: title.slice(0, 255) }),
  };
};

/** What makes two annotations the same one (GitHub returns what it was given, as these fields). */
const sameKey = (a) =>
  JSON.stringify([a.path, a.start_line, a.end_line, a.annotation_level, a.message, a.title ?? null]);

async function main() {
  const token = env['NSED_GITHUB_TOKEN'] ?? '';
  const name = (env['NSED_CHECK_RUN_NAME'] ?? '').trim();
  const repo = repository();
  const sha = headSha(readEvent());
  if (token === '') return warn('nsed check run', 'no github-token: no check run is written');
  if (repo === undefined) return warn('nsed check run', 'GITHUB_REPOSITORY is not OWNER/REPO: no check run');
  if (sha === undefined) return warn('nsed check run', 'no head commit (GITHUB_SHA) to write the check run on');
  const base = `${apiUrl()}/repos/${repo}`;
  const rdjson = env['NSED_RDJSON_FILE'] ?? '';
  const read = rdjson === '' ? { findings: [], skipped: 0 } : readFindings(rdjson);
  if (read.skipped > 0) warn('nsed check run', `${read.skipped} line(s) of ${rdjson} are no finding: skipped`);
  const all = read.findings.map(annotationOf);
  const annotations = all.slice(0, MAX_ANNOTATIONS);
  const conclusion = conclusionOf(env['NSED_EXIT_CODE'] ?? '', env['NSED_GATE'] ?? '');
  const count = `${all.length} finding${all.length === 1 ? '' : 's'}`;
  const output = {
    title: `nsed council ${TITLES[conclusion]}: ${count}`,
    summary: summaryOf(env['NSED_SUMMARY_FILE'] ?? '', all.length - annotations.length),
  };
  const done = { status: 'completed', conclusion, completed_at: new Date().toISOString() };

  const existing = await allPages(
    `${base}/commits/${sha}/check-runs?check_name=${encodeURIComponent(name)}&filter=latest&per_page=100`,
    token,
    { maxPages: 1, itemsOf: (json) => json?.check_runs },
  );
  const found = existing.find((c) => c?.name === name && c?.head_sha === sha && Number.isSafeInteger(c?.id));
  let run;
  let pending = annotations;
  if (found === undefined) {
    run = (
      await api('POST', `${base}/check-runs`, token, {
        name,
        head_sha: sha,
        ...done,
        output: { ...output, annotations: pending.slice(0, BATCH) },
      })
    ).json;
    pending = pending.slice(BATCH);
  } else {
    // A re-run: GitHub appends annotations to those the check run has, so only new ones are sent.
    const held = await allPages(`${base}/check-runs/${found.id}/annotations?per_page=100`, token, {
      maxPages: MAX_PAGES,
    });
    const heldKeys = new Set(held.map(sameKey));
    pending = pending.filter((a) => !heldKeys.has(sameKey(a)));
    run = (
      await api('PATCH', `${base}/check-runs/${found.id}`, token, {
        name,
        ...done,
        output: { ...output, annotations: pending.slice(0, BATCH) },
      })
    ).json;
    pending = pending.slice(BATCH);
  }
  const id = Number.isSafeInteger(run?.id) ? run.id : found?.id;
  if (!Number.isSafeInteger(id)) throw new Error('GitHub named no check run id');
  for (let i = 0; i < pending.length; i += BATCH)
    await api('PATCH', `${base}/check-runs/${id}`, token, {
      output: { ...output, annotations: pending.slice(i, i + BATCH) },
    });
  process.stdout.write(
    `nsed: ${found === undefined ? 'wrote' : 'updated'} check run "${name}" (${conclusion}, ${annotations.length} annotation${annotations.length === 1 ? '' : 's'})\n`,
  );
  setOutput('check-run-id', String(id));
  if (typeof run?.html_url === 'string') setOutput('check-run-url', run.html_url);
}

try {
  await main();
} catch (err) {
  warn('nsed check run', `the check run was not written: ${err instanceof Error ? err.message : String(err)}`);
}
