// A council's review as findings on the changed lines (docs/ci.md "Findings on the changed lines",
// docs/reliability.md #202, #203), end to end over real HTTP: the simulator answering a schema
// whose `file` names real files of a checkout, and a loopback server answering hostile findings.
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../harness/cli.js';
import { useRig } from '../harness/rig.js';
import { startPlainServer } from '../everyday/plain-server.js';
import { rdjsonErrors } from '../harness/rdjson-schema.js';

const rig = useRig();
let root: string;
let ws: string;
const FILES = ['src/retry.py', 'src/http/client.ts'];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'nsed-findings-e2e-'));
  ws = join(root, 'checkout');
  await mkdir(join(ws, 'src', 'http'), { recursive: true });
  for (const f of FILES) await writeFile(join(ws, f), Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n'));
  await writeFile(join(root, 'outside.txt'), 'x\n'.repeat(100));
  await symlink(join(root, 'outside.txt'), join(ws, 'escape.txt'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A review schema whose findings can only name files of the checkout and lines they have. */
const located = {
  type: 'object',
  required: ['findings'],
  additionalProperties: false,
  properties: {
    findings: {
      type: 'array',
      minItems: 2,
      maxItems: 4,
      items: {
        type: 'object',
        required: ['file', 'line', 'severity', 'message'],
        additionalProperties: false,
        properties: {
          file: { enum: FILES },
          line: { type: 'integer', minimum: 1, maximum: 30 },
          severity: { enum: ['error', 'warning', 'notice'] },
          message: { type: 'string', minLength: 1 },
          title: { type: 'string' },
        },
      },
    },
  },
};

interface Issue {
  fingerprint: string;
  location: { path: string; lines: { begin: number } };
}

describe('findings of a schema answer, through the simulator (reliability #202)', () => {
  it('land on their lines: --annotate commands with file= and line=, SARIF results, Code Quality issues, fingerprints equal across two runs', async () => {
    const schema = join(root, 'located.schema.json');
    await writeFile(schema, JSON.stringify(located));
    const run = async (n: number) => {
      const args = ['ask', '--schema', schema, '--findings', '/findings', '--workspace', ws, '--annotate'];
      const files = { sarif: join(root, `run${n}.sarif`), cq: join(root, `run${n}.json`) };
      const r = await rig.run([...args, '--sarif', files.sarif, '--codequality', files.cq, 'Review the retry code']);
      expect(r.code, r.stderr).toBe(0);
      return {
        r,
        issues: JSON.parse(await readFile(files.cq, 'utf8')) as Issue[],
        sarif: await readFile(files.sarif, 'utf8'),
      };
    };
    const first = await run(1);
    const second = await run(2);
    expect(first.issues.length).toBeGreaterThanOrEqual(2);
    for (const i of first.issues) expect(FILES).toContain(i.location.path);
    expect(second.issues.map((i) => i.fingerprint)).toEqual(first.issues.map((i) => i.fingerprint));
    const onLines = first.r.stderr.split('\n').filter((l) => /^::(error|warning|notice) file=src\//.test(l));
    expect(onLines).toHaveLength(first.issues.length);
    expect(first.r.stderr).not.toContain('dropped');
    const log = JSON.parse(first.sarif) as { runs: Array<{ results: unknown[]; properties: { verdict: unknown } }> };
    expect(log.runs[0]?.results).toHaveLength(first.issues.length);
    expect(log.runs[0]?.properties.verdict).not.toBeNull();
  });

  it('--schema review is built in and implies --findings /findings; findings naming no file of the checkout are each dropped with a warning', async () => {
    const cq = join(root, 'review.json');
    const r = await rig.run([
      'ask',
      '--schema',
      'review',
      '--workspace',
      ws,
      '--codequality',
      cq,
      '-o',
      'json',
      'Review this diff',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout) as { structured: { findings: unknown[]; verdict: string } };
    expect(Array.isArray(answer.structured.findings)).toBe(true);
    const kept = JSON.parse(await readFile(cq, 'utf8')) as Issue[];
    const drops = r.stderr.split('\n').filter((l) => l.startsWith('nsed: warning: finding at '));
    expect(kept.length + drops.length).toBe(answer.structured.findings.length);
    // The package ships the same schema as a file.
    const shipped = JSON.parse(await readFile('schemas/review.schema.json', 'utf8')) as { title: string };
    expect(shipped.title).toBe('code_review');
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schemas');
  });

  it('--sarif or --codequality without findings to write is exit 2 before anything is sent', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '--sarif', join(root, 'x.sarif'), 'Review']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--sarif writes findings: name them with --findings POINTER');
    expect(rig.sim.requests.length).toBe(before);
  });
});

describe('hostile findings from an untrusted server (reliability #203)', () => {
  it('drops absolute paths, .., links out and missing files or lines, one warning each and a count; escapes the one kept', async () => {
    const answer = JSON.stringify({
      findings: [
        { file: '/etc/passwd', line: 1, severity: 'error', message: 'absolute' },
        { file: '../outside.txt', line: 1, severity: 'error', message: 'dot-dot' },
        { file: 'escape.txt', line: 1, severity: 'error', message: 'link out' },
        { file: 'src/retry.py', line: 31, severity: 'error', message: 'past the end' },
        { file: 'src/gone.py', line: 1, severity: 'error', message: 'no such file' },
        {
          file: 'src/retry.py',
          line: 3,
          severity: 'error',
          title: 'a:b,c',
          message: 'real\n::error file=/etc/passwd::forged',
        },
      ],
    });
    const server = await startPlainServer(answer);
    const home = await mkdtemp(join(root, 'home-'));
    const sarif = join(root, 'hostile.sarif');
    const cq = join(root, 'hostile.json');
    try {
      const r = await runCliInProcess(
        [
          'ask',
          '-m',
          'llama3.2',
          '--schema',
          '{"type":"object"}',
          '--findings',
          '/findings',
          '--workspace',
          ws,
          '--annotate',
          '--sarif',
          sarif,
          '--codequality',
          cq,
          'Review',
        ],
        { env: { NSED_HOME: home, NSED_URL: server.url, NO_COLOR: '1' } },
      );
      expect(r.code, r.stderr).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('nsed: warning: finding at '));
      expect(warnings).toEqual([
        'nsed: warning: finding at /etc/passwd:1 dropped: an absolute path',
        "nsed: warning: finding at ../outside.txt:1 dropped: it leaves the workspace ('..')",
        'nsed: warning: finding at escape.txt:1 dropped: it leaves the workspace (a symbolic link out of it)',
        'nsed: warning: finding at src/retry.py:31 dropped: line 31 is past its end (30 lines)',
        'nsed: warning: finding at src/gone.py:1 dropped: no such file in the checkout',
      ]);
      expect(r.stderr).toContain('nsed: warning: 5 findings dropped, 1 kept');
      const commands = r.stderr.split('\n').filter((l) => l.startsWith('::'));
      expect(commands.filter((l) => l.includes('file='))).toEqual([
        '::error file=src/retry.py,line=3,title=a%3Ab%2Cc::real%0A::error file=/etc/passwd::forged',
      ]);
      const written = (await readFile(sarif, 'utf8')) + (await readFile(cq, 'utf8'));
      for (const bad of ['/etc/passwd"', 'outside.txt', 'escape.txt', 'gone.py']) expect(written).not.toContain(bad);
      expect((JSON.parse(await readFile(cq, 'utf8')) as Issue[]).map((i) => i.location)).toEqual([
        { path: 'src/retry.py', lines: { begin: 3 } },
      ]);
      expect((await stat(join(root, 'outside.txt'))).size).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("--rdjson writes the kept findings, suggestions included, as rdjsonl valid by reviewdog's schema; the dropped ones are not in it", async () => {
    const answer = JSON.stringify({
      summary: 's',
      verdict: 'comment',
      findings: [
        { file: '../outside.txt', line: 1, severity: 'error', message: 'dot-dot', suggestion: 'x' },
        {
          file: 'src/retry.py',
          line: 4,
          end_line: 5,
          severity: 'warning',
          title: 'No back-off',
          message: 'sleep between attempts',
          suggestion: 'line 3\nsleep(2)\n',
        },
      ],
    });
    const server = await startPlainServer(answer);
    const home = await mkdtemp(join(root, 'home-'));
    const rdjson = join(root, 'review.rdjsonl');
    try {
      const r = await runCliInProcess(
        ['ask', '-m', 'llama3.2', '--schema', 'review', '--workspace', ws, '--rdjson', rdjson, 'Review'],
        { env: { NSED_HOME: home, NSED_URL: server.url, NO_COLOR: '1' } },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('nsed: warning: 1 finding dropped, 1 kept');
      const text = await readFile(rdjson, 'utf8');
      expect(rdjsonErrors(text)).toEqual([]);
      expect(
        text
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as unknown),
      ).toEqual([
        {
          message: 'sleep between attempts',
          location: { path: 'src/retry.py', range: { start: { line: 4 }, end: { line: 5 } } },
          severity: 'WARNING',
          source: { name: 'nsed' },
          code: { value: 'No back-off' },
          suggestions: [{ range: { start: { line: 4 }, end: { line: 5 } }, text: 'line 3\nsleep(2)' }],
        },
      ]);
    } finally {
      await server.close();
    }
  });

  it('--rdjson without findings to write is exit 2 before anything is sent', async () => {
    const before = rig.sim.requests.length;
    const r = await rig.run(['ask', '--rdjson', join(root, 'x.rdjsonl'), 'Review']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--rdjson writes findings: name them with --findings POINTER');
    expect(rig.sim.requests.length).toBe(before);
  });
});
