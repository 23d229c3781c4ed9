// nsed's entry merged into a host's MCP configuration, as text in and a decision out: nothing here
// reads or writes a file (commands/mcp-install.ts does, through the outside-file writer). Every
// other server's entry and every other key keeps its meaning; a JSON file is written back with the
// indentation it had, and a TOML file (Codex) is edited only in nsed's own table, byte for byte
// elsewhere, so no TOML library is needed.

import type { McpHost } from './hosts.js';

/** What merging nsed's entry into a file's text comes to. */
export type ConfigEdit =
  /** nsed's entry is there as it would be written: the file is left as it is. */
  | { kind: 'unchanged' }
  | { kind: 'added' | 'replaced'; text: string }
  /** A different nsed entry is there and --force was not given: `existing` shows it. */
  | { kind: 'conflict'; existing: string }
  /** The file cannot be read well enough to rewrite it safely: `reason` says why. */
  | { kind: 'unreadable'; reason: string };

/** The name nsed's entry goes under in every host. */
export const SERVER_NAME = 'nsed';

/**
 * nsed's entry merged into `current` (undefined: the file does not exist yet). A different nsed
 * entry is replaced only with `force`.
 */
export function mergeEntry(
  host: McpHost,
  current: string | undefined,
  entry: Record<string, unknown>,
  force: boolean,
): ConfigEdit {
  return host.format === 'toml'
    ? mergeToml(host.serversKey, current ?? '', entry, force)
    : mergeJson(host, current, entry, force);
}

