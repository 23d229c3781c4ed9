import { isMinimum, type CouncilVerdict, type GateCheck, type GateResult } from '../../council/verdict.js';
import { GATE_MEASURE } from '../gate-lines.js';
import { countsLine } from './summary.js';
import type { ReportTurn } from './report-turn.js';

/**
 * Characters XML 1.0 cannot carry at all, not even escaped (C0 controls but tab and newlines,
 * lone surrogates, U+FFFE/U+FFFF): a JUnit reader would reject the whole file for one of them.
 */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text for an attribute or an element: escaped, and what XML cannot hold becomes U+FFFD. */
export function xml(text: string, max = 4000): string {
  const cut = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return cut
    .replace(NOT_XML, '\uFFFD')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replaceAll('\r', '&#13;')
    .replaceAll('\n', '&#10;');
}

interface Case {
  name: string;
  /** `failure` (a check that failed) or `error` (the turn itself did not complete). */
  problem?: { kind: 'failure' | 'error'; type: string; message: string; detail: string };
}

/** `contested claims of the chosen proposal at most`: the gate lines' words (gate-lines.ts). */
const gateWords = (name: GateCheck['name']): string =>
  `${GATE_MEASURE[name]} ${isMinimum(name) ? 'at least' : 'at most'}`;

/** One test case per gate check; with no gates one for the turn; an error when it did not complete. */
function casesOf(t: ReportTurn, verdict: CouncilVerdict | null, gate: GateResult | null): Case[] {
  if (t.status !== 'complete') {
    const message = `the deliberation ended ${t.status}${t.error === null ? '' : `: ${t.error}`}`;
    return [{ name: 'deliberation', problem: { kind: 'error', type: t.status, message, detail: message } }];
  }
  // The same name whether the deliberation completed or not, so a tracker follows one test.
  if (gate === null || gate.checks.length === 0) return [{ name: 'deliberation' }];
  return gate.checks.map((c) => {
    const name = `${c.name} ${c.expected}`;
    if (c.status === 'pass') return { name };
    const actual = c.actual === null ? 'not reported by the server' : String(c.actual);
    const message =
      c.status === 'inconclusive'
        ? c.reason === 'synthetic_votes'
          ? `inconclusive: ${gateWords(c.name)} ${c.expected}, but the final round's evaluations were mostly synthetic stand-ins`
          : `inconclusive: ${gateWords(c.name)} ${c.expected}, but the server did not report the value`
        : `${gateWords(c.name)} ${c.expected}, actual ${actual}`;
    const detail = [
      message,
      `chosen: ${verdict?.chosen?.agent ?? 'not reported'}`,
      `claims of the chosen proposal: ${countsLine(verdict?.claims?.chosen_counts ?? null)}`,
    ].join('\n');
    return {
      name,
      problem: { kind: 'failure', type: c.status === 'fail' ? 'gate_failed' : 'inconclusive', message, detail },
    };
  });
}

/**
 * The suite's name: `--junit-name`, else the session's title (its question's first line), else
 * `nsed`. Never the session or job id, which change on every run: GitLab's test history, Jenkins'
 * trends and flakiness trackers key a test on its suite and case names (README "CI").
 */
export function suiteName(t: Pick<ReportTurn, 'title'>, junitName?: string): string {
  const name = junitName ?? t.title.trim();
  return name === '' ? 'nsed' : name;
}

/** What changes from run to run goes into `<properties>`: the ids, the policy, the verdict; unknown values are left out. */
function propertiesOf(t: ReportTurn, verdict: CouncilVerdict | null, gate: GateResult | null): Array<[string, string]> {
  const num = (n: number | null | undefined): string | null => (n === null || n === undefined ? null : String(n));
  return (
    [
      ['session', t.session],
      ['turn', t.turn],
      ['job', t.jobId],
      ['policy', t.policy],
      ['status', t.status],
      ['convergence', num(verdict?.convergence.final)],
      ['chosen', verdict?.chosen?.agent ?? null],
      ['chosen_score', num(verdict?.chosen?.score)],
      ['margin', num(verdict?.margin)],
      ['gate', gate === null || gate.checks.length === 0 ? null : gate.status],
      // What the answer cost (docs/ndjson.md §4d): `cost_source` says `unknown` when nobody
      // reported the dollars, and the figures nobody reported are left out, never 0.
      ['cost_usd', num(t.usage?.cost_usd)],
      ['cost_source', t.usage?.cost_source ?? null],
      ['input_tokens', num(t.usage?.input_tokens)],
      ['output_tokens', num(t.usage?.output_tokens)],
      // The session's answers together: the known dollars, and how many answers' cost is unknown.
      ['session_cost_usd', num(t.sessionUsage?.cost_usd)],
      ['session_answers', num(t.sessionUsage?.turns)],
      ['session_unknown_cost_answers', num(t.sessionUsage?.unknown_cost_turns)],
    ] as Array<[string, string | null]>
  ).filter((p): p is [string, string] => p[1] !== null);
}

/**
 * `--junit FILE` and `export --format junit`: the turn as a JUnit XML report, one test case per
 * gate check (README "CI"), so the test reporters of GitHub and GitLab list what the council's
 * verdict passed and failed. A turn that did not complete is an error, never a pass. Names are
 * stable across runs of the same job (`suiteName`; a case is named for its check), and the file
 * is valid by Jenkins' junit-10 schema (no `skipped` on `<testsuites>`) and GitLab's parser
 * (`testsuites` > `testsuite` > `testcase` with `failure`/`error` children).
 */
export function junitXml(
  t: ReportTurn,
  verdict: CouncilVerdict | null,
  gate: GateResult | null,
  junitName?: string,
): string {
  const cases = casesOf(t, verdict, gate);
  const failures = cases.filter((c) => c.problem?.kind === 'failure').length;
  const errors = cases.filter((c) => c.problem?.kind === 'error').length;
  const counts = `tests="${cases.length}" failures="${failures}" errors="${errors}"`;
  // The JUnit schema's timestamp is a local date-time to the second: no zone, no fraction.
  const stamp = t.ts === null ? '' : ` timestamp="${xml(t.ts.replace(/(\.\d+)?Z$/, ''), 40)}"`;
  const props = propertiesOf(t, verdict, gate);
  // The suite took the turn's time; its checks are judged in no time once the verdict is in.
  // An unknown time is 0 here only because the schema requires a number.
  const time = (t.seconds ?? 0).toFixed(3);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="nsed" ${counts} time="${time}">`,
    `  <testsuite name="${xml(suiteName(t, junitName), 300)}" ${counts} skipped="0" time="${time}"${stamp}>`,
    '    <properties>',
    ...props.map(([name, value]) => `      <property name="${name}" value="${xml(value, 300)}"/>`),
    '    </properties>',
  ];
  for (const c of cases) {
    const open = `    <testcase classname="nsed.council" name="${xml(c.name, 300)}" time="0"`;
    if (c.problem === undefined) {
      out.push(`${open}/>`);
      continue;
    }
    const p = c.problem;
    out.push(
      `${open}>`,
      `      <${p.kind} type="${xml(p.type, 40)}" message="${xml(p.message, 1000)}">${xml(p.detail)}</${p.kind}>`,
      '    </testcase>',
    );
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}
