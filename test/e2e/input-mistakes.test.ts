// One clear line and one documented code for each mistake in what a flag names (README "Exit
// codes"): a schema given as JSON, a glob that matches nothing, a batch item's files outside
// the batch file's folder.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliberations, resultLines, useBatchRig } from '../harness/batch-rig.js';

const batch = useBatchRig('input-mistakes');

describe('--schema given as JSON (reliability #177)', () => {
  it('a value that is JSON is the schema: [1] is "not an object" (exit 2), never looked for as a file', async () => {
    for (const value of ['[1]', ' [1]', '1', 'true']) {
      const r = await batch.rig.run(['ask', '--schema', value, 'q']);
      expect({ value, code: r.code }).toEqual({ value, code: 2 });
      expect(r.stderr).toContain('nsed: --schema (inline) is not a JSON Schema object');
      expect(r.stderr).not.toContain('no such file');
    }
    const file = await batch.file('1', '{"type":"object"}');
    const named = await batch.rig.run(['ask', '--schema', join(batch.dir, 'nope.json'), 'q']);
    expect(named.code).toBe(3);
    // A file whose name reads as JSON is named with a folder: ./1, or its whole path.
    const byPath = await batch.rig.run(['ask', '-o', 'final', '--schema', file, 'q']);
    expect(byPath.stderr).not.toContain('not a JSON Schema object');
  });
});

describe('a glob that matches nothing (reliability #178)', () => {
  it('is exit 3 naming it, and the hint says where it was matched from, not to quote it', async () => {
    const r = await batch.rig.run(['ask', '-f', join(batch.dir, '*.nothing'), 'q']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`nsed: -f ${join(batch.dir, '*.nothing')}: no file matches\nhint: check the pattern\n`);
    expect(r.stderr).not.toContain('quote');
  });
});

describe("a batch item's files stay in the batch file's folder (reliability #176)", () => {
  it('an absolute path, a .. and a link that leads out are refused before anything is sent (exit 2, naming the item and the path)', async () => {
    const sub = join(batch.dir, 'pr');
    await mkdir(sub, { recursive: true });
    await writeFile(join(batch.dir, 'secret.txt'), 'not for the council\n');
    await symlink(join(batch.dir, 'secret.txt'), join(sub, 'innocent.txt'));
    await writeFile(join(sub, 'fine.txt'), 'fine\n');
    const cases: Array<[string, string]> = [
      ['abs', join(batch.dir, 'secret.txt')],
      ['up', join(sub, '..', 'secret.txt')],
      ['link', join(sub, 'innocent.txt')],
      ['glob', join(sub, '*.txt')],
    ];
    for (const [id, file] of cases) {
      const items = join(sub, `${id}.jsonl`);
      await writeFile(items, `{"id":"ok","prompt":"q"}\n${JSON.stringify({ id, prompt: 'q', files: [file] })}\n`);
      const before = deliberations(batch.rig);
      const r = await batch.rig.run(['batch', items]);
      expect({ id, code: r.code }).toEqual({ id, code: 2 });
      expect(r.stderr).toContain(`nsed: item '${id}' (line 2): file ${file}`);
      expect(r.stderr).toContain(`outside the batch file's folder ${sub}`);
      expect(r.stderr).toContain('hint: name files inside that folder, or pass --allow-outside-files');
      expect(deliberations(batch.rig)).toBe(before);
    }
  });

  it('files inside the folder run; --allow-outside-files lets a trusted batch file reach out', async () => {
    const sub = join(batch.dir, 'trusted');
    await mkdir(sub, { recursive: true });
    await writeFile(join(sub, 'in.txt'), 'inside\n');
    await writeFile(join(batch.dir, 'out.txt'), 'outside\n');
    const inside = join(sub, 'inside.jsonl');
    await writeFile(inside, JSON.stringify({ id: 'in', prompt: 'q', files: [join(sub, 'in.txt')] }) + '\n');
    const r = await batch.rig.run(['batch', inside]);
    expect(r.code, r.stderr).toBe(0);
    const outside = join(sub, 'outside.jsonl');
    await writeFile(outside, JSON.stringify({ id: 'out', prompt: 'q', files: [join(batch.dir, 'out.txt')] }) + '\n');
    const allowed = await batch.rig.run(['batch', outside, '--allow-outside-files']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(resultLines(allowed.stdout)).toMatchObject([{ id: 'out', status: 'ok' }]);
  });
});