/** nsed's entry as the file would hold it alone: what `--print` shows. */
export function entryText(host: McpHost, entry: Record<string, unknown>): string {
  if (host.format === 'toml') return tomlTable([...host.serversKey, SERVER_NAME], entry, '\n');
  let doc: Record<string, unknown> = { [SERVER_NAME]: entry };
  for (const key of [...host.serversKey].reverse()) doc = { [key]: doc };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

// ---- JSON --------------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function mergeJson(host: McpHost, current: string | undefined, entry: JsonObject, force: boolean): ConfigEdit {
  let doc: unknown = {};
  // A byte-order mark (some Windows editors write one) is kept, not parsed.
  const bom = current?.startsWith('\uFEFF') === true ? '\uFEFF' : '';
  if (current !== undefined && current.trim() !== '') {
    try {
      doc = JSON.parse(current.slice(bom.length));
    } catch (err) {
      // JSON with comments or trailing commas (VS Code, Cursor) included: rewriting it would drop them.
      const why = err instanceof Error ? err.message : String(err);
      return { kind: 'unreadable', reason: `it is not plain JSON (${why.slice(0, 120)}); comments are not rewritten` };
    }
  }
  if (!isObject(doc)) return { kind: 'unreadable', reason: 'it holds no JSON object' };
  const foreign = host.foreignLayout?.(doc);
  if (foreign !== undefined) return { kind: 'unreadable', reason: foreign };
  const { serversKey } = host;
  let servers: JsonObject = doc;
  for (const [i, key] of serversKey.entries()) {
    const next = Object.hasOwn(servers, key) ? servers[key] : undefined;
    if (next === undefined) {
      const made: JsonObject = {};
      servers[key] = made;
      servers = made;
    } else if (isObject(next)) servers = next;
    else return { kind: 'unreadable', reason: `"${serversKey.slice(0, i + 1).join('.')}" is not an object` };
  }
  const existing = Object.hasOwn(servers, SERVER_NAME) ? servers[SERVER_NAME] : undefined;
  if (existing !== undefined && sameValue(existing, entry)) return { kind: 'unchanged' };
  if (existing !== undefined && !force) return { kind: 'conflict', existing: JSON.stringify(existing) };
  servers[SERVER_NAME] = entry;
  const indent = current === undefined ? '  ' : (/^[\t ]+(?=")/m.exec(current)?.[0] ?? '  ');
  const newline = current?.includes('\r\n') === true ? '\r\n' : '\n';
  const text = JSON.stringify(doc, null, indent).replaceAll('\n', newline);
  return { kind: existing === undefined ? 'added' : 'replaced', text: `${bom}${text}${newline}` };
}

/** Equal as JSON values: the same keys and values, whatever the order of an object's keys. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return a === b;
}

// ---- TOML (Codex) ------------------------------------------------------------------------------

/** `[a.b]` or `[a."b"]`: a table header, with an optional comment after it. */
const TABLE_HEADER = /^[\t ]*\[(?!\[)([^\]]*)\][\t ]*(?:#.*)?$/;
const ARRAY_HEADER = /^[\t ]*\[\[/;

interface TomlLine {
  text: string;
  /** The table header this line opens, as its dotted keys; undefined for any other line. */
  header?: string[];
  /** The keys of the table the line sits in ([] before the first header). */
  table: string[];
  /** Inside a multi-line string: not a header or a key, whatever it looks like. */
  inString: boolean;
}

/** `a . "b"` as ['a', 'b']; a key this simple reader cannot split gives undefined. */
function dottedKeys(raw: string): string[] | undefined {
  const keys: string[] = [];
  for (const part of raw.split('.')) {
    const k = part.trim();
    const m = /^(?:"([^"\\]*)"|'([^']*)'|([A-Za-z0-9_-]+))$/.exec(k);
    if (m === null) return undefined;
    keys.push(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return keys;
}

function tomlLines(text: string): TomlLine[] {
  const out: TomlLine[] = [];
  let table: string[] = [];
  let open: '"""' | "'''" | undefined;
  // Split keeping each line's ending, so the lines joined are the text again, byte for byte.
  for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    const body = line.replace(/\r?\n$/, '');
    const inString = open !== undefined;
    if (!inString) {
      const m = TABLE_HEADER.exec(body);
      const keys = m === null ? undefined : dottedKeys(m[1] ?? '');
      if (keys !== undefined) {
        table = keys;
        out.push({ text: line, header: keys, table, inString });
        continue;
      }
      if (ARRAY_HEADER.test(body)) table = ['[['];
    }
    out.push({ text: line, table, inString });
    for (const quote of body.match(/"""|'''/g) ?? []) {
      if (open === undefined) open = quote as '"""' | "'''";
      else if (open === quote) open = undefined;
    }
  }
  return out;
}

const startsWith = (keys: readonly string[], prefix: readonly string[]): boolean =>
  prefix.every((k, i) => keys[i] === k);

function mergeToml(serversKey: readonly string[], text: string, entry: JsonObject, force: boolean): ConfigEdit {
  const own = [...serversKey, SERVER_NAME];
  const lines = tomlLines(text);
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  // nsed defined some other way (`nsed = { … }` under [mcp_servers], or a dotted key) is not
  // edited textually: refused rather than shadowed by a second definition.
  const elsewhere = lines.find((l) => {
    if (l.inString || l.header !== undefined) return false;
    const key = /^[\t ]*([^=#[]+?)[\t ]*=/.exec(l.text)?.[1];
    const keys = key === undefined ? undefined : dottedKeys(key);
    return keys !== undefined && startsWith([...l.table, ...keys], own) && !startsWith(l.table, own);
  });
  if (elsewhere !== undefined)
    return {
      kind: 'unreadable',
      reason: `it defines ${own.join('.')} in a form nsed does not edit (${elsewhere.text.trim().slice(0, 60)})`,
    };

  // Every line of nsed's table and its sub-tables ([mcp_servers.nsed.env]), less the comments
  // and blank lines that end a run of them: those stand before the next header, and stay with it.
  const mine = new Set(lines.flatMap((l, i) => (startsWith(l.table, own) ? [i] : [])));
  for (const i of [...mine].sort((x, y) => y - x)) {
    const l = lines[i];
    if (l === undefined || mine.has(i + 1) || l.header !== undefined || l.inString) continue;
    if (/^[\t ]*(?:#.*)?\r?\n?$/.test(l.text)) mine.delete(i);
  }

  const block = tomlTable(own, entry, newline);
  if (mine.size === 0) {
    const sep = text === '' ? '' : text.endsWith('\n') ? newline : `${newline}${newline}`;
    return { kind: 'added', text: `${text}${sep}${block}` };
  }
  const existingText = [...mine].map((i) => lines[i]?.text ?? '').join('');
  if (sameTable(existingText, own, entry)) return { kind: 'unchanged' };
  if (!force) return { kind: 'conflict', existing: existingText.trim().replace(/\s*\r?\n\s*/g, '; ') };
  const first = Math.min(...mine);
  const kept = lines.flatMap((l, i) => (i === first ? [block] : mine.has(i) ? [] : [l.text]));
  return { kind: 'replaced', text: kept.join('') };
}

/** Whether a table's text says exactly `entry`: its header alone, then one `key = value` per key. */
function sameTable(text: string, own: readonly string[], entry: JsonObject): boolean {
  const got: JsonObject = {};
  for (const line of text.split(/\r?\n/)) {
    const body = line.trim();
    if (body === '' || body.startsWith('#')) continue;
    const header = TABLE_HEADER.exec(body);
    if (header !== null) {
      const keys = dottedKeys(header[1] ?? '');
      if (keys === undefined || keys.length !== own.length || !startsWith(keys, own)) return false;
      continue;
    }
    const m = /^([A-Za-z0-9_-]+)[\t ]*=[\t ]*(.*)$/.exec(body);
    if (m === null) return false;
    const value = tomlValue(m[2] ?? '');
    if (value === undefined) return false;
    got[m[1] ?? ''] = value;
  }
  return sameValue(got, entry);
}

/**
 * One TOML value of the kinds nsed writes (a basic or literal string, an integer, a boolean, a
 * one-line array of those), a comment after it allowed; anything else is undefined (not nsed's).
 */
function tomlValue(raw: string): unknown {
  let rest = raw.trim();
  const one = (): unknown => {
    let m = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
    if (m !== null) {
      rest = rest.slice(m[0].length).trim();
      try {
        return JSON.parse(`"${m[1] ?? ''}"`) as string;
      } catch {
        return undefined;
      }
    }
    m = /^'([^']*)'/.exec(rest) ?? /^([+-]?\d[\d_]*)(?![.eE\d])/.exec(rest) ?? /^(true|false)\b/.exec(rest);
    if (m === null) return undefined;
    rest = rest.slice(m[0].length).trim();
    if (m[0].startsWith("'")) return m[1];
    if (m[1] === 'true' || m[1] === 'false') return m[1] === 'true';
    return Number((m[1] ?? '').replaceAll('_', ''));
  };
  let value: unknown;
  if (rest.startsWith('[')) {
    rest = rest.slice(1).trim();
    const items: unknown[] = [];
    while (!rest.startsWith(']')) {
      const v = one();
      if (v === undefined) return undefined;
      items.push(v);
      if (rest.startsWith(',')) rest = rest.slice(1).trim();
      else if (!rest.startsWith(']')) return undefined;
    }
    rest = rest.slice(1).trim();
    value = items;
  } else value = one();
  return rest === '' || rest.startsWith('#') ? value : undefined;
}

/** `[mcp_servers.nsed]` and one `key = value` line per key of `entry` (strings, numbers, arrays of strings). */
function tomlTable(keys: readonly string[], entry: JsonObject, newline: string): string {
  const value = (v: unknown): string =>
    Array.isArray(v) ? `[${v.map(value).join(', ')}]` : typeof v === 'string' ? JSON.stringify(v) : String(v);
  const lines = [`[${keys.join('.')}]`, ...Object.entries(entry).map(([k, v]) => `${k} = ${value(v)}`)];
  return lines.map((l) => `${l}${newline}`).join('');
}
