import { usageError } from '../errors.js';
import { oneLine } from '../terminal/sanitize.js';
import { parseCsv } from './csv.js';
import { commaList } from '../protocol/council-names.js';
import { checkNumber, ROUNDS_RULE } from '../protocol/number-rule.js';

export type BatchFormat = 'jsonl' | 'csv' | 'lines';
export const BATCH_FORMATS: readonly BatchFormat[] = ['jsonl', 'csv', 'lines'];

/** What an item may set for itself; the command line's turn flags fill the rest. */
export interface ItemOverrides {
  policy?: string;
  model?: string;
  agents?: string[];
  rounds?: number;
  system?: string;
  files?: string[];
  /** Gate thresholds in the `--gates` file's shape (validated when the item is resolved). */
  gates?: Record<string, unknown>;
}

/** One item of a batch file, before its template is filled. */
export interface BatchItem {
  id: string;
  /** 0-based position in the file: the `index` of its result line. */
  index: number;
  /** The 1-based line it starts on, for messages. */
  line: number;
  prompt?: string;
  vars: Record<string, string>;
  overrides: ItemOverrides;
}

/** The format a file name implies (`-`, or an unknown extension, is lines unless --format says). */
export function formatOf(file: string, given: BatchFormat | undefined): BatchFormat {
  if (given !== undefined) return given;
  const lower = file.toLowerCase();
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  if (lower.endsWith('.csv')) return 'csv';
  return 'lines';
}

const ID = /^[A-Za-z0-9._:@/-]{1,128}$/;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const OVERRIDE_KEYS = new Set(['policy', 'model', 'agents', 'rounds', 'system', 'files', 'gates']);

/**
 * The items of a batch file. Ids are given (`id`) or derived from the line number (`line-N`);
 * a duplicate, or a bad line, is a usage error naming the line, raised before anything is sent
 * (docs/reliability.md #140).
 */
export function parseItems(raw: string, format: BatchFormat, source: string): BatchItem[] {
  // A UTF-8 byte order mark (Windows editors write one) is not part of the first line, as in
  // the config file.
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const items =
    format === 'jsonl' ? jsonlItems(text, source) : format === 'csv' ? csvItems(text, source) : lineItems(text);
  const seen = new Map<string, number>();
  for (const item of items) {
    const first = seen.get(item.id);
    if (first !== undefined)
      throw usageError(
        `${oneLine(source, 200)} line ${item.line}: id '${item.id}' is also on line ${first}`,
        'each item needs its own id (results, --resume and sessions are matched by it)',
      );
    seen.set(item.id, item.line);
  }
  if (items.length === 0) throw usageError(`${oneLine(source, 200)} has no items`);
  return items;
}

function lineItems(text: string): BatchItem[] {
  const out: BatchItem[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    out.push({ id: `line-${i + 1}`, index: out.length, line: i + 1, prompt: raw, vars: {}, overrides: {} });
  });
  return out;
}

function csvItems(text: string, source: string): BatchItem[] {
  const parsed = parseCsv(text);
  if (!parsed.ok) throw usageError(`${oneLine(source, 200)} line ${parsed.error.line}: ${parsed.error.message}`);
  const [header, ...rows] = parsed.rows;
  if (header === undefined) return [];
  const names = header.cells.map((c) => c.trim());
  for (const [i, name] of names.entries()) {
    if (!VAR_NAME.test(name))
      throw usageError(
        `${oneLine(source, 200)} line ${header.line}: column '${oneLine(name, 40)}' is not a variable name`,
        'the header row names the variables: letters, digits, _ . -',
      );
    // Two columns of one name would leave the first's values unsent, silently.
    if (names.indexOf(name) !== i)
      throw usageError(
        `${oneLine(source, 200)} line ${header.line}: column '${name}' is named twice`,
        'give each column its own name',
      );
  }
  return rows.map((row, index) => {
    if (row.cells.length !== names.length)
      throw usageError(
        `${oneLine(source, 200)} line ${row.line}: ${row.cells.length} fields, the header has ${names.length}`,
      );
    const vars: Record<string, string> = {};
    names.forEach((n, i) => (vars[n] = row.cells[i] ?? ''));
    const id = vars['id'] ?? `line-${row.line}`;
    delete vars['id'];
    const prompt = vars['prompt'];
    delete vars['prompt'];
    checkId(id, source, row.line);
    return { id, index, line: row.line, ...(prompt === undefined ? {} : { prompt }), vars, overrides: {} };
  });
}

