// What a batch leaves for a CI page and a terminal (docs/reliability.md "Batches"): --summary and --junit with
// one entry per item (also after a signal), --no-save writing nothing, and the live bar on a
// pseudo-terminal against plain lines on a pipe. Against the simulator over real HTTP.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { makeRig } from '../harness/rig.js';
import { deliberations, interruptedAfterFirst, resultLines, useBatchRig } from '../harness/batch-rig.js';
import { haveScript, onTerminal } from '../everyday/pty.js';

const batch = useBatchRig('batch-reports');

async function junit(path: string): Promise<TestSuites> {
  const doc = await parse(await readFile(path, 'utf8'));
  if (doc == null || !('testsuite' in doc)) throw new Error(`${path} has no <testsuites>`);
  return doc as TestSuites;
}
const casesOf = (doc: TestSuites) => Object.fromEntries((doc.testsuite?.[0]?.testcase ?? []).map((c) => [c.name, c]));

/** ok, a failed gate, and an item nsed cannot run (its -f file is missing). */
const mix = (dir: string): string =>
  '{"id":"pass","prompt":"q p","gates":{"min-convergence":0}}\n' +
  '{"id":"gated","prompt":"q g","gates":{"min-convergence":0.999}}\n' +
  `{"id":"nofile","prompt":"q n","files":["${dir}/nonexistent/nsed-batch-file"]}\n`;

