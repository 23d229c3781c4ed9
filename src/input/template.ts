import { usageError } from '../errors.js';
import { commaList } from '../protocol/council-names.js';

/**
 * Prompt templates (docs/usage.md "Prompt templates"): a prompt file with `{{name}}` placeholders and an
 * optional front matter. Pure: text in, text out, so `ask`, `continue`, `fork` and a batch of
 * items all render the same way. Front matter is a block between two `---` lines at the top of
 * the file, either `key: value` lines or one JSON object:
 *
 *   ---
 *   system: You review TypeScript.
 *   policy: deep
 *   schema: review.schema.json
 *   files: src/app.ts, src/app.test.ts
 *   var.focus: error handling
 *   ---
 *
 * A value in double quotes is a JSON string (for line breaks: "a\nb"). `var.NAME` gives NAME a
 * default. In JSON: {"system", "policy", "schema", "files": [...], "vars": {NAME: value}}.
 */
export interface FrontMatter {
  system?: string;
  policy?: string;
  /** A path to the schema, or its JSON text. */
  schema?: string;
  files?: string[];
  /** Defaults for variables. */
  vars: Record<string, string>;
}

export interface Template {
  /** Where the template came from, for messages. */
  source: string;
  front: FrontMatter;
  body: string;
}

export interface TemplateProblem {
  variable: string;
  message: string;
}

/** A rendered template: its prompt, what its front matter sets, and the variables nothing used. */
export interface RenderedTemplate {
  prompt: string;
  system?: string;
  policy?: string;
  schema?: string;
  files: string[];
  unused: string[];
}

export type RenderResult = ({ ok: true } & RenderedTemplate) | { ok: false; errors: TemplateProblem[] };

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
const KEYS = ['system', 'policy', 'schema', 'files'] as const;

/** Splits a template file into its front matter and body; a malformed front matter is a usage error. */
export function parseTemplate(text: string, source: string): Template {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const open = /^---[ \t]*\r?\n/.exec(src);
  if (open === null) return { source, front: { vars: {} }, body: src };
  const rest = src.slice(open[0].length);
  const close = /^---[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (close === null)
    throw usageError(`template ${source}: the front matter has no closing --- line`, 'end it with a line of ---');
  const block = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length);
  const front = block.trim().startsWith('{') ? jsonFront(block, source) : lineFront(block, source);
  return { source, front, body };
}

function lineFront(block: string, source: string): FrontMatter {
  const front: FrontMatter = { vars: {} };
  for (const [i, raw] of block.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw usageError(
        `template ${source}: front matter line ${i + 2} is not key: value`,
        `got '${line.slice(0, 60)}'`,
      );
    const key = line.slice(0, colon).trim();
    const value = unquote(line.slice(colon + 1).trim(), source, key);
    if (key.startsWith('var.')) {
      const name = key.slice(4);
      if (!VAR_NAME.test(name)) throw usageError(`template ${source}: '${key}' does not name a variable`);
      front.vars[name] = value;
    } else if (key === 'files') {
      front.files = commaList(value);
    } else if (key === 'system' || key === 'policy' || key === 'schema') {
      front[key] = value;
    } else {
      throw unknownKey(source, key);
    }
  }
  return front;
}

function unquote(value: string, source: string, key: string): string {
  if (!value.startsWith('"')) return value;
  try {
    const v: unknown = JSON.parse(value);
    if (typeof v === 'string') return v;
  } catch {
    // reported below
  }
  throw usageError(`template ${source}: the value of '${key}' is not a valid JSON string`);
}

