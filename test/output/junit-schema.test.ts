// The JUnit reports against the rules the trackers read them by: Jenkins' junit-10 schema
// (test/output/fixtures/junit-10.xsd, validated by libxml2's xmllint compiled to WebAssembly)
// and names that stay the same from run to run of the same job (README "CI").
import { describe, expect, it } from 'vitest';
import { batchJunitXml } from '../../src/output/export/batch-junit.js';
import type { BatchReport } from '../../src/output/export/batch-report.js';
import { junitXml } from '../../src/output/export/junit.js';
import { junitSchemaErrors } from '../harness/junit-schema.js';
import { failingGate, fullVerdict, nullVerdict, passingGate, reportTurn } from './report-fixtures.js';

const schemaErrors = junitSchemaErrors;

const batch = (over: Partial<BatchReport> = {}): BatchReport => ({
  batch: 'batch-0123456789ab',
  name: 'items.jsonl',
  saved: true,
  started: '2026-12-01T12:00:00.000Z',
  wallMs: 1_500,
  entries: [
    { id: 'ok-one', index: 0, ms: 700, ended: okLine('20261201-aaaa', 'job-1') },
    { id: 'stopped', index: 1, ms: null, ended: 'interrupted' },
    { id: 'later', index: 2, ms: null, ended: 'not-run' },
  ],
  ...over,
});

const okLine = (session: string, job: string) => ({
  session,
  job_id: job,
  status: 'ok' as const,
  exit_code: 0,
  verdict: fullVerdict(),
  gate: passingGate,
  error: null,
  usage: null,
});

describe('the JUnit reports by the junit-10 schema', () => {
  it('the schema itself refuses what Jenkins refuses: skipped on <testsuites>', async () => {
    const bad = junitXml(reportTurn(), fullVerdict(), null).replace(
      '<testsuites name="nsed"',
      '<testsuites skipped="0" name="nsed"',
    );
    expect((await schemaErrors(bad)).join('\n')).toMatch(/skipped.*not allowed/);
  });

  it('validates a turn: gates failed, passed, none, and a turn that did not complete', async () => {
    for (const xml of [
      junitXml(reportTurn(), fullVerdict(), failingGate),
      junitXml(reportTurn(), fullVerdict(), passingGate, 'council review'),
      junitXml(reportTurn(), nullVerdict, null),
      junitXml(reportTurn({ status: 'failed', error: 'quorum <lost>' }), null, null),
    ])
      expect(await schemaErrors(xml)).toEqual([]);
  });

  it('validates a batch with passed, interrupted and never-run items', async () => {
    expect(await schemaErrors(batchJunitXml(batch()))).toEqual([]);
  });
});

describe('JUnit names that trackers can follow', () => {
  /** The suite and case names, and the properties, of a report: what a tracker keys a test on, and what it shows. */
  const names = (xml: string): string[] =>
    [...xml.matchAll(/<(testsuites?|testcase)\b[^>]*?\sname="([^"]*)"/g)].map((m) => `${m[1]} ${m[2]}`);
  const property = (xml: string, name: string): string | undefined =>
    new RegExp(`<property name="${name}" value="([^"]*)"/>`).exec(xml)?.[1];

  it('names a turn the same on two runs of the same job; the ids that differ go to <properties>', () => {
    const first = junitXml(
      reportTurn({ session: '20261201-aaaa', jobId: 'oc-thread-1-100', turn: 't1' }),
      fullVerdict(),
      failingGate,
    );
    const second = junitXml(
      reportTurn({ session: '20261202-bbbb', jobId: 'oc-thread-2-200', turn: 't9' }),
      fullVerdict(),
      failingGate,
    );
    expect(names(first)).toEqual(names(second));
    expect(names(first)).toContain('testsuite Is the migration plan safe?');
    expect(names(first)).toContain('testcase max-wrong 0');
    expect([property(first, 'session'), property(first, 'job')]).toEqual(['20261201-aaaa', 'oc-thread-1-100']);
    expect([property(second, 'session'), property(second, 'job')]).toEqual(['20261202-bbbb', 'oc-thread-2-200']);
    expect(property(first, 'policy')).toBe('nsed:deep');
    expect(property(first, 'gate')).toBe('fail');
    expect(property(first, 'chosen')).toBe('CortexA');
  });

  it('takes the suite name from --junit-name, and keeps the case name whether the deliberation completed or not', () => {
    const done = junitXml(reportTurn(), fullVerdict(), null, 'review');
    const failed = junitXml(reportTurn({ status: 'failed', error: 'boom' }), null, null, 'review');
    expect(names(done)).toEqual(names(failed));
    expect(names(done)).toEqual(['testsuites nsed', 'testsuite review', 'testcase deliberation']);
  });

  it('names a batch for its file, never for the batch id a fresh run draws', () => {
    const first = batchJunitXml(batch());
    const second = batchJunitXml(
      batch({
        batch: 'batch-ffffffffffff',
        entries: batch().entries.map((e) => ({ ...e, ended: e.ended === 'interrupted' ? 'not-run' : e.ended })),
      }),
    );
    expect(names(first)).toEqual(names(second));
    expect(names(first)).toEqual([
      'testsuites nsed batch',
      'testsuite items.jsonl',
      'testcase ok-one',
      'testcase stopped',
      'testcase later',
    ]);
    expect(property(second, 'batch')).toBe('batch-ffffffffffff');
  });
});