describe('--summary and --junit (reliability #153)', () => {
  it('write one entry per item: a JUnit case each (failure, error, pass) and a summary row each', async () => {
    const items = await batch.file('mix.jsonl', mix(batch.dir));
    const [md, xml] = [join(batch.dir, 'mix.md'), join(batch.dir, 'mix.xml')];
    const r = await batch.rig.run(['batch', items, '-j', '1', '--summary', md, '--junit', xml]);
    expect(r.code, r.stderr).toBe(3);
    const out = Object.fromEntries(resultLines(r.stdout).map((l) => [l['id'], l]));
    const doc = await junit(xml);
    expect(doc).toMatchObject({ tests: 3, failures: 1, errors: 1 });
    // The skipped count is the suite's: Jenkins' junit-10 schema has none on <testsuites>.
    expect(doc.testsuite?.[0]).toMatchObject({ name: 'mix.jsonl', skipped: 0 });
    const cases = casesOf(doc);
    expect(cases['pass']?.failure ?? cases['pass']?.error).toBeUndefined();
    expect(cases['gated']?.failure?.[0]).toMatchObject({ type: 'gate_failed' });
    expect(cases['nofile']?.error?.[0]?.message).toContain('/nonexistent/nsed-batch-file');
    expect(cases['pass']?.['system-out']?.[0]).toBe(`status: ok\nsession: ${String(out['pass']?.['session'])}`);
    const summary = await readFile(md, 'utf8');
    expect(summary.startsWith('## nsed batch · ✗ 2 of 3 items not ok\n')).toBe(true);
    expect(summary).toContain('**3 items:** 1 error · 1 gate_failed · 1 ok');
    expect(summary).toContain(`| \`pass\` | ✓ ok |`);
    expect(summary).toContain(`\`${String(out['pass']?.['session'])}\``);
    expect(summary).toMatch(/\| `gated` \| ✗ gate_failed \| \d+% \| \S+ [\d.]+ \| ✗ fail: min-convergence \|/);
    expect(summary).toMatch(/- `nofile` \(error, exit 3\): .*nsed-batch-file/);
  });

  it('after a signal: the finished item passes, the interrupted and never-run ones are skipped (reliability #146)', async () => {
    const held = await makeRig({ hold: true });
    try {
      const items = await batch.file('three.txt', 'q one\nq two\nq three\n');
      const [md, xml] = [join(batch.dir, 'sig.md'), join(batch.dir, 'sig.xml')];
      await interruptedAfterFirst(held, items, ['--summary', md, '--junit', xml]);
      const doc = await junit(xml);
      expect(doc).toMatchObject({ tests: 3, failures: 0, errors: 0 });
      expect(doc.testsuite?.[0]).toMatchObject({ name: 'three.txt', skipped: 2 });
      const cases = casesOf(doc);
      expect(cases['line-2']?.skipped?.[0]).toMatchObject({ type: 'interrupted' });
      expect(cases['line-3']?.skipped?.[0]).toMatchObject({ type: 'not-run' });
      const summary = await readFile(md, 'utf8');
      expect(summary).toContain('✗ 1 of 3 items finished, 1 ok');
      expect(summary).toContain('| `line-2` | ⊘ interrupted |');
      expect(summary).toContain('| `line-3` | – not run |');
    } finally {
      await held.close();
    }
  });

  it('a report that could never be written is exit 2 before anything is sent; one file for both is refused', async () => {
    const items = await batch.file('one.txt', 'q one\n');
    const before = deliberations(batch.rig);
    const missing = await batch.rig.run(['batch', items, '--summary', join(batch.dir, 'no', 'such', 'folder', 's.md')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^nsed: --summary .*: the folder .* does not exist\n/);
    const folder = await batch.rig.run(['batch', items, '--junit', batch.dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('is a folder');
    const same = await batch.rig.run([
      'batch',
      items,
      '--summary',
      join(batch.dir, 'x'),
      '--junit',
      join(batch.dir, 'x'),
    ]);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('--summary and --junit name the same file');
    expect(deliberations(batch.rig)).toBe(before);
  });

  it('a report the disk refuses is exit 11, after every result line is out', async () => {
    const items = await batch.file('two.txt', 'q one\nq two\n');
    const r = await batch.rig.run(['batch', items, '--junit', '/dev/full']);
    expect(r.code).toBe(11);
    expect(resultLines(r.stdout).map((l) => l['status'])).toEqual(['ok', 'ok']);
    expect(r.stderr).toMatch(/nsed: .*ENOSPC/);
  });
});

describe('--no-save (reliability #154)', () => {
  it('writes no session, not even the store; result lines say session: null; the reports still come', async () => {
    const home = join(batch.dir, 'never');
    const items = await batch.file('ns.txt', 'q one\nq two\n');
    const md = join(batch.dir, 'ns.md');
    const r = await batch.rig.run(['batch', items, '--no-save', '--summary', md], { env: { NSED_HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const out = resultLines(r.stdout);
    expect(out).toHaveLength(2);
    for (const l of out) {
      expect(l).toMatchObject({ status: 'ok', session: null });
      expect(String(l['job_id'])).not.toBe('');
      expect(String(l['answer'])).toContain('The council recommends');
    }
    expect(await stat(home).catch(() => undefined)).toBeUndefined();
    const summary = await readFile(md, 'utf8');
    expect(summary.match(/\| not saved \|/g)).toHaveLength(2);
    expect(summary).toContain('(--no-save)');
  });
});

describe('progress on a terminal and off it (reliability #155)', () => {
  const ERASE = '\x1b[2K';
  /** The erase code as a word, so the patterns below can name it. */
  const shown = (text: string): string => text.replaceAll(ERASE, '<erase>');
  it('in-process, on a terminal with colour: the bar in place of the item lines, erased before the summary', async () => {
    const items = await batch.file('tty.txt', 'q one\nq two\nq three\n');
    const r = await batch.rig.run(['batch', items, '-j', '2'], { tty: true, env: { TERM: 'xterm', NO_COLOR: '' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/\[\d\/3\] line-/);
    expect(shown(r.stderr)).toMatch(/^\r<erase>\[[#-]+\] 0\/3 · \d running/);
    expect(shown(r.stderr)).toMatch(/\r<erase>batch batch-[0-9a-f]+: 3\/3 items in [\d.]+s: 3 ok; cost \$[\d.]+\n$/);
    expect(resultLines(r.stdout)).toHaveLength(3);
  });

  it.skipIf(!haveScript)(
    'on a sized pseudo-terminal: the live bar, redrawn in place, then the summary line',
    async () => {
      const items = await batch.file('pty.txt', 'q one\nq two\nq three\n');
      const out = join(batch.dir, 'pty.jsonl');
      const r = await onTerminal(
        batch.rig,
        ['batch', items, '-j', '2', '--out', out],
        { NO_COLOR: '', TERM: 'xterm' },
        100,
      );
      expect(r.code, r.screen).toBe(0);
      const draws = r.screen.split(ERASE).filter((p) => /^\[[#-]+\] \d\/3 · /.test(p));
      expect(draws.length, r.screen).toBeGreaterThanOrEqual(1);
      for (const d of draws) expect(d.length, d).toBeLessThan(100);
      expect(r.screen).not.toMatch(/\[\d\/3\] line-/);
      expect(shown(r.screen)).toMatch(/<erase>batch batch-[0-9a-f]+: 3\/3 items in [\d.]+s: 3 ok; cost \$[\d.]+\n/);
      expect(resultLines(await readFile(out, 'utf8'))).toHaveLength(3);
    },
  );

  it.skipIf(!haveScript)('NO_COLOR and TERM=dumb on a terminal get the plain lines, as a pipe does', async () => {
    const items = await batch.file('plain.txt', 'q one\nq two\n');
    const plain = /\[1\/2\] line-\d ok [\d.]+s\n\[2\/2\] line-\d ok [\d.]+s\nbatch batch-[0-9a-f]+: 2\/2 items/;
    for (const env of [
      { NO_COLOR: '1', TERM: 'xterm' },
      { NO_COLOR: '', TERM: 'dumb' },
    ]) {
      const r = await onTerminal(
        batch.rig,
        ['batch', items, '-j', '1', '--out', join(batch.dir, `${env.TERM}.jsonl`)],
        env,
        100,
      );
      expect(r.code, r.screen).toBe(0);
      expect(r.screen, JSON.stringify(env)).toMatch(plain);
      expect(r.screen).not.toContain(ERASE);
    }
    const piped = await batch.rig.runProcess(['batch', items, '-j', '1']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toMatch(plain);
    expect(piped.stderr).not.toContain('\x1b');
  });
});
