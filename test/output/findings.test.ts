// Findings on the changed lines (docs/ci.md "Findings on the changed lines", docs/reliability.md #202):
// read from the --schema answer at a JSON Pointer, placed in a real checkout or dropped, and
// written as workflow commands, SARIF 2.1.0 and GitLab Code Quality.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ajvModule from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowAnnotations } from '../../src/output/annotations.js';
import { codeQualityReport } from '../../src/output/export/codequality.js';
import { sarifReport } from '../../src/output/export/sarif.js';
import { pointerTokens, readFindings, type PlacedFinding } from '../../src/output/findings.js';
import { Workspace } from '../../src/files/workspace-file.js';
import { fullVerdict } from './report-fixtures.js';
import sarifSchema from './fixtures/sarif-schema-2.1.0.json' with { type: 'json' };

let root: string;
let ws: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'nsed-findings-'));
  ws = join(root, 'checkout');
  await mkdir(join(ws, 'src'), { recursive: true });
  await writeFile(join(ws, 'src', 'retry.py'), Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'));
  await writeFile(join(ws, 'empty.txt'), '');
  await writeFile(join(root, 'secret.txt'), 'outside\n'.repeat(100));
  await symlink(join(root, 'secret.txt'), join(ws, 'link-out.txt'));
  await symlink(join(ws, 'src', 'retry.py'), join(ws, 'link-in.py'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const finding = (over: Partial<PlacedFinding> = {}): PlacedFinding => ({
  file: 'src/retry.py',
  path: 'src/retry.py',
  line: 42,
  endLine: 44,
  severity: 'error',
  message: 'the retry never backs off',
  title: 'No back-off',
  suggestion: null,
  ...over,
});

describe('reading findings at a JSON Pointer', () => {
  it('reads the items at the pointer (~1 and ~0 unescaped) and names each item that is no finding', () => {
    expect(pointerTokens('/a~1b/c~0d/0')).toEqual(['a/b', 'c~d', '0']);
    expect(pointerTokens('findings')).toBeUndefined();
    const answer = {
      'review/x': {
        items: [
          { file: 'a.py', line: 3, severity: 'warning', message: 'm' },
          { file: 'a.py', line: 0, severity: 'warning', message: 'm' },
          { file: 'a.py', line: 2, severity: 'fatal', message: 'm' },
          { file: 'a.py', line: 2, end_line: 'x', severity: 'notice', message: 'm' },
          'not an object',
          { file: 'a.py', line: 4, end_line: 5, severity: 'notice', message: 'm', suggestion: 'x = 1\r\ny = 2\r\n' },
          { file: 'a.py', line: 4, severity: 'notice', message: 'm', suggestion: 7 },
        ],
      },
    };
    const read = readFindings(answer, '/review~1x/items');
    expect(read.findings).toEqual([
      { file: 'a.py', line: 3, endLine: null, severity: 'warning', message: 'm', title: null, suggestion: null },
      // The suggestion replaces the lines: its own last line break is not a line more.
      { file: 'a.py', line: 4, endLine: 5, severity: 'notice', message: 'm', title: null, suggestion: 'x = 1\ny = 2' },
    ]);
    expect(read.problems).toEqual([
      '/review~1x/items/1 has no line (a whole number from 1)',
      '/review~1x/items/2 has no severity (error, warning or notice)',
      '/review~1x/items/3 has an end_line that is no line',
      '/review~1x/items/4 is not an object',
      '/review~1x/items/6 has a suggestion that is no text',
    ]);
    expect(readFindings({ findings: 'none' }, '/findings').problems).toEqual(['the answer has no array at /findings']);
  });
});

describe('placing a finding in the checkout (reliability #203)', () => {
  it('keeps a file and lines the checkout has; refuses absolute paths, .., links out, missing files and lines', async () => {
    const w = new Workspace(ws);
    expect(await w.place('./src//retry.py', 50, null)).toEqual({ ok: true, path: 'src/retry.py' });
    expect(await w.place('link-in.py', 1, 2)).toEqual({ ok: true, path: 'link-in.py' });
    const why = async (file: string, line = 1, end: number | null = null): Promise<string> => {
      const p = await w.place(file, line, end);
      return p.ok ? 'kept' : p.why;
    };
    expect(await why('/etc/passwd')).toBe('an absolute path');
    expect(await why(join(ws, 'src', 'retry.py'))).toBe('an absolute path');
    expect(await why('C:/Windows/win.ini')).toBe('an absolute path');
    expect(await why('\\\\server\\share')).toBe('an absolute path');
    expect(await why('src/../../secret.txt')).toBe("it leaves the workspace ('..')");
    expect(await why('src\\retry.py')).toBe('its path holds a backslash');
    expect(await why('link-out.txt')).toBe('it leaves the workspace (a symbolic link out of it)');
    expect(await why('src/missing.py')).toBe('no such file in the checkout');
    expect(await why('src')).toBe('not a file in the checkout');
    expect(await why('src/retry.py', 51)).toBe('line 51 is past its end (50 lines)');
    expect(await why('src/retry.py', 10, 9)).toBe('end line 9 is not between line 10 and its end (50 lines)');
    expect(await why('empty.txt', 1)).toBe('line 1 is past its end (0 lines)');
    expect(await why('src/retry.py\n::error::x')).toBe('its path holds a control character');
  });
});

describe('the reports of placed findings (reliability #202)', () => {
  it('--annotate puts each on its line, escaped by the workflow-command rules: no newline or :: gets through', () => {
    const hostile = finding({
      path: 'src/a,b:c.py',
      title: 'x,y:z\n::error::forged',
      message: 'first line\n::error file=/etc/passwd,line=1::forged\r100%',
      endLine: null,
      severity: 'warning',
    });
    const out = workflowAnnotations(fullVerdict(), 's.md', [finding(), hostile]);
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toBe('::error file=src/retry.py,line=42,endLine=44,title=No back-off::the retry never backs off');
    expect(lines[1]).toBe(
      '::warning file=src/a%2Cb%3Ac.py,line=42,title=x%2Cy%3Az%0A%3A%3Aerror%3A%3Aforged::first line%0A::error file=/etc/passwd,line=1::forged%0D100%25',
    );
    // Every line is one command: the forged ones stayed inside the data.
    expect(lines.filter((l) => l.includes('forged'))).toHaveLength(1);
    expect(lines.at(-1)).toContain('2 findings on lines');
  });

  it('SARIF validates against the SARIF 2.1.0 schema: one run, nsed with its version, a physical location each, the verdict in the run', () => {
    const turn = {
      session: 's1',
      title: 'Review',
      saved: true,
      turn: 't1',
      question: 'q',
      answer: 'a',
      status: 'complete' as const,
      error: null,
      policy: 'nsed:fast',
      jobId: 'oc-x-1',
      ts: null,
      seconds: null,
      rounds: [],
      injections: [],
      toolCalls: [],
      usage: null,
      sessionUsage: null,
    };
    const log = JSON.parse(
      sarifReport(turn, fullVerdict(), null, [
        finding(),
        finding({ severity: 'notice', endLine: null, title: null, path: 'dir with space/ü.py' }),
      ]),
    ) as {
      version: string;
      runs: Array<{
        tool: { driver: { name: string; version: string } };
        results: Array<{ level: string; locations: Array<{ physicalLocation: unknown }> }>;
        properties: { verdict: unknown };
      }>;
    };
    // The OASIS schema is draft-04; its keywords here mean the same under ajv's default draft.
    const { $schema: _s, id: _id, ...schema } = sarifSchema as Record<string, unknown>;
    const Ajv = ajvModule.default;
    const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(schema);
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...log, version: '2.0.0' })).toBe(false);
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]?.tool.driver.name).toBe('nsed');
    expect(log.runs[0]?.tool.driver.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(log.runs[0]?.results.map((r) => r.level)).toEqual(['error', 'note']);
    expect(log.runs[0]?.results[1]?.locations[0]?.physicalLocation).toEqual({
      artifactLocation: { uri: 'dir%20with%20space/%C3%BC.py', uriBaseId: '%SRCROOT%' },
      region: { startLine: 42 },
    });
    expect(log.runs[0]?.properties.verdict).toEqual(fullVerdict());
  });

  it('Code Quality: GitLab fields and severities; the fingerprint depends on path, line, check and message only', () => {
    const issues = JSON.parse(codeQualityReport([finding(), finding({ severity: 'notice', title: null })])) as Array<{
      description: string;
      check_name: string;
      fingerprint: string;
      severity: string;
      location: { path: string; lines: { begin: number } };
    }>;
    expect(issues[0]).toMatchObject({
      description: 'No back-off: the retry never backs off',
      check_name: 'No back-off',
      severity: 'major',
      location: { path: 'src/retry.py', lines: { begin: 42 } },
    });
    expect(issues[1]?.severity).toBe('info');
    expect(issues[0]?.fingerprint).toMatch(/^[0-9a-f]{32}$/);
    const again = JSON.parse(codeQualityReport([finding({ file: 'other name', endLine: null })])) as typeof issues;
    expect(again[0]?.fingerprint).toBe(issues[0]?.fingerprint);
    const moved = JSON.parse(codeQualityReport([finding({ line: 43 })])) as typeof issues;
    expect(moved[0]?.fingerprint).not.toBe(issues[0]?.fingerprint);
  });
});
