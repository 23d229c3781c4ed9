// `nsed batch merge`: the shards of one matrix, run against the simulator over real HTTP, joined
// into one results file, one summary, one JUnit file (read by junit2json and checked against
// Jenkins' junit-10 schema), the step outputs and one exit code (docs/ci-matrix.md).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { junitSchemaErrors } from '../harness/junit-schema.js';
import { resultLines, useBatchRig, type ResultLine } from '../harness/batch-rig.js';
import { shardIndexOf } from '../../src/batch/shard.js';

const batch = useBatchRig('merge');

/** Runs every shard of `items` into its own results file (by a plan, so that no shard is empty); their paths. */
async function runShards(name: string, items: string, count: number, extra: string[] = []): Promise<string[]> {
  const plan = join(batch.dir, `${name}.plan.json`);
  const p = await batch.rig.run(['batch', 'plan', items, '--shards', String(count), '--out', plan]);
  expect(p.code, p.stderr).toBe(0);
  const files: string[] = [];
  for (let i = 1; i <= count; i++) {
    const out = join(batch.dir, `${name}-${i}.jsonl`);
    const r = await batch.rig.run([
      'batch',
      items,
      '--shard',
      `${i}/${count}`,
      '--shard-plan',
      plan,
      '--out',
      out,
      '-j',
      '2',
      ...extra,
    ]);
    expect([0, 12], r.stderr).toContain(r.code);
    files.push(out);
  }
  return files;
}

async function junit(path: string): Promise<TestSuites> {
  const xml = await readFile(path, 'utf8');
  expect(await junitSchemaErrors(xml)).toEqual([]);
  const doc = await parse(xml);
  if (doc == null || !('testsuite' in doc)) throw new Error(`${path} has no <testsuites>`);
  return doc as TestSuites;
}

const ids = (lines: ResultLine[]): string[] => lines.map((l) => String(l['id']));

