import type { CouncilVerdict, VerdictClaim } from '../council/verdict.js';
import type { FindingSeverity, PlacedFinding } from './findings.js';

/** At most this many `::error::` and as many `::warning::` lines: more would bury the log. */
export const ANNOTATION_CAP = 10;

/** A workflow command's message: GitHub reads `%`, CR and LF as its own syntax, so they are escaped. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A property value (`title=`) also ends at `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

const short = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

function claimCommands(
  kind: 'error' | 'warning',
  what: string,
  claims: readonly VerdictClaim[],
  agent: string,
): string[] {
  return claims.slice(0, ANNOTATION_CAP).map((c) => {
    const title = escapeProperty(short(`${what} claim of ${agent}`, 200));
    const message = c.reason === null ? c.claim : `${c.claim} — ${c.reason}`;
    return `::${kind} title=${title}::${escapeData(short(message, 2000))}\n`;
  });
}

/**
 * `--annotate`: GitHub workflow commands for stderr (README "CI"), an `::error::` for each wrong
 * claim and a `::warning::` for each contested one of the chosen proposal, at most
 * ANNOTATION_CAP of each, then one `::notice::` with the outcome and where the summary is.
 * `summary` names the summary file, or how to write one.
 */
export function workflowAnnotations(
  verdict: CouncilVerdict | null,
  summary: string,
  findings: readonly PlacedFinding[] = [],
): string {
  const chosen = verdict?.claims?.chosen ?? null;
  const agent = verdict?.chosen?.agent ?? 'the chosen agent';
  const wrong = chosen?.wrong ?? [];
  const contested = chosen?.contested ?? [];
  const lines = [
    ...findingCommands(findings),
    ...claimCommands('error', 'Wrong', wrong, agent),
    ...claimCommands('warning', 'Contested', contested, agent),
  ];
  const parts: string[] = [];
  if (verdict === null) parts.push('no verdict was recorded');
  else {
    parts.push(verdict.chosen === null ? 'no chosen proposal reported' : `${verdict.chosen.agent} chosen`);
    if (chosen === null) parts.push('claims not reported');
    else parts.push(`claims of the chosen proposal: ${wrong.length} wrong, ${contested.length} contested`);
  }
  if (findings.length > 0) parts.push(`${findings.length} finding${findings.length === 1 ? '' : 's'} on lines`);
  const bySeverity = (s: FindingSeverity): number => findings.filter((f) => f.severity === s).length;
  const left =
    Math.max(0, wrong.length - ANNOTATION_CAP) +
    Math.max(0, contested.length - ANNOTATION_CAP) +
    Math.max(0, bySeverity('error') - ANNOTATION_CAP) +
    Math.max(0, bySeverity('warning') - ANNOTATION_CAP) +
    Math.max(0, bySeverity('notice') - ANNOTATION_CAP);
  if (left > 0) parts.push(`${left} more not annotated`);
  parts.push(`summary: ${summary}`);
  lines.push(`::notice title=nsed council::${escapeData(short(parts.join(' · '), 2000))}\n`);
  return lines.join('');
}

/**
 * A finding where the code is: `::error file=src/a.ts,line=42,endLine=44,title=…::message`
 * (docs/ci.md "Findings on the changed lines"), its severity the command, at most ANNOTATION_CAP of
 * each. Only findings the workspace check placed reach here; every property is escaped, so a
 * path or title holding `,` `:` or a newline cannot add a property or a command.
 */
function findingCommands(findings: readonly PlacedFinding[]): string[] {
  const out: string[] = [];
  for (const severity of ['error', 'warning', 'notice'] as const)
    for (const f of findings.filter((x) => x.severity === severity).slice(0, ANNOTATION_CAP)) {
      const props = [`file=${escapeProperty(f.path)}`, `line=${f.line}`];
      if (f.endLine !== null && f.endLine !== f.line) props.push(`endLine=${f.endLine}`);
      if (f.title !== null) props.push(`title=${escapeProperty(short(f.title, 200))}`);
      out.push(`::${severity} ${props.join(',')}::${escapeData(short(f.message, 2000))}\n`);
    }
  return out;
}
