import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTemplate, parseVarFlag, renderTemplate, varsObject } from '../../src/input/template.js';
import { parseNdjson, useRig } from '../harness/rig.js';

describe('the template engine (pure: batch renders its items with it too)', () => {
  it('fills {{name}} and {{ name }}; a value holding {{x}} is not expanded again', () => {
    const t = parseTemplate('Review {{file}} for {{ focus }}.', 't.md');
    const r = renderTemplate(t, { file: 'a.ts', focus: '{{file}} twice' });
    expect(r).toEqual({ ok: true, prompt: 'Review a.ts for {{file}} twice.', files: [], unused: [] });
  });

  it('front matter as key: value lines: system, policy, schema, files, var.NAME defaults (placeholders filled in each)', () => {
    const t = parseTemplate(
      [
        '---',
        '# a comment',
        'system: "You review {{lang}}.\\nBe brief."',
        'policy: deep',
        'schema: review.schema.json',
        'files: {{file}}, notes.txt',
        'var.lang: TypeScript',
        'var.focus: errors',
        '---',
        'Review {{file}} ({{focus}}).',
      ].join('\n'),
      'review.md',
    );
    const r = renderTemplate(t, { file: 'src/app.ts', focus: 'tests' });
    expect(r).toEqual({
      ok: true,
      prompt: 'Review src/app.ts (tests).',
      system: 'You review TypeScript.\nBe brief.',
      policy: 'deep',
      schema: 'review.schema.json',
      files: ['src/app.ts', 'notes.txt'],
      unused: [],
    });
  });

  it('front matter as JSON, with an inline schema', () => {
    const t = parseTemplate(
      '---\n{"system": "S", "files": ["a"], "vars": {"n": 3}, "schema": {"type": "object"}}\n---\nN={{n}}',
      't.md',
    );
    expect(renderTemplate(t, {})).toEqual({
      ok: true,
      prompt: 'N=3',
      system: 'S',
      schema: '{"type":"object"}',
      files: ['a'],
      unused: [],
    });
  });

  it('a placeholder without a value is an error naming it; a variable nothing uses is listed as unused', () => {
    const t = parseTemplate('{{a}} {{b}} {{a}}', 't.md');
    expect(renderTemplate(t, { c: '1' })).toEqual({
      ok: false,
      errors: [
        { variable: 'a', message: 'template t.md uses {{a}}, which has no value' },
        { variable: 'b', message: 'template t.md uses {{b}}, which has no value' },
      ],
    });
    const used = renderTemplate(parseTemplate('{{a}}', 't.md'), { a: 'x', c: '1' });
    expect(used).toMatchObject({ ok: true, unused: ['c'] });
  });

  it('malformed front matter and variables are usage errors naming what is wrong', () => {
    expect(() => parseTemplate('---\nsystem: x\n', 't.md')).toThrow('no closing ---');
    expect(() => parseTemplate('---\nsytem: x\n---\n', 't.md')).toThrow("unknown front matter key 'sytem'");
    expect(() => parseTemplate('---\njust words\n---\n', 't.md')).toThrow('line 2 is not key: value');
    expect(() => parseTemplate('---\n{"vars": [1]}\n---\n', 't.md')).toThrow('must be a JSON object');
    expect(() => parseVarFlag('novalue')).toThrow("--var 'novalue' is not NAME=VALUE");
    expect(parseVarFlag('a=b=c')).toEqual(['a', 'b=c']);
    expect(() => varsObject({ a: { b: 1 } }, '--vars v.json')).toThrow("the value of 'a' must be a string");
  });
});

