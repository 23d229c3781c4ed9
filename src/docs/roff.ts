/**
 * roff escaping for man(7) text lines. Output is pure ASCII so `groff -man` needs no preconv:
 * the few typographic characters the help texts use map to groff's named glyphs, and any
 * other non-ASCII character is refused, so the man-page test catches it instead of a reader.
 */
const GLYPHS: Record<string, string> = {
  '\\': '\\e',
  '-': '\\-',
  "'": '\\(aq',
  '`': '\\(ga',
  '~': '\\(ti',
  '^': '\\(ha',
  '"': '\\(dq',
  '—': '\\(em',
  '–': '\\(en',
  '…': '...',
  '·': '\\(md',
  '“': '\\(lq',
  '”': '\\(rq',
  '‘': '\\(oq',
  '’': '\\(cq',
  '→': '\\(->',
};

export function roff(text: string): string {
  let out = '';
  for (const ch of text) {
    const glyph = GLYPHS[ch];
    if (glyph !== undefined) out += glyph;
    else if (ch === '\n' || ch === '\t') out += ' ';
    else if (ch < ' ' || ch > '~')
      throw new Error(
        `no roff glyph for U+${ch.codePointAt(0)?.toString(16).padStart(4, '0')} in ${JSON.stringify(text)}`,
      );
    else out += ch;
  }
  // A text line starting with a control character would be read as a request.
  return out.startsWith('.') || out.startsWith("'") ? `\\&${out}` : out;
}

export const bold = (text: string): string => `\\fB${roff(text)}\\fR`;
export const italic = (text: string): string => `\\fI${roff(text)}\\fR`;
