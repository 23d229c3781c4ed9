import { statusOfEntry, type BatchEntry, type BatchReport } from './batch-report.js';
import { xml } from './junit.js';

type Problem = { kind: 'failure' | 'error' | 'skipped'; type: string; message: string; detail: string };

/** A failed gate check as the single-turn report words it: the check, what was expected, what came. */
function gateDetail(e: BatchEntry): string {
  if (typeof e.ended === 'string' || e.ended.gate === null) return '';
  return e.ended.gate.checks
    .filter((c) => c.status !== 'pass')
    .map((c) => `${c.name} ${c.expected}: ${c.actual === null ? 'not reported by the server' : `actual ${c.actual}`}`)
    .join('\n');
}

/**
 * The item's test case outcome (docs/reliability.md "Batches"): a gate that failed or was inconclusive and a
 * deliberation the orchestrator failed are failures; an item nsed could not run is an error; a
 * cancelled, interrupted or never-started item is skipped. An ok item passes.
 */
function problemOf(e: BatchEntry): Problem | undefined {
  if (e.ended === 'not-run')
    return { kind: 'skipped', type: 'not-run', message: 'not run: the batch stopped first', detail: '' };
  if (e.ended === 'interrupted')
    return { kind: 'skipped', type: 'interrupted', message: 'interrupted by a signal while it ran', detail: '' };
  const line = e.ended;
  const why = line.error?.message ?? line.status;
  switch (line.status) {
    case 'ok':
      return undefined;
    case 'cancelled':
      return { kind: 'skipped', type: 'cancelled', message: `cancelled: ${why}`, detail: '' };
    case 'skipped':
      return { kind: 'skipped', type: 'cost_cap', message: `skipped: ${why}`, detail: '' };
    case 'error':
      return { kind: 'error', type: line.error?.code ?? 'error', message: why, detail: why };
    case 'gate_failed':
    case 'inconclusive':
    case 'failed': {
      const detail = [why, gateDetail(e), line.session === null ? '' : `session: ${line.session}`]
        .filter((l) => l !== '')
        .join('\n');
      return { kind: 'failure', type: line.status, message: why, detail };
    }
  }
}

/**
 * `nsed batch --junit FILE`: the batch as one JUnit test suite with one test case per item (its
 * id the case's name, its deliberation's wall time the case's time), so the test reporters of
 * GitHub and GitLab list which items passed, failed or were skipped. The suite is named by
 * `--junit-name`, else for the batch file (`r.name`), never for the batch id that each fresh run
 * draws anew: the names are the same on every run, so trackers follow each item's test (README
 * "CI"). Valid by Jenkins' junit-10 schema: `skipped` only on `<testsuite>`.
 */
export function batchJunitXml(r: BatchReport): string {
  const cases = r.entries.map((e) => ({ e, problem: problemOf(e) }));
  const count = (kind: Problem['kind']): number => cases.filter((c) => c.problem?.kind === kind).length;
  const time = (ms: number | null): string => ((ms ?? 0) / 1000).toFixed(3);
  const counts = `tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}"`;
  // The JUnit schema's timestamp is a local date-time to the second: no zone, no fraction.
  const stamp = xml(r.started.replace(/(\.\d+)?Z$/, ''), 40);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="nsed batch" ${counts} time="${time(r.wallMs)}">`,
    `  <testsuite name="${xml(r.name ?? 'nsed batch', 300)}" ${counts} skipped="${count('skipped')}" time="${time(r.wallMs)}" timestamp="${stamp}">`,
    '    <properties>',
    `      <property name="batch" value="${xml(r.batch, 200)}"/>`,
    `      <property name="saved" value="${r.saved}"/>`,
    '    </properties>',
  ];
  for (const { e, problem } of cases) {
    const open = `    <testcase classname="nsed.batch" name="${xml(e.id, 300)}" time="${time(e.ms)}"`;
    const session = typeof e.ended === 'string' || e.ended.session === null ? undefined : e.ended.session;
    out.push(`${open}>`);
    if (problem !== undefined) {
      const attrs = `type="${xml(problem.type, 40)}" message="${xml(problem.message, 1000)}"`;
      out.push(
        problem.detail === ''
          ? `      <${problem.kind} ${attrs}/>`
          : `      <${problem.kind} ${attrs}>${xml(problem.detail)}</${problem.kind}>`,
      );
    }
    // Where to look further: the item's status and session, in the place every reader shows.
    const said = [`status: ${statusOfEntry(e)}`, ...(session === undefined ? [] : [`session: ${session}`])];
    out.push(`      <system-out>${xml(said.join('\n'), 400)}</system-out>`);
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}
