// The chunked line reader (src/files/lines.ts) on real files, at every chunk size from one byte
// up, so that every line, newline and multi-byte character falls across a chunk's end somewhere.
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachLine } from '../../src/files/lines.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The lines forEachLine visits in `bytes`, read `chunk` bytes at a time. */
async function linesOf(bytes: Buffer, chunk: number, name = 'f'): Promise<string[]> {
  const file = join(dir, name);
  await writeFile(file, bytes);
  const fd = openSync(file, 'r');
  try {
    const seen: string[] = [];
    forEachLine(fd, (l) => seen.push(l), chunk);
    return seen;
  } finally {
    closeSync(fd);
  }
}

/** What splitting the whole file's text gives: the lines, without the empty one after a final newline. */
const wholeLines = (bytes: Buffer): string[] => {
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

describe('forEachLine', () => {
  const text = [
    '{"id":"a","title":"plain"}',
    '',
    '{"id":"b","title":"Größe — naïve 日本語 🙂"}',
    'a line with a carriage return\r',
    'x'.repeat(70),
    '   ',
    '{"id":"c","tit',
  ].join('\n');

  it('visits the lines of the whole file at every chunk size, a long line and a last line without a newline included', async () => {
    for (const ending of ['', '\n']) {
      const bytes = Buffer.from(text + ending);
      const expected = wholeLines(bytes);
      for (let chunk = 1; chunk <= bytes.length + 1; chunk++)
        expect({ chunk, lines: await linesOf(bytes, chunk) }).toEqual({ chunk, lines: expected });
    }
  });

  it('decodes an invalid byte sequence as decoding the whole file does', async () => {
    // A lone continuation byte, and a three-byte sequence cut short by the newline.
    const bytes = Buffer.concat([
      Buffer.from('ok\n'),
      Buffer.from([0x80, 0x41, 0x0a, 0xe6, 0x97, 0x0a]),
      Buffer.from('end'),
    ]);
    const expected = wholeLines(bytes);
    expect(expected[1]).toContain('\ufffd');
    for (let chunk = 1; chunk <= bytes.length; chunk++) expect(await linesOf(bytes, chunk)).toEqual(expected);
  });

  it('visits nothing in an empty file, and an empty line for a file of one newline', async () => {
    expect(await linesOf(Buffer.alloc(0), 4)).toEqual([]);
    expect(await linesOf(Buffer.from('\n'), 4)).toEqual(['']);
  });

  it('starts at the descriptor’s offset and leaves it at the end', async () => {
    const file = join(dir, 'offset');
    await writeFile(file, 'skip\nkeep\nlast');
    const fd = openSync(file, 'r');
    try {
      readSync(fd, Buffer.alloc(5), 0, 5, null);
      const seen: string[] = [];
      forEachLine(fd, (l) => seen.push(l), 3);
      expect(seen).toEqual(['keep', 'last']);
      expect(readSync(fd, Buffer.alloc(1), 0, 1, null)).toBe(0);
    } finally {
      closeSync(fd);
    }
  });
});
