import type { FindingSeverity, PlacedFinding } from '../findings.js';
import { findingCheck } from './finding-identity.js';

/** reviewdog's severities for the findings' (its Diagnostic format's Severity enum). */
const SEVERITY: Record<FindingSeverity, 'ERROR' | 'WARNING' | 'INFO'> = {
  error: 'ERROR',
  warning: 'WARNING',
  notice: 'INFO',
};

/**
 * The lines a finding covers as reviewdog's Range: positions without columns, which its format
 * reads line-wise with the end line included; one line is given as start alone.
 */
const rangeOf = (f: PlacedFinding): { start: { line: number }; end?: { line: number } } =>
  f.endLine === null || f.endLine === f.line
    ? { start: { line: f.line } }
    : { start: { line: f.line }, end: { line: f.endLine } };

/**
 * `--rdjson FILE` (docs/ci-review.md): reviewdog's Diagnostic Format as JSON lines (rdjsonl,
 * schemas/rdjson.schema.json), one Diagnostic per placed finding: its message, its place
 * (`location.path` relative to the workspace, `range` of its lines), its severity, nsed as the
 * source, what it checks as the code (its title, or `nsed SEVERITY`) and its suggestion, if
 * any, as the replacement of exactly its lines. Path, first line, code and message are what
 * finding-identity.ts fingerprints, so a reader of this file finds the same identity.
 */
export function rdjsonReport(findings: readonly PlacedFinding[]): string {
  return findings
    .map((f) => {
      const range = rangeOf(f);
      const diagnostic = {
        message: f.message,
        location: { path: f.path, range },
        severity: SEVERITY[f.severity],
        source: { name: 'nsed' },
        code: { value: findingCheck(f) },
        ...(f.suggestion === null
          ? {}
          : { suggestions: [{ range: { start: range.start, end: range.end ?? range.start }, text: f.suggestion }] }),
      };
      return `${JSON.stringify(diagnostic)}\n`;
    })
    .join('');
}
