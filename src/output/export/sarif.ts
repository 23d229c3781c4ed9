import { VERSION } from '../../version.js';
import type { CouncilVerdict, GateResult } from '../../council/verdict.js';
import type { FindingSeverity, PlacedFinding } from '../findings.js';
import { findingFingerprint, findingCheck } from './finding-identity.js';
import type { ReportTurn } from './report-turn.js';

/** SARIF's levels for the findings' severities. */
const LEVEL: Record<FindingSeverity, 'error' | 'warning' | 'note'> = {
  error: 'error',
  warning: 'warning',
  notice: 'note',
};

/** The one rule every finding reports under: a council's review. */
const RULE_ID = 'nsed/review';

/** A workspace path as a SARIF URI reference: each part percent-encoded, `/` kept. */
const uriOf = (p: string): string => p.split('/').map(encodeURIComponent).join('/');

/**
 * `--sarif FILE` (docs/ci.md "Findings on the changed lines"): SARIF 2.1.0 for code scanning. One
 * run, the tool named nsed with its version, one result per placed finding with its physical
 * location (a URI relative to the workspace, under `%SRCROOT%`, and the region of its lines),
 * its level from the severity and a fingerprint stable across runs; the verdict, the gate result
 * and the ids of the turn are the run's properties.
 */
export function sarifReport(
  turn: ReportTurn,
  verdict: CouncilVerdict | null,
  gate: GateResult | null,
  findings: readonly PlacedFinding[],
): string {
  const results = findings.map((f) => ({
    ruleId: RULE_ID,
    level: LEVEL[f.severity],
    message: { text: f.title === null ? f.message : `${f.title}: ${f.message}` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: uriOf(f.path), uriBaseId: '%SRCROOT%' },
          region: { startLine: f.line, ...(f.endLine === null ? {} : { endLine: f.endLine }) },
        },
      },
    ],
    partialFingerprints: { 'nsedFinding/v1': findingFingerprint(f) },
    properties: { severity: f.severity, check: findingCheck(f) },
  }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'nsed',
            version: VERSION,
            semanticVersion: VERSION,
            rules: [
              {
                id: RULE_ID,
                name: 'CouncilReview',
                shortDescription: { text: "A finding of an NSED council's review" },
                defaultConfiguration: { level: 'warning' },
              },
            ],
          },
        },
        results,
        properties: {
          session: turn.saved ? turn.session : null,
          turn: turn.turn,
          job_id: turn.jobId,
          policy: turn.policy,
          status: turn.status,
          verdict,
          gate,
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