function jsonFront(block: string, source: string): FrontMatter {
  let raw: unknown;
  try {
    raw = JSON.parse(block);
  } catch (err) {
    throw usageError(`template ${source}: the front matter is not valid JSON: ${(err as Error).message.slice(0, 120)}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw usageError(`template ${source}: the front matter must be a JSON object`);
  const front: FrontMatter = { vars: {} };
  for (const [key, v] of Object.entries(raw)) {
    if (key === 'vars') {
      front.vars = varsObject(v, `template ${source}: "vars"`);
    } else if (key === 'files') {
      const list = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(list) || !list.every((f) => typeof f === 'string'))
        throw usageError(`template ${source}: "files" must be a list of paths`);
      front.files = list;
    } else if (key === 'system' || key === 'policy') {
      if (typeof v !== 'string') throw usageError(`template ${source}: "${key}" must be a string`);
      front[key] = v;
    } else if (key === 'schema') {
      // Inline, a schema is an object; it travels as its JSON text, as --schema JSON does.
      if (typeof v === 'string') front.schema = v;
      else if (typeof v === 'object' && v !== null) front.schema = JSON.stringify(v);
      else throw usageError(`template ${source}: "schema" must be a path or a JSON Schema object`);
    } else {
      throw unknownKey(source, key);
    }
  }
  return front;
}

const unknownKey = (source: string, key: string): Error =>
  usageError(
    `template ${source}: unknown front matter key '${key.slice(0, 40)}'`,
    `the keys are ${KEYS.join(', ')} and var.NAME (in JSON: "vars")`,
  );

/**
 * Variables from an object of strings (numbers and booleans are taken as their text), as a
 * --vars file or the front matter's "vars" give them. `where` names the source in errors.
 */
export function varsObject(v: unknown, where: string): Record<string, string> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw usageError(`${where} must be a JSON object of variable values`);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(v)) {
    if (!VAR_NAME.test(name)) throw usageError(`${where}: '${name.slice(0, 40)}' is not a variable name`);
    if (typeof value === 'string') out[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[name] = String(value);
    else throw usageError(`${where}: the value of '${name}' must be a string, number or boolean`);
  }
  return out;
}

/** `--var NAME=VALUE` as given. */
export function parseVarFlag(spec: string): [string, string] {
  const eq = spec.indexOf('=');
  const name = eq < 0 ? spec : spec.slice(0, eq);
  if (eq < 0 || !VAR_NAME.test(name))
    throw usageError(`--var '${spec.slice(0, 60)}' is not NAME=VALUE`, 'e.g. --var file=src/app.ts');
  return [name, spec.slice(eq + 1)];
}

/**
 * Fills every `{{name}}` of the body, the system text and the file list in one pass: a value
 * that itself holds `{{x}}` is inserted as it is, never expanded again. `vars` win over the
 * front matter's defaults. A placeholder with no value is an error naming it; a variable given
 * but used nowhere is listed in `unused` (a warning, not an error).
 */
export function renderTemplate(t: Template, vars: Readonly<Record<string, string>>): RenderResult {
  const values: Record<string, string> = { ...t.front.vars, ...vars };
  const used = new Set<string>();
  const missing = new Set<string>();
  const fill = (text: string): string =>
    text.replace(PLACEHOLDER, (_m, name: string) => {
      used.add(name);
      const v = Object.hasOwn(values, name) ? values[name] : undefined;
      if (v === undefined) {
        missing.add(name);
        return '';
      }
      return v;
    });
  const prompt = fill(t.body);
  const system = t.front.system === undefined ? undefined : fill(t.front.system);
  const files = (t.front.files ?? []).map(fill);
  if (missing.size > 0)
    return {
      ok: false,
      errors: [...missing].map((variable) => ({
        variable,
        message: `template ${t.source} uses {{${variable}}}, which has no value`,
      })),
    };
  const out: { ok: true } & RenderedTemplate = {
    ok: true,
    prompt,
    files,
    unused: Object.keys(vars).filter((name) => !used.has(name)),
  };
  if (system !== undefined) out.system = system;
  if (t.front.policy !== undefined) out.policy = t.front.policy;
  if (t.front.schema !== undefined) out.schema = t.front.schema;
  return out;
}
