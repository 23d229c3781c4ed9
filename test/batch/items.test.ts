import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/batch/csv.js';
import { formatOf, parseItems } from '../../src/batch/items.js';
import { resolveItems } from '../../src/batch/resolve.js';
import { inShard, parseShard } from '../../src/batch/shard.js';
import { batchExit, statusOf } from '../../src/batch/status.js';
import { parseTemplate } from '../../src/input/template.js';

describe('CSV (RFC 4180)', () => {
  it('reads quoted commas, doubled quotes, line breaks inside quotes and CRLF', () => {
    const r = parseCsv('id,text\r\na,"x, ""y"""\r\nb,"two\nlines"\r\n\r\nc,\n');
    expect(r).toEqual({
      ok: true,
      rows: [
        { line: 1, cells: ['id', 'text'] },
        { line: 2, cells: ['a', 'x, "y"'] },
        { line: 3, cells: ['b', 'two\nlines'] },
        { line: 6, cells: ['c', ''] },
      ],
    });
  });
  it('names the line of a quote never closed, and of text after a closing quote', () => {
    expect(parseCsv('id\n"a\n')).toEqual({ ok: false, error: { line: 2, message: 'a quoted field is never closed' } });
    expect(parseCsv('a,"b"c\n')).toMatchObject({ ok: false, error: { line: 1 } });
    expect(parseCsv('a,b"c\n')).toMatchObject({ ok: false, error: { line: 1 } });
  });
});

describe('batch items (reliability #140)', () => {
  it('the format comes from the extension unless --format says', () => {
    expect(formatOf('a.jsonl', undefined)).toBe('jsonl');
    expect(formatOf('a.CSV', undefined)).toBe('csv');
    expect(formatOf('-', undefined)).toBe('lines');
    expect(formatOf('-', 'csv')).toBe('csv');
  });
  it('lines: one prompt per non-blank line, ids from the line number', () => {
    const items = parseItems('first\n\nsecond\n', 'lines', 'p.txt');
    expect(items.map((i) => [i.id, i.index, i.prompt])).toEqual([
      ['line-1', 0, 'first'],
      ['line-3', 1, 'second'],
    ]);
  });
  it('JSONL: id, prompt, variables and per-item overrides', () => {
    const [a, b] = parseItems(
      '{"id":"a","prompt":"hi","policy":"deep","rounds":2}\n{"id":7,"topic":"x","vars":{"n":3},"agents":"A,B"}\n',
      'jsonl',
      'i.jsonl',
    );
    expect(a).toMatchObject({ id: 'a', prompt: 'hi', overrides: { policy: 'deep', rounds: 2 } });
    expect(b).toMatchObject({ id: '7', vars: { topic: 'x', n: '3' }, overrides: { agents: ['A', 'B'] } });
  });
  it('CSV: columns are variables; id and prompt columns are the id and the prompt', () => {
    const [a] = parseItems('id,topic\nr1,"caches, fast"\n', 'csv', 'r.csv');
    expect(a).toMatchObject({ id: 'r1', vars: { topic: 'caches, fast' } });
  });
  it('a UTF-8 byte order mark before the first line is not part of it, in every format (reliability #175)', () => {
    expect(parseItems('\ufeff{"id":"a","prompt":"hi"}\n', 'jsonl', 'i.jsonl')).toMatchObject([
      { id: 'a', prompt: 'hi' },
    ]);
    expect(parseItems('\ufeffid,topic\nr1,x\n', 'csv', 'r.csv')).toMatchObject([{ id: 'r1', vars: { topic: 'x' } }]);
    expect(parseItems('\ufeffhello\n', 'lines', 'p.txt')).toMatchObject([{ prompt: 'hello' }]);
  });
  it('refuses a CSV header that names a column twice, naming it, instead of letting the last win (reliability #175)', () => {
    expect(() => parseItems('id,topic,topic\nr1,a,b\n', 'csv', 'r.csv')).toThrow(
      "r.csv line 1: column 'topic' is named twice",
    );
  });
  it('refuses a duplicate id naming both lines, before anything runs', () => {
    expect(() => parseItems('{"id":"a","prompt":"x"}\n{"id":"a","prompt":"y"}\n', 'jsonl', 'i.jsonl')).toThrow(
      "i.jsonl line 2: id 'a' is also on line 1",
    );
  });
  it('a bad line is a usage error naming it', () => {
    expect(() => parseItems('{"id":"a","prompt":"x"}\nnot json\n', 'jsonl', 'i.jsonl')).toThrow(/line 2 is not JSON/);
    expect(() => parseItems('id,x\na\n', 'csv', 'r.csv')).toThrow('r.csv line 2: 1 fields, the header has 2');
    expect(() => parseItems('\n\n', 'lines', 'p.txt')).toThrow('has no items');
  });
});

