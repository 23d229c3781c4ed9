import { readFile } from 'node:fs/promises';
import { checkRunConclusion, checkRunTarget, writeCheckRun, type CheckConclusion } from '../../ci/check-run.js';
import type { Context } from '../../run/context.js';
import type { PlacedFinding } from '../../output/findings.js';
import type { StepOutputs } from '../../output/github-output.js';
import { oneLine } from '../../terminal/sanitize.js';

/** The event file is the runner's; anything bigger than this is no event to read a head sha from. */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * `--check-run NAME` once the turn ended (docs/ci-review.md "A check run"): the check run written
 * through src/ci/check-run.ts, one line on stderr saying so, and its `check-run-id` and
 * `check-run-url` step outputs. A missing environment or a refusal by GitHub is one warning line
 * (a workflow command under GitHub Actions) and no outputs: the run's own exit code is unchanged,
 * since the verdict is the run's, not the check run's. The GitHub token joins the run's secrets
 * before the first request, so no line ever shows it.
 */
export async function writeCheckRunReport(
  ctx: Context,
  name: string,
  err: { write(text: string): void },
  run: { exitCode: number; gate: string; summary: string; findings: readonly PlacedFinding[] },
): Promise<StepOutputs> {
  const actions = ctx.env['GITHUB_ACTIONS'] === 'true';
  const warn = (why: string): StepOutputs => {
    const text = ctx.secrets.redact(`the check run "${name}" was not written: ${why}`);
    err.write(
      actions ? `::warning title=nsed check run::${oneLine(text, 500)}\n` : `nsed: warning: ${oneLine(text, 500)}\n`,
    );
    return [];
  };
  const target = checkRunTarget(ctx.env, await readEvent(ctx.env['GITHUB_EVENT_PATH']));
  if ('missing' in target) return warn(target.missing);
  ctx.secrets.add(target.token);
  const conclusion: CheckConclusion = checkRunConclusion(run.exitCode, run.gate);
  try {
    const written = await writeCheckRun(target, {
      name,
      conclusion,
      summary: ctx.secrets.redact(run.summary),
      findings: run.findings.map((f) => ctx.secrets.redactValue(f)),
      completedAt: ctx.clock.now().toISOString(),
    });
    if (!ctx.io.quiet) {
      const n = `${written.annotations} annotation${written.annotations === 1 ? '' : 's'}`;
      const line = `nsed: ${written.updated ? 'updated' : 'wrote'} check run "${name}" (${conclusion}, ${n})`;
      err.write(`${oneLine(ctx.secrets.redact(line), 500)}\n`);
    }
    return [
      ['check-run-id', String(written.id)],
      ...(written.url === null ? [] : ([['check-run-url', written.url]] as const)),
    ];
  } catch (e) {
    return warn(e instanceof Error ? e.message : String(e));
  }
}

async function readEvent(file: string | undefined): Promise<string | undefined> {
  if (file === undefined || file === '') return undefined;
  try {
    const text = await readFile(file, 'utf8');
    return text.length > MAX_EVENT_BYTES ? undefined : text;
  } catch {
    // No event to read (a push outside Actions, a removed file): GITHUB_SHA is the commit.
    return undefined;
  }
}