function jsonlItems(text: string, source: string): BatchItem[] {
  const out: BatchItem[] = [];
  const where = (n: number): string => `${oneLine(source, 200)} line ${n}`;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw usageError(`${where(line)} is not JSON: ${oneLine((err as Error).message, 120)}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw usageError(`${where(line)} must be one JSON object`, '{"id": "a", "prompt": "..."}');
    const obj = value as Record<string, unknown>;
    const rawId = obj['id'];
    if (rawId !== undefined && typeof rawId !== 'string' && typeof rawId !== 'number')
      throw usageError(`${where(line)}: id must be a string or a number`);
    const id = rawId === undefined ? `line-${line}` : String(rawId);
    checkId(id, source, line);
    const vars: Record<string, string> = {};
    const overrides: ItemOverrides = {};
    let prompt: string | undefined;
    for (const [key, v] of Object.entries(obj)) {
      if (key === 'id') continue;
      if (key === 'prompt') {
        if (typeof v !== 'string') throw usageError(`${where(line)}: prompt must be a string`);
        prompt = v;
      } else if (key === 'vars') {
        if (typeof v !== 'object' || v === null || Array.isArray(v))
          throw usageError(`${where(line)}: vars must be an object`);
        for (const [n, x] of Object.entries(v)) vars[n] = scalar(x, `${where(line)}: variable '${oneLine(n, 40)}'`);
      } else if (OVERRIDE_KEYS.has(key)) setOverride(overrides, key, v, where(line));
      else vars[key] = scalar(v, `${where(line)}: variable '${oneLine(key, 40)}'`);
    }
    for (const n of Object.keys(vars))
      if (!VAR_NAME.test(n)) throw usageError(`${where(line)}: '${oneLine(n, 40)}' is not a variable name`);
    out.push({ id, index: out.length, line, ...(prompt === undefined ? {} : { prompt }), vars, overrides });
  });
  return out;
}

function scalar(v: unknown, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw usageError(`${what} must be a string, number or boolean`);
}

function setOverride(o: ItemOverrides, key: string, v: unknown, where: string): void {
  const str = (): string => {
    if (typeof v !== 'string' || v.trim() === '') throw usageError(`${where}: ${key} must be a non-empty string`);
    return v;
  };
  const list = (): string[] => {
    if (typeof v === 'string') return commaList(v);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    throw usageError(`${where}: ${key} must be a list of strings`);
  };
  switch (key) {
    case 'policy':
      o.policy = str();
      break;
    case 'model':
      o.model = str();
      break;
    case 'system':
      o.system = str();
      break;
    case 'agents':
      o.agents = list();
      break;
    case 'files':
      o.files = list();
      break;
    case 'rounds':
      o.rounds = checkNumber(ROUNDS_RULE, v, `${where}: rounds`);
      break;
    case 'gates':
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        throw usageError(`${where}: gates must be an object`, '{"min-convergence": 0.8}');
      o.gates = v as Record<string, unknown>;
      break;
  }
}

function checkId(id: string, source: string, line: number): void {
  if (!ID.test(id))
    throw usageError(
      `${oneLine(source, 200)} line ${line}: id '${oneLine(id, 60)}' is not a usable id`,
      'ids use letters, digits and . _ : @ / - (at most 128)',
    );
}
