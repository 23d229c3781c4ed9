/**
 * A minimal terminal: enough of VT100 to see what a user would be left looking at after a
 * spinner drew, cleared and redrew itself (CR, LF, CSI G, K and A; other sequences ignored).
 */
export function renderScreen(bytes: string): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = (): string[] => {
    while (rows.length <= row) rows.push([]);
    return rows[row] as string[];
  };
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i] as string;
    if (ch === '\x1b' && bytes[i + 1] === '[') {
      let j = i + 2;
      while (j < bytes.length && /[0-9;?]/.test(bytes[j] as string)) j++;
      const params = bytes.slice(i + 2, j).replace('?', '');
      const n = params === '' ? undefined : Number(params.split(';')[0]);
      const final = bytes[j];
      if (final === 'G') col = (n ?? 1) - 1;
      else if (final === 'A') row = Math.max(0, row - (n ?? 1));
      else if (final === 'K') {
        const l = line();
        if ((n ?? 0) === 0) l.length = Math.min(l.length, col);
        else if (n === 2) l.length = 0;
        else for (let k = 0; k <= col && k < l.length; k++) l[k] = ' ';
      }
      i = j;
      continue;
    }
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      col = 0;
    } else {
      const l = line();
      while (l.length < col) l.push(' ');
      l[col] = ch;
      col++;
    }
  }
  const out = rows.map((r) => r.join('').trimEnd());
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}
