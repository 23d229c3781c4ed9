/**
 * The user manual as files: README.md (the front door) and every docs/*.md, found by glob so a
 * page added under docs/ is read by every test that reads the manual. Also what those tests need
 * from Markdown: the fenced blocks, and the anchors a link may name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md, then docs/*.md in name order, as paths from the repository root. */
export function manualFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export function readManual(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8');
}

export interface Block {
  /** The info string's first word: `sh`, `console`, `yaml`, or '' */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  lines: string[];
}

/** The fenced code blocks of a Markdown text; a fence closes only with as many backticks as opened it. */
export function fencedBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*([^`\s]*)[^`]*$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const fence = open[1] ?? '```';
    let end = i + 1;
    while (end < lines.length && (lines[end] ?? '').trim() !== fence) end++;
    if (end === lines.length) throw new Error(`unclosed ${fence} block at line ${i + 1}`);
    out.push({ lang: open[2] ?? '', line: i + 1, lines: lines.slice(i + 1, end) });
    i = end;
  }
  return out;
}

/** The text outside fenced blocks, line by line (a fenced line is ''), so line numbers stay true. */
export function proseLines(markdown: string): string[] {
  const lines = markdown.split('\n');
  for (const b of fencedBlocks(markdown)) for (let k = b.line - 1; k <= b.line + b.lines.length; k++) lines[k] = '';
  return lines;
}

/** GitHub's anchor for a heading: lower case, punctuation and code marks gone, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a link into this text may name: its headings' (numbered as GitHub numbers repeats) and `<a id>`s. */
export function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const h = /^#{1,6} (.*)$/.exec(line);
    if (h !== null) {
      const base = slug(h[1] ?? '');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a id="([^"]+)"><\/a>/g)) out.add(m[1] ?? '');
  }
  return out;
}
