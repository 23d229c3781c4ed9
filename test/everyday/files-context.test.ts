import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES, MAX_TOTAL_BYTES } from '../../src/input/attachments.js';
import { parseNdjson, useRig } from '../harness/rig.js';

const rig = useRig();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-files-'));
  await mkdir(join(dir, 'src', 'deep'), { recursive: true });
  await writeFile(join(dir, 'notes.txt'), 'Reads: 40k/s.\n');
  await writeFile(join(dir, 'src', 'b.ts'), 'export const b = 2;\n');
  await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(join(dir, 'src', 'deep', 'c.ts'), 'export const c = 3;\n');
  await writeFile(join(dir, 'src', 'readme.md'), 'not a ts file\n');
  await writeFile(join(dir, 'fences.md'), 'text\n````ts\ncode\n````\nmore ``` here\n');
  await writeFile(join(dir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
  await writeFile(join(dir, 'big.txt'), 'x'.repeat(MAX_FILE_BYTES + 1));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const chats = () => rig.sim.requests.filter((r) => r.path === '/v1/chat/completions');
const lastUserMessage = (): string => {
  const body = chats().at(-1)?.body as { messages?: Array<{ role: string; content: string }> } | undefined;
  return body?.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '';
};
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const sessionOf = (stdout: string): string => {
  const finish = parseNdjson(stdout).find((e) => e['type'] === 'finish');
  return String(finish?.['session']);
};

describe('-f/--file: files as context after the question', () => {
  it('one file: the question, a blank line, the file fenced with its path as the info string', async () => {
    const path = join(dir, 'notes.txt');
    const r = await rig.run(['ask', '-o', 'final', '-f', path, 'What should we check first?']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe(`What should we check first?\n\n\`\`\`${path}\nReads: 40k/s.\n\`\`\``);
  });

  it('several files, in the order given, a blank line between blocks; a file named twice is sent once', async () => {
    const a = join(dir, 'src', 'a.ts');
    const n = join(dir, 'notes.txt');
    const r = await rig.run(['ask', '-o', 'final', '-f', n, '--file', a, '-f', n, 'compare']);
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe(
      `compare\n\n\`\`\`${n}\nReads: 40k/s.\n\`\`\`\n\n\`\`\`${a}\nexport const a = 1;\n\`\`\``,
    );
  });

  it('a glob is expanded by nsed, its matches sorted; the turn records path, size and SHA-256 of each', async () => {
    const r = await rig.run(['ask', '-o', 'ndjson', '-f', join(dir, 'src', '**', '*.ts'), 'review these']);
    expect(r.code).toBe(0);
    const sent = lastUserMessage();
    const order = ['a.ts', 'b.ts', join('deep', 'c.ts')].map((f) => sent.indexOf(`\`\`\`${join(dir, 'src', f)}\n`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(sent).not.toContain('readme.md');
    const session = await rig.session<{ turns: Array<{ role: string; content: string; attachments?: unknown }> }>(
      sessionOf(r.stdout),
    );
    const user = session.turns.find((t) => t.role === 'user');
    expect(user?.attachments).toEqual([
      { path: join(dir, 'src', 'a.ts'), size: 20, sha256: sha('export const a = 1;\n') },
      { path: join(dir, 'src', 'b.ts'), size: 20, sha256: sha('export const b = 2;\n') },
      { path: join(dir, 'src', 'deep', 'c.ts'), size: 20, sha256: sha('export const c = 3;\n') },
    ]);
    // Recorded once: in the prompt itself, not a second copy beside it.
    expect(JSON.stringify(session).split('export const a = 1;').length - 1).toBe(1);
  });

  it('a file holding backtick fences gets a longer fence, so it cannot close its block early (reliability #117)', async () => {
    const path = join(dir, 'fences.md');
    const r = await rig.run(['ask', '-o', 'final', '-f', path, 'summarise']);
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe(
      `summarise\n\n\`\`\`\`\`${path}\ntext\n\`\`\`\`ts\ncode\n\`\`\`\`\nmore \`\`\` here\n\`\`\`\`\``,
    );
  });

  it('a binary file is refused with exit 2 naming it, and nothing is sent (reliability #116)', async () => {
    const before = chats().length;
    const r = await rig.run(['ask', '-f', join(dir, 'image.png'), 'what is this']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `nsed: -f ${join(dir, 'image.png')} is a binary file\nhint: attach text files only (UTF-8)\n`,
    );
    expect(chats().length).toBe(before);
  });

  it('a missing file is exit 3 naming it; a glob matching nothing likewise', async () => {
    const missing = await rig.run(['ask', '-f', join(dir, 'nope.txt'), 'q']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(`nsed: -f ${join(dir, 'nope.txt')}: no such file`);
    const none = await rig.run(['ask', '-f', join(dir, '*.nothing'), 'q']);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain(`-f ${join(dir, '*.nothing')}: no file matches`);
  });

  it('over the cap per file, or in total: exit 2 naming the file and the cap', async () => {
    const big = await rig.run(['ask', '-f', join(dir, 'big.txt'), 'q']);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain(
      `-f ${join(dir, 'big.txt')} is larger than ${MAX_FILE_BYTES / 1024} KiB, the cap per file`,
    );
    const many = join(dir, 'many');
    await mkdir(many);
    const count = Math.ceil(MAX_TOTAL_BYTES / (MAX_FILE_BYTES - 1)) + 1;
    for (let i = 0; i < count; i++) await writeFile(join(many, `f${i}.txt`), 'y'.repeat(MAX_FILE_BYTES - 1));
    const total = await rig.run(['ask', '-f', join(many, '*.txt'), 'q']);
    expect(total.code).toBe(2);
    expect(total.stderr).toMatch(
      new RegExp(`-f .*f\\d+\\.txt: the files attached come to more than ${MAX_TOTAL_BYTES / 1024} KiB in all`),
    );
  });

  it('a directory is refused (exit 2) with the glob that would attach its files', async () => {
    const r = await rig.run(['ask', '-f', join(dir, 'src'), 'q']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`-f ${join(dir, 'src')} is a directory`);
  });

  it('-f - is standard input, read to its end; its info string is stdin', async () => {
    const r = await rig.run(['ask', '-o', 'final', '-f', '-', 'explain'], { stdin: 'ERROR: disk full\n' });
    expect(r.code).toBe(0);
    expect(lastUserMessage()).toBe('explain\n\n```stdin\nERROR: disk full\n```');
  });

  it('continue and fork … PROMPT attach files too; sessions show lists them', async () => {
    const first = await rig.run(['ask', '-o', 'ndjson', 'start']);
    const id = sessionOf(first.stdout);
    const a = join(dir, 'src', 'a.ts');
    const cont = await rig.run(['continue', '-s', id, '-o', 'final', '-f', a, 'and this one?']);
    expect(cont.code).toBe(0);
    expect(lastUserMessage()).toBe(`and this one?\n\n\`\`\`${a}\nexport const a = 1;\n\`\`\``);
    const forked = await rig.run(['fork', id, '-o', 'final', '-f', join(dir, 'notes.txt'), 'branch with notes']);
    expect(forked.code).toBe(0);
    expect(lastUserMessage()).toContain(`branch with notes\n\n\`\`\`${join(dir, 'notes.txt')}\n`);
    const show = await rig.run(['sessions', 'show', id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`${a} (20 bytes, sha256 ${sha('export const a = 1;\n').slice(0, 12)})`);
  });
});