describe('batch merge joins the shards of one batch', () => {
  it('two shards: one results file in item order, one JUnit case per item, exit 0 and the step outputs', async () => {
    const items = await batch.file('two.txt', 'q one\nq two\nq three\nq four\nq five\n');
    const files = await runShards('two', items, 2);
    const stamps = (await Promise.all(files.map(async (f) => resultLines(await readFile(f, 'utf8'))))).flat();
    expect(
      new Set(stamps.map((l) => JSON.stringify((l['shard'] as Record<string, unknown>)['items_sha256']))).size,
    ).toBe(1);
    const [out, xml, md, outputs] = ['two.jsonl', 'two.xml', 'two.md', 'two.out'].map((n) => join(batch.dir, n));
    const r = await batch.rig.run([
      'batch',
      'merge',
      ...files,
      '--out',
      out!,
      '--junit',
      xml!,
      '--summary',
      md!,
      '--github-output',
      outputs!,
      '--items',
      items,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('merged 2 of 2 shards (2 files): 5 items: 5 ok');
    const merged = resultLines(await readFile(out!, 'utf8'));
    expect(ids(merged)).toEqual(['line-1', 'line-2', 'line-3', 'line-4', 'line-5']);
    const doc = await junit(xml!);
    expect(doc).toMatchObject({ tests: 5, failures: 0, errors: 0 });
    expect(doc.testsuite?.[0]?.name).toBe('two.txt');
    expect((doc.testsuite?.[0]?.testcase ?? []).map((c) => c.name).sort()).toEqual(ids(merged));
    const summary = await readFile(md!, 'utf8');
    expect(summary).toContain('**5 items:** 5 ok');
    // Not one run's wall time: each leg had its own.
    expect(summary).toMatch(/^batch `matrix-[0-9a-f]{12}` · merged 2 of 2 shards · at \S+$/m);
    const steps = await readFile(outputs!, 'utf8');
    expect(steps).toMatch(/^exit-code<<(\S+)\n0\n\1$/m);
    expect(steps).toMatch(/^items<<(\S+)\n5\n\1$/m);
  });

  it('three shards with a failed gate: the merged exit code is the worst status, and its JUnit case fails', async () => {
    const items = await batch.file(
      'three.jsonl',
      [
        '{"id":"a","prompt":"q a","gates":{"min-convergence":0}}',
        '{"id":"b","prompt":"q b","gates":{"min-convergence":0.999}}',
        '{"id":"c","prompt":"q c"}',
        '{"id":"d","prompt":"q d"}',
        '{"id":"e","prompt":"q e"}',
        '{"id":"f","prompt":"q f"}',
      ].join('\n') + '\n',
    );
    const files = await runShards('three', items, 3);
    const xml = join(batch.dir, 'three.xml');
    const r = await batch.rig.run(['batch', 'merge', ...files, '--junit', xml]);
    expect(r.code, r.stderr).toBe(12);
    expect(ids(resultLines(r.stdout))).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    const doc = await junit(xml);
    expect(doc).toMatchObject({ tests: 6, failures: 1, errors: 0 });
    const gated = (doc.testsuite?.[0]?.testcase ?? []).find((c) => c.name === 'b');
    expect(gated?.failure?.[0]).toMatchObject({ type: 'gate_failed' });
    // The pass rate is the whole matrix's: 5 of 6 items ok.
    expect((await batch.rig.run(['batch', 'merge', ...files, '--min-pass-rate', '80%'])).code).toBe(0);
    expect((await batch.rig.run(['batch', 'merge', ...files, '--min-pass-rate', '90%'])).code).toBe(12);
  });

  it('refuses shards of other items or other flags: exit 2 naming the odd file, nothing written', async () => {
    const items = await batch.file('mix.txt', 'q one\nq two\nq three\n');
    const other = await batch.file('mix-other.txt', 'q one\nq two\nq four\n');
    const [a1, a2] = await runShards('mix-a', items, 2);
    const [, b2] = await runShards('mix-b', other, 2);
    const [, c2] = await runShards('mix-c', items, 2, ['--min-convergence', '0']);
    const out = join(batch.dir, 'mix-merged.jsonl');
    const items_ = await batch.rig.run(['batch', 'merge', a1!, b2!, '--out', out]);
    expect(items_.code).toBe(2);
    expect(items_.stderr).toContain(
      `nsed: ${b2!} comes from another batch than ${a1!} (other items); nothing was merged`,
    );
    const flags = await batch.rig.run(['batch', 'merge', a1!, a2!, c2!, '--out', out]);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toContain(`${c2!} comes from another batch than ${a1!}, ${a2!} (other flags)`);
    await expect(readFile(out, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a results file not written with --shard is refused, naming its line', async () => {
    const items = await batch.file('plain.txt', 'q one\n');
    const out = join(batch.dir, 'plain.jsonl');
    expect((await batch.rig.run(['batch', items, '--out', out])).code).toBe(0);
    const r = await batch.rig.run(['batch', 'merge', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${out} line 1 has no shard stamp`);
  });

  it('a missing shard is named (exit 16), and with --items its items; the merged files hold what there is', async () => {
    const items = await batch.file('gap.txt', 'q one\nq two\nq three\nq four\nq five\nq six\n');
    const files = await runShards('gap', items, 3);
    const xml = join(batch.dir, 'gap.xml');
    const bare = await batch.rig.run(['batch', 'merge', files[0]!, files[2]!]);
    expect(bare.code).toBe(16);
    expect(bare.stderr).toContain('nsed: the matrix is incomplete: no results for shard 2/3\n');
    const named = await batch.rig.run(['batch', 'merge', files[0]!, files[2]!, '--items', items, '--junit', xml]);
    expect(named.code).toBe(16);
    // A plan by count deals the items in file order: shard 2 holds the second and fifth.
    expect(named.stderr).toContain('no results for shard 2/3; 2 items without a line: line-2, line-5');
    expect(ids(resultLines(named.stdout))).toEqual(['line-1', 'line-3', 'line-4', 'line-6']);
    const doc = await junit(xml);
    expect(doc.tests).toBe(6);
    expect(doc.testsuite?.[0]?.skipped).toBe(2);
    // An items file that is not the batch's: its lines name items it does not hold.
    const other = await batch.file('gap-other.txt', 'q one\n');
    const wrong = await batch.rig.run(['batch', 'merge', ...files, '--items', other]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`nsed: the results hold item 'line-2', which ${other} does not hold`);
    expect(wrong.stdout).toBe('');
  });

  it('a shard cut short (fewer lines than its items) is named even without --items', async () => {
    const items = await batch.file('short.txt', 'q one\nq two\nq three\nq four\n');
    const [one, two] = await runShards('short', items, 2);
    const kept = (await readFile(two!, 'utf8')).split('\n')[0] ?? '';
    const cut = await batch.file('short-2-cut.jsonl', `${kept}\n`);
    const r = await batch.rig.run(['batch', 'merge', one!, cut]);
    expect(r.code).toBe(16);
    expect(r.stderr).toContain('shard 2/2 has lines for 1 of its 2 items');
  });

  it('a shard the hash left empty is known empty with --items, and named missing without it', async () => {
    const items = await batch.file('sparse.txt', 'q one\nq two\n');
    const used = new Set(['line-1', 'line-2'].map((id) => shardIndexOf(id, 4)));
    const empty = [1, 2, 3, 4].filter((i) => !used.has(i));
    expect(empty.length).toBeGreaterThan(0);
    const files: string[] = [];
    for (const i of [1, 2, 3, 4]) {
      const out = join(batch.dir, `sparse-${i}.jsonl`);
      expect((await batch.rig.run(['batch', items, '--shard', `${i}/4`, '--out', out])).code).toBe(0);
      files.push(out);
    }
    const known = await batch.rig.run(['batch', 'merge', ...files, '--items', items]);
    expect(known.code, known.stderr).toBe(0);
    expect(ids(resultLines(known.stdout))).toEqual(['line-1', 'line-2']);
    const guessed = await batch.rig.run(['batch', 'merge', ...files]);
    expect(guessed.code).toBe(16);
    expect(guessed.stderr).toContain(
      `no results for shard${empty.length === 1 ? '' : 's'} ${empty.map((i) => `${i}/4`).join(', ')}`,
    );
  });
});