describe('templates per item', () => {
  const template = parseTemplate('Review {{topic}} for {{team}}', 't.md');
  it('fills each item and names the item and variable that is missing or unknown (exit 2)', () => {
    const items = parseItems('{"id":"a","topic":"x","team":"y"}\n', 'jsonl', 'i.jsonl');
    expect(resolveItems(items, template)[0]?.prompt).toBe('Review x for y');
    const missing = parseItems('{"id":"m","topic":"x"}\n', 'jsonl', 'i.jsonl');
    expect(() => resolveItems(missing, template)).toThrow("item 'm' (line 1): the template uses {{team}}");
    const extra = parseItems('{"id":"e","topic":"x","team":"y","tpoic":"z"}\n', 'jsonl', 'i.jsonl');
    expect(() => resolveItems(extra, template)).toThrow("item 'e' (line 1): variable 'tpoic' is not used");
    const noTemplate = parseItems('{"id":"v","topic":"x"}\n', 'jsonl', 'i.jsonl');
    expect(() => resolveItems(noTemplate, undefined)).toThrow("variable 'topic' but there is no --template");
  });
});

describe('shards', () => {
  it('every id falls in exactly one shard', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `item-${i}`);
    const shards = [1, 2, 3].map((index) => ids.filter((id) => inShard(id, { index, count: 3 })));
    expect(shards.flat().sort()).toEqual([...ids].sort());
    for (const s of shards) expect(s.length).toBeGreaterThan(30);
  });
  it('I/N is checked', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(() => parseShard('0/4')).toThrow('--shard must be I/N');
    expect(() => parseShard('5/4')).toThrow('--shard must be I/N');
  });
});

describe('statuses and the exit code of each mix', () => {
  it('maps outcomes to statuses', () => {
    expect(statusOf('complete', undefined)).toBe('ok');
    expect(statusOf('complete', 'gate_failed')).toBe('gate_failed');
    expect(statusOf('complete', 'inconclusive')).toBe('inconclusive');
    expect(statusOf('failed', 'server')).toBe('failed');
    expect(statusOf(undefined, 'server')).toBe('error');
    expect(statusOf('cancelled', 'cancelled')).toBe('cancelled');
    expect(statusOf(undefined, 'network')).toBe('error');
  });
  const l = (index: number, status: string, exit_code: number) =>
    ({ index, status, exit_code }) as Parameters<typeof batchExit>[0][number];
  it('0 when all are ok, else the code of the first item of the worst status', () => {
    expect(batchExit([l(0, 'ok', 0), l(1, 'ok', 0)], undefined)).toBe(0);
    expect(batchExit([l(0, 'ok', 0), l(1, 'gate_failed', 12)], undefined)).toBe(12);
    expect(batchExit([l(0, 'gate_failed', 12), l(1, 'inconclusive', 13)], undefined)).toBe(13);
    expect(batchExit([l(0, 'inconclusive', 13), l(1, 'cancelled', 9)], undefined)).toBe(9);
    expect(batchExit([l(0, 'cancelled', 9), l(2, 'failed', 5)], undefined)).toBe(5);
    expect(batchExit([l(3, 'error', 4), l(1, 'error', 6), l(0, 'failed', 5)], undefined)).toBe(6);
  });
  it('--min-pass-rate: exit 0 once that share is ok', () => {
    const mix = [l(0, 'ok', 0), l(1, 'ok', 0), l(2, 'ok', 0), l(3, 'gate_failed', 12)];
    expect(batchExit(mix, 0.75)).toBe(0);
    expect(batchExit(mix, 0.8)).toBe(12);
  });
});
