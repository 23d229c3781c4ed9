/** A CSV cell error: the 1-based line the record starts on, and what is wrong. */
export interface CsvError {
  line: number;
  message: string;
}

export type CsvResult = { ok: true; rows: { line: number; cells: string[] }[] } | { ok: false; error: CsvError };

/**
 * RFC 4180 records: fields separated by commas, a field in double quotes may hold commas, line
 * breaks and doubled quotes (`""`). CRLF and LF both end a record; a blank line is skipped. A
 * small parser of our own rather than a dependency: the grammar is a dozen lines, and a batch
 * file must fail with the line it broke on (docs/reliability.md "Batches").
 */
export function parseCsv(text: string): CsvResult {
  const rows: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let wasQuoted = false;
  let line = 1;
  let recordLine = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = (): void => {
    cells.push(cell);
    if (!(cells.length === 1 && cells[0] === '' && !wasQuoted)) rows.push({ line: recordLine, cells });
    cells = [];
    cell = '';
    wasQuoted = false;
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"') {
      if (cell !== '' || wasQuoted)
        return { ok: false, error: { line, message: 'a quote inside an unquoted field (quote the whole field)' } };
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      cells.push(cell);
      cell = '';
      wasQuoted = false;
    } else if (c === '\r' && text[i + 1] === '\n') {
      // The LF that follows ends the record.
    } else if (c === '\n') {
      endRecord();
      line++;
      recordLine = line;
    } else {
      if (wasQuoted)
        return { ok: false, error: { line, message: 'text after a closing quote (a quote inside must be doubled)' } };
      cell += c;
    }
  }
  if (quoted) return { ok: false, error: { line: recordLine, message: 'a quoted field is never closed' } };
  if (cell !== '' || cells.length > 0 || wasQuoted) endRecord();
  return { ok: true, rows };
}
