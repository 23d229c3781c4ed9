import { parse, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { junitXml } from '../../src/output/export/junit.js';
import { failingGate, fullVerdict, nullVerdict, passingGate, reportTurn } from './report-fixtures.js';

/** junit2json (xml2js underneath) is a real JUnit consumer: what it cannot read, a CI reporter cannot either. */
async function read(xml: string): Promise<TestSuites> {
  const parsed = await parse(xml);
  if (parsed == null || !('testsuite' in parsed)) throw new Error('no <testsuites> root');
  return parsed as TestSuites;
}

describe('the JUnit report (--junit, export --format junit)', () => {
  it('has one test case per gate check: a failure for each failed or inconclusive one', async () => {
    const doc = await read(junitXml(reportTurn(), fullVerdict(), failingGate));
    expect(doc).toMatchObject({ name: 'nsed', tests: 4, failures: 3, errors: 0 });
    const suite = doc.testsuite?.[0];
    expect(suite).toMatchObject({ tests: 4, failures: 3, errors: 0, skipped: 0, name: 'Is the migration plan safe?' });
    expect(suite?.properties).toContainEqual({ name: 'policy', value: 'nsed:deep' });
    const cases = suite?.testcase ?? [];
    expect(cases.map((c) => c.name)).toEqual([
      'min-convergence 0.9',
      'max-wrong 0',
      'max-contested 3',
      'min-margin 0.05',
    ]);
    expect(cases[0]?.failure?.[0]).toMatchObject({
      type: 'gate_failed',
      message: 'convergence at least 0.9, actual 0.81',
    });
    expect(cases[0]?.failure?.[0]?.inner).toContain('chosen: CortexA');
    expect(cases[2]?.failure).toBeUndefined();
    expect(cases[3]?.failure?.[0]).toMatchObject({ type: 'inconclusive' });
    expect(cases[3]?.failure?.[0]?.message).toMatch(
      /^inconclusive: margin over the runner-up at least 0.05, but the server did not report/,
    );
  });

  it("gives the suite the turn's time in seconds, and 0 only where the time is unknown", async () => {
    const timed = await read(junitXml(reportTurn(), fullVerdict(), passingGate));
    expect(timed.time).toBe(8.25);
    expect(timed.testsuite?.[0]?.time).toBe(8.25);
    const unknown = await read(junitXml(reportTurn({ seconds: null }), fullVerdict(), passingGate));
    expect(unknown.testsuite?.[0]?.time).toBe(0);
  });

  it('passes every case of a passing gate', async () => {
    const doc = await read(junitXml(reportTurn(), fullVerdict(), passingGate));
    expect(doc).toMatchObject({ tests: 2, failures: 0, errors: 0 });
    expect(doc.testsuite?.[0]?.testcase?.every((c) => c.failure === undefined && c.error === undefined)).toBe(true);
  });

  it('without gates has one passing case for the completed turn', async () => {
    for (const verdict of [null, nullVerdict]) {
      const doc = await read(junitXml(reportTurn(), verdict, null));
      expect(doc).toMatchObject({ tests: 1, failures: 0, errors: 0 });
      expect(doc.testsuite?.[0]?.testcase?.[0]?.name).toBe('deliberation');
    }
  });

  it('makes a turn that did not complete an error, never a pass', async () => {
    for (const status of ['failed', 'interrupted', 'cancelled'] as const) {
      const doc = await read(junitXml(reportTurn({ status, error: 'quorum lost' }), null, null));
      expect(doc).toMatchObject({ tests: 1, failures: 0, errors: 1 });
      expect(doc.testsuite?.[0]?.testcase?.[0]?.error?.[0]).toMatchObject({
        type: status,
        message: `the deliberation ended ${status}: quorum lost`,
      });
    }
  });

  it('stays valid XML whatever the server named things: markup, quotes, controls, lone surrogates', async () => {
    const hostile = 'A<&>"\'\u0001\u001b]0;x\u0007\uD800\n</testcase>';
    const xml = junitXml(
      reportTurn({ session: hostile, jobId: hostile, policy: hostile, status: 'failed', error: hostile }),
      null,
      null,
    );
    const doc = await read(xml);
    expect(doc).toMatchObject({ tests: 1, errors: 1 });
    expect(doc.testsuite?.[0]?.properties).toContainEqual({
      name: 'session',
      value: 'A<&>"\'\uFFFD\uFFFD]0;x\uFFFD\uFFFD\n</testcase>',
    });
  });
});
