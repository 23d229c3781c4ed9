import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generatedFiles, generatedReadme } from '../../src/docs/generate.js';
import { NDJSON_EVENTS } from '../../src/docs/ndjson-schema.js';
import { commands } from '../../src/commands/index.js';
import { cliReference, usageLine } from '../../src/docs/reference.js';
import { environment, EXAMPLES, EXIT_CODES, EXPORT_FORMATS_DOC } from '../../src/docs/topics.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAN = path.join(ROOT, 'man/nsed.1');

/** The man page as a reader sees it: rendered, with hyphenation and adjustment off. */
async function rendered(): Promise<string> {
  const { stdout } = await run('groff', ['-man', '-Tutf8', '-rHY=0', '-dAD=l', '-P', '-cbou', MAN], {
    env: { ...process.env, LC_ALL: 'C.UTF-8' },
  });
  return stdout.replace(/\u2010/g, '-').replace(/\s+/g, ' ');
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name));
}

describe('man/nsed.1', () => {
  it('renders with groff -man -ww without a single warning', async () => {
    const { stderr } = await run('groff', ['-man', '-Tutf8', '-ww', '-z', MAN]);
    expect(stderr).toBe('');
    const lint = await run('groff', ['-man', '-Tutf8', '-ww', '-rCHECKSTYLE=3', '-z', MAN]);
    expect(lint.stderr).toBe('');
  });

  it('is what the generator writes (run npm run docs when this fails)', async () => {
    expect(await readFile(MAN, 'utf8')).toBe(generatedFiles()['man/nsed.1']);
  });

  it('documents every command with its usage, every flag and every exit code', async () => {
    const text = await rendered();
    const ref = cliReference(commands);
    for (const c of ref.commands) {
      expect(text).toContain(usageLine(c));
      for (const o of c.options) for (const f of o.flags) expect(text, `${c.words.join(' ')} ${f}`).toContain(f);
    }
    for (const o of ref.globalOptions) for (const f of o.flags) expect(text).toContain(f);
    const exitSection = text.slice(text.indexOf('EXIT STATUS'), text.indexOf('EXAMPLES'));
    for (const e of EXIT_CODES)
      expect(exitSection).toMatch(new RegExp(`\\b${e.code} ${e.meaning.slice(0, 12).replace(/[()]/g, '.')}`));
  });

  it('documents every NDJSON event with its fields, and every export format', async () => {
    const text = await rendered();
    const events = text.slice(text.indexOf('NDJSON EVENTS'), text.indexOf('EXPORT FORMATS'));
    for (const [type, doc] of Object.entries(NDJSON_EVENTS)) {
      expect(events).toContain(` ${type} `);
      for (const field of Object.keys(doc.fields)) expect(events, `${type}.${field}`).toContain(` ${field} `);
    }
    for (const f of EXPORT_FORMATS_DOC) expect(text).toContain(` ${f.name} `);
  });

  it('documents every environment variable the source reads', async () => {
    const read = new Set<string>();
    for (const file of await sourceFiles(path.join(ROOT, 'src'))) {
      const source = await readFile(file, 'utf8');
      for (const m of source.matchAll(/\benv(?:\[['"]([A-Z][A-Z0-9_]*)['"]\]|\.([A-Z][A-Z0-9_]*))/g))
        read.add(m[1] ?? m[2] ?? '');
    }
    expect(read.size).toBeGreaterThan(8);
    const documented = new Set(environment(commands).map((e) => e.name));
    for (const name of read)
      expect(documented, `${name} is read in src/ but not documented in src/docs/topics.ts`).toContain(name);
    const text = await rendered();
    for (const name of documented) expect(text).toContain(name);
  });
});

describe('README.md against the same source', () => {
  it('names every environment variable, exit code, NDJSON event field and export format', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    for (const e of environment(commands)) expect(readme, e.name).toContain(`\`${e.name}\``);
    // The table says exactly what the one source says (backticks aside), code for code.
    const start = readme.indexOf('| code | meaning |');
    const rows = readme.slice(start).split('\n\n')[0]?.split('\n').slice(2) ?? [];
    expect(rows.map((r) => r.replace(/`/g, ''))).toEqual(EXIT_CODES.map((e) => `| ${e.code} | ${e.meaning} |`));
    for (const [type, doc] of Object.entries(NDJSON_EVENTS)) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${type}\` |`));
      expect(row, type).toBeDefined();
      for (const field of Object.keys(doc.fields)) expect(row, `${type}.${field}`).toContain(`\`${field}\``);
    }
    // Each export format has its row in README's table or in the manual page that documents it (docs/*.md).
    const manual = await Promise.all(
      (await readdir(path.join(ROOT, 'docs')))
        .filter((f) => f.endsWith('.md'))
        .map((f) => readFile(path.join(ROOT, 'docs', f), 'utf8')),
    );
    const documented = [readme, ...manual].join('\n');
    for (const f of EXPORT_FORMATS_DOC) expect(documented, f.name).toMatch(new RegExp(`^\\| \`${f.name}\``, 'm'));
    for (const o of cliReference(commands).globalOptions.filter((g) => g.name !== 'help' && g.name !== 'version')) {
      expect(readme, `--${o.name}`).toContain(o.negatable ? `--no-${o.name}` : `--${o.name}`);
    }
  });

  // README's option tables are written from the flag tables (npm run docs).
  it('holds the option tables the flag tables make', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('<!-- options: global -->\n| option | default | meaning |');
    expect(readme).toContain('<!-- options: sim -->\n| option | default | meaning |');
    expect(readme, 'stale: run npm run docs').toBe(generatedReadme(readme));
  });

  it('runs every man-page example in README (where a test executes it)', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    for (const e of EXAMPLES) for (const line of e.command.split('\n')) expect(readme).toContain(line);
  });
});
