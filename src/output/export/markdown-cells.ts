/**
 * Small pieces of GitHub-flavoured markdown for reports built from server text: whatever an
 * agent wrote stays on its line, cannot open a table column or an HTML tag, and has a bounded
 * length, so one long claim cannot push a report past its size limit.
 */

/** Cuts `text` to `max` characters, saying so with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Text for a list item or a line: one line, no raw HTML. */
export function inline(text: string, max = 500): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max).replaceAll('<', '&lt;');
}

/** Text for a table cell: `inline`, and a `|` cannot end the cell. */
export function cell(text: string, max = 120): string {
  return inline(text, max).replaceAll('|', '\\|');
}

/** Inline code: backticks inside would end it early. */
export function code(text: string, max = 120): string {
  return `\`${inline(text, max).replaceAll('`', "'")}\``;
}

/** Inline code in a table cell: GitHub splits cells at a `|` even inside code, unless escaped. */
export const codeCell = (text: string, max = 120): string => code(text, max).replaceAll('|', '\\|');

export const score = (n: number | null | undefined): string =>
  typeof n === 'number' && Number.isFinite(n) ? n.toFixed(2) : 'not reported';

export const percent = (n: number | null | undefined): string =>
  typeof n === 'number' && Number.isFinite(n) ? `${Math.round(n * 100)}%` : 'not reported';

export function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

export const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The first lines of `lines` that fit in `max` bytes (each with its newline), and how many did
 * not: the caller says what was left out, so a cut is never silent.
 */
export function fitLines(lines: readonly string[], max: number): { kept: string[]; dropped: number } {
  let used = 0;
  const kept: string[] = [];
  for (const line of lines) {
    const size = bytes(line) + 1;
    if (used + size > max) break;
    used += size;
    kept.push(line);
  }
  return { kept, dropped: lines.length - kept.length };
}