describe('--template, --var and --vars on ask, continue and fork', () => {
  const rig = useRig();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nsed-template-'));
    await writeFile(join(dir, 'app.ts'), 'export const app = 1;\n');
    await writeFile(
      join(dir, 'review.md'),
      `---\nsystem: You review {{lang}} code.\nvar.lang: TypeScript\nfiles: ${join(dir, '{{file}}')}\n---\nReview {{file}} with care for {{focus}}.\n`,
    );
    await writeFile(join(dir, 'vars.json'), JSON.stringify({ file: 'app.ts', focus: 'naming' }));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const lastChat = () =>
    rig.sim.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.body as {
      messages: Array<{ role: string; content: string }>;
    };

  it('variables from --vars and --var (the flag wins); the front matter sets system and attaches its files', async () => {
    const r = await rig.run([
      'ask',
      '-o',
      'ndjson',
      '--template',
      join(dir, 'review.md'),
      '--vars',
      join(dir, 'vars.json'),
      '--var',
      'focus=errors',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { messages } = lastChat();
    expect(messages[0]).toEqual({ role: 'system', content: 'You review TypeScript code.' });
    expect(messages.at(-1)?.content).toBe(
      `Review app.ts with care for errors.\n\n\`\`\`${join(dir, 'app.ts')}\nexport const app = 1;\n\`\`\``,
    );
    const id = String(parseNdjson(r.stdout).at(-1)?.['session']);
    // continue renders a template too; --system on the command line wins over the front matter.
    const cont = await rig.run([
      'continue',
      '-s',
      id,
      '-o',
      'final',
      '--system',
      'Own system',
      '--template',
      join(dir, 'review.md'),
      '--var',
      'file=app.ts',
      '--var',
      'focus=tests',
    ]);
    expect(cont.code).toBe(0);
    expect(lastChat().messages[0]).toEqual({ role: 'system', content: 'Own system' });
    expect(lastChat().messages.at(-1)?.content).toMatch(/^Review app\.ts with care for tests\./);
    const forked = await rig.run([
      'fork',
      id,
      '-o',
      'final',
      '--template',
      join(dir, 'review.md'),
      '--vars',
      join(dir, 'vars.json'),
    ]);
    expect(forked.code).toBe(0);
    expect(lastChat().messages.at(-1)?.content).toMatch(/^Review app\.ts with care for naming\./);
  });

  it('a missing variable is exit 2 naming it, before anything is sent; an unused one is a warning (reliability #118)', async () => {
    const before = rig.sim.requests.length;
    const missing = await rig.run(['ask', '--template', join(dir, 'review.md'), '--var', 'file=app.ts']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `nsed: template ${join(dir, 'review.md')} uses {{focus}}, which has no value\nhint: give it: --var focus=VALUE\n`,
    );
    expect(rig.sim.requests.length).toBe(before);
    const unused = await rig.run([
      'ask',
      '-o',
      'final',
      '--template',
      join(dir, 'review.md'),
      '--vars',
      join(dir, 'vars.json'),
      '--var',
      'colour=blue',
    ]);
    expect(unused.code).toBe(0);
    expect(unused.stderr).toBe(`nsed: warning: variable 'colour' is not used by template ${join(dir, 'review.md')}\n`);
  });

  it('each input error: words with --template, --var without one, a bad --var, a missing or broken file', async () => {
    const t = join(dir, 'review.md');
    const cases: Array<[string[], number, string]> = [
      [['ask', '--template', t, 'words'], 2, 'give either prompt words or --template, not both'],
      [['ask', '--var', 'a=b', 'words'], 2, '--var and --vars fill a --template'],
      [['ask', '--template', t, '--var', 'oops'], 2, "--var 'oops' is not NAME=VALUE"],
      [['ask', '--template', join(dir, 'nope.md')], 3, `--template ${join(dir, 'nope.md')}: no such file`],
      [['ask', '--template', t, '--vars', join(dir, 'nope.json')], 3, `--vars ${join(dir, 'nope.json')}: no such file`],
      [['ask', '--template', t, '--vars', join(dir, 'app.ts')], 2, `--vars ${join(dir, 'app.ts')} is not valid JSON`],
    ];
    for (const [args, code, message] of cases) {
      const r = await rig.run(args);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.stderr).toContain(`nsed: ${message}`);
    }
  });
});
