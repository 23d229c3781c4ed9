/**
 * Findings: the located part of a council's review (docs/ci.md "Findings on the changed lines"). An
 * answer checked against --schema holds, at the JSON Pointer `--findings` names, an array whose
 * items say where (`file`, `line`, optional `end_line`), how bad (`severity`), what
 * (`message`, optional `title`) and, optionally, the fix as the lines' replacement
 * (`suggestion`). The server is untrusted: this module only reads the shape; the workspace check (src/files/workspace-file.ts) decides which findings may be written at all.
 */

export type FindingSeverity = 'error' | 'warning' | 'notice';

export const FINDING_SEVERITIES: readonly FindingSeverity[] = ['error', 'warning', 'notice'];

export interface Finding {
  /** As the answer gave it: checked against the workspace before anything is written. */
  file: string;
  line: number;
  endLine: number | null;
  severity: FindingSeverity;
  message: string;
  title: string | null;
  /** The text that should replace lines `line` to `endLine` (or `line` alone); null when none was given. */
  suggestion: string | null;
}

/** A finding that may be written: its path relative to the workspace, with `/` between its parts. */
export interface PlacedFinding extends Finding {
  path: string;
}

/** The findings read, and one line per item that was not a finding (never dropped silently). */
export interface FindingsRead {
  findings: Finding[];
  problems: string[];
}

/** The `--findings` pointer `--schema review` implies. */
export const REVIEW_FINDINGS_POINTER = '/findings';

/** Longest message and title kept: a server's text is cut, never trusted to be short. */
const MAX_MESSAGE = 4000;
const MAX_TITLE = 200;
/** A suggestion longer than this is no suggestion (it could not be cut without changing the fix). */
const MAX_SUGGESTION = 20_000;

/** A JSON Pointer (RFC 6901) as its reference tokens; undefined when it is not one. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens = pointer.slice(1).split('/');
  if (tokens.some((t) => /~(?![01])/.test(t))) return undefined;
  return tokens.map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value at `pointer` in `value`, or undefined when nothing is there. */
export function atPointer(value: unknown, tokens: readonly string[]): unknown {
  let at: unknown = value;
  for (const t of tokens) {
    if (Array.isArray(at)) {
      if (!/^(0|[1-9]\d*)$/.test(t)) return undefined;
      at = at[Number(t)];
    } else if (typeof at === 'object' && at !== null && Object.hasOwn(at, t)) {
      at = (at as Record<string, unknown>)[t];
    } else return undefined;
  }
  return at;
}

const isLine = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;

/**
 * The findings at `pointer` in the structured answer. A missing array is one problem; each item
 * without a usable `file`, `line`, `severity` or `message` is one problem, naming its index.
 */
export function readFindings(structured: unknown, pointer: string): FindingsRead {
  const tokens = pointerTokens(pointer) ?? [];
  const list = atPointer(structured, tokens);
  if (!Array.isArray(list))
    return { findings: [], problems: [`the answer has no array at ${pointer === '' ? '/' : pointer}`] };
  const findings: Finding[] = [];
  const problems: string[] = [];
  for (const [i, item] of list.entries()) {
    const where = `${pointer}/${i}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push(`${where} is not an object`);
      continue;
    }
    const f = item as Record<string, unknown>;
    const severity = f['severity'];
    const end = f['end_line'];
    if (typeof f['file'] !== 'string' || f['file'] === '') problems.push(`${where} has no file`);
    else if (!isLine(f['line'])) problems.push(`${where} has no line (a whole number from 1)`);
    else if (end !== undefined && end !== null && !isLine(end))
      problems.push(`${where} has an end_line that is no line`);
    else if (!FINDING_SEVERITIES.includes(severity as FindingSeverity))
      problems.push(`${where} has no severity (error, warning or notice)`);
    else if (typeof f['message'] !== 'string' || f['message'].trim() === '') problems.push(`${where} has no message`);
    else if (f['suggestion'] !== undefined && f['suggestion'] !== null && typeof f['suggestion'] !== 'string')
      problems.push(`${where} has a suggestion that is no text`);
    else
      findings.push({
        file: f['file'],
        line: f['line'],
        endLine: isLine(end) ? end : null,
        severity: severity as FindingSeverity,
        message: f['message'].slice(0, MAX_MESSAGE),
        title: typeof f['title'] === 'string' && f['title'].trim() !== '' ? f['title'].slice(0, MAX_TITLE) : null,
        suggestion: suggestionOf(f['suggestion']),
      });
  }
  return { findings, problems };
}

/**
 * A suggestion as the lines' replacement: one trailing line break dropped (the replaced lines
 * end where they ended), a CRLF read as LF; too long a text is none, since a cut fix is a wrong one.
 */
function suggestionOf(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > MAX_SUGGESTION) return null;
  return v.replace(/\r\n/g, '\n').replace(/\n$/, '');
}
