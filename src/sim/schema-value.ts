import { isRecord } from './http-util.js';
import { QuestionHints } from './question-hints.js';
import { type Rng, rngFor } from './rng.js';
import { type Schema, merge, multiple, strings, typeOf } from './schema-keywords.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Deeper than any real tool schema; past it a recursive `$ref` gets its smallest value. */
const MAX_DEPTH = 12;

/**
 * How much one value may take: far beyond any real answer or tool call, and small enough that
 * generating it never holds the simulator's one thread for long. A schema asking for more
 * (`minLength: 1e9`, `minItems: 1e8`, a hundred thousand required fields) is refused instead,
 * before anything is built: past these, every route and SIGTERM would wait on the generator.
 */
export const SCHEMA_VALUE_LIMITS = {
  /** Characters of string generated, counting the candidates tried against a `pattern`. */
  chars: 1_000_000,
  /** Values generated plus properties examined. */
  steps: 20_000,
} as const;
const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T12:00:00Z',
  date: '2026-01-01',
  time: '12:00:00Z',
  duration: 'PT1H',
  email: 'someone@example.com',
  'idn-email': 'someone@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  url: 'https://example.com/',
  'uri-template': 'https://example.com/{id}',
  'json-pointer': '/0',
  'relative-json-pointer': '0',
  regex: '.*',
};

const length = (s: string): number => [...s].length;
const cut = (s: string, n: number): string => [...s].slice(0, n).join('');

/**
 * A JSON value that validates against `schema` (draft 2020-12 and the common older keywords),
 * deterministic for the same seed, question and schema, with strings drawn from the question
 * where the field's name says what it holds. Covers type, const, enum, properties, required,
 * additionalProperties, min/maxProperties, dependentRequired, items, prefixItems,
 * min/maxItems, uniqueItems, contains, min/maxLength, pattern (from candidates the question
 * offers), format, minimum/maximum and their exclusive forms, multipleOf, allOf (merged),
 * anyOf and oneOf (the first branch), and `$ref` into `$defs` or `definitions`.
 */
export function valueForSchema(schema: unknown, question: string, seed: string | number): SchemaValue {
  const generator = new Generator(schema, new QuestionHints(question), rngFor(seed, 'schema-value', question));
  try {
    return { ok: true, value: generator.value(schema, '', 0, 0) };
  } catch (e) {
    if (e instanceof TooLarge) return { ok: false, message: e.message };
    throw e;
  }
}

/** A generated value, or why the schema asks for more than SCHEMA_VALUE_LIMITS allow. */
export type SchemaValue = { ok: true; value: JsonValue } | { ok: false; message: string };

/** Unwinds the generator once a limit is passed; valueForSchema turns it into a value. */
class TooLarge extends Error {}

class Generator {
  private chars = 0;
  private steps = 0;

  constructor(
    private readonly root: unknown,
    private readonly hints: QuestionHints,
    private readonly rng: Rng,
  ) {}

  /**
   * Counts `n` more steps of work, or stops once past the limit; `what` says what asked for
   * them and `lower` the keyword to lower.
   */
  private step(n: number, what: string, lower: string): void {
    this.steps += n;
    if (this.steps > SCHEMA_VALUE_LIMITS.steps)
      throw new TooLarge(
        `${what}, past the ${SCHEMA_VALUE_LIMITS.steps} values the simulator generates (lower ${lower})`,
      );
  }

  /** Counts `n` more characters of string, or stops once past the limit. */
  private spend(n: number, what: string): void {
    this.chars += n;
    if (this.chars > SCHEMA_VALUE_LIMITS.chars)
      throw new TooLarge(
        `${what}, past the ${SCHEMA_VALUE_LIMITS.chars} characters the simulator generates (lower minLength)`,
      );
  }

  value(schema: unknown, field: string, depth: number, variant: number): JsonValue {
    this.step(1, 'more values than fit', 'the nesting or the recursion');
    if (schema === false) return null;
    if (!isRecord(schema)) return this.hints.string(field, variant);
    const s = this.flatten(schema, depth);
    if ('const' in s) return structuredClone(s.const) as JsonValue;
    if (Array.isArray(s.enum) && s.enum.length > 0) return this.fromEnum(s.enum as JsonValue[], variant);
    switch (typeOf(s)) {
      case 'object':
        return this.object(s, depth);
      case 'array':
        return this.array(s, field, depth);
      case 'integer':
        return this.number(s, true, variant);
      case 'number':
        return this.number(s, false, variant);
      case 'boolean':
        // A flag the question names ("with escalated permissions") is set; others are drawn.
        return this.hints.namesField(field) || this.rng.chance(0.5);
      case 'null':
        return null;
      default:
        return this.string(s, field, variant);
    }
  }

  /** One schema standing for `$ref`, `allOf` and the first `anyOf`/`oneOf` branch, merged with its siblings. */
  private flatten(schema: Schema, depth: number): Schema {
    let s = schema;
    for (let guard = 0; guard < MAX_DEPTH; guard++) {
      if (typeof s.$ref === 'string') {
        const { $ref, ...rest } = s;
        s = merge(depth > MAX_DEPTH ? {} : this.resolve($ref), rest);
      } else if (Array.isArray(s.allOf)) {
        const { allOf, ...rest } = s;
        s = (allOf as unknown[]).filter(isRecord).reduce(merge, rest);
      } else if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
        const { anyOf, oneOf, ...rest } = s;
        const first = ((anyOf ?? oneOf) as unknown[])[0];
        s = merge(rest, isRecord(first) ? first : {});
      } else break;
    }
    return s;
  }

  private resolve(ref: string): Schema {
    if (!ref.startsWith('#')) return {};
    let at: unknown = this.root;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      at = isRecord(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined;
    }
    return isRecord(at) ? at : {};
  }

  /** An enum value the question names, else one picked from the seed. */
  private fromEnum(values: JsonValue[], variant: number): JsonValue {
    const q = this.hints.lower;
    const named = values.filter((v) => typeof v === 'string' && v !== '' && q.includes(v.toLowerCase()));
    const pool = named.length > 0 ? named : values;
    const picked = variant === 0 ? this.rng.pick(pool) : pool[variant % pool.length];
    return structuredClone(picked ?? null);
  }

  private object(s: Schema, depth: number): JsonValue {
    const props = isRecord(s.properties) ? s.properties : {};
    const required = new Set(strings(s.required));
    const extra = s.additionalProperties;
    const max = typeof s.maxProperties === 'number' ? s.maxProperties : Infinity;
    const min = typeof s.minProperties === 'number' ? s.minProperties : 0;
    const chosen = new Set<string>();
    const keys = Object.keys(props);
    const fields = Math.max(keys.length, min, strings(s.required).length);
    this.step(keys.length + fields, `an object of ${fields} fields`, 'minProperties or the required fields');
    for (const key of keys) {
      // Optional fields only when asked for, as a model fills them: the question supplies or
      // names the field, or its description says to always set it. Never at random: codex's
      // shell tool must not get a justification or an escalation nobody asked for.
      const wanted =
        required.has(key) ||
        (depth < MAX_DEPTH && (this.hints.supplies(key) || this.hints.namesField(key) || descriptionAsks(props[key])));
      if (wanted && (required.has(key) || chosen.size < max - required.size)) chosen.add(key);
    }
    for (const key of required) chosen.add(key);
    const optional = keys.filter((k) => !chosen.has(k));
    for (let i = 0; chosen.size < min && i < optional.length; i++) chosen.add(optional[i] ?? '');
    const deps = isRecord(s.dependentRequired) ? s.dependentRequired : {};
    for (const key of [...chosen]) for (const dep of strings(deps[key])) chosen.add(dep);
    const out: { [key: string]: JsonValue } = {};
    for (const key of chosen) out[key] = this.value(props[key] ?? (isRecord(extra) ? extra : {}), key, depth + 1, 0);
    for (let n = 1, size = chosen.size; size < min && extra !== false; n++) {
      const key = `extra_${n}`;
      if (key in out) continue;
      out[key] = this.value(isRecord(extra) ? extra : {}, key, depth + 1, n);
      size++;
    }
    return out;
  }

  private array(s: Schema, field: string, depth: number): JsonValue {
    const prefix = Array.isArray(s.prefixItems) ? (s.prefixItems as unknown[]) : [];
    const items = s.items === undefined ? {} : s.items;
    const min = typeof s.minItems === 'number' ? s.minItems : 0;
    const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
    const closed = items === false ? prefix.length : Infinity;
    const itemSchema = isRecord(items) ? this.flatten(items, depth) : {};
    const argv = this.hints.argv();
    if (
      this.hints.isCommand(field) &&
      typeOf(itemSchema) === 'string' &&
      min <= argv.length &&
      max >= argv.length &&
      prefix.length === 0
    )
      return argv;
    const wanted = depth >= MAX_DEPTH ? 0 : Math.max(prefix.length, 1 + this.rng.int(2));
    const count = Math.min(Math.max(wanted, min), max, closed);
    // Counted before any item is made: `minItems: 1e8` is refused, not built.
    this.step(count, `an array of at least ${count} items`, 'minItems');
    const out: JsonValue[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const sub = prefix[i] ?? items;
      let v = this.value(sub, field, depth + 1, i);
      // uniqueItems: other variants until one differs; a list that cannot grow stops early.
      for (let t = 1; s.uniqueItems === true && seen.has(JSON.stringify(v)) && t < 8; t++)
        v = this.value(sub, field, depth + 1, i + t);
      if (s.uniqueItems === true && seen.has(JSON.stringify(v)) && out.length >= min) break;
      seen.add(JSON.stringify(v));
      out.push(v);
    }
    if (s.contains !== undefined && isRecord(s.contains)) {
      const v = this.value(s.contains, field, depth + 1, 0);
      if (out.length === 0 && max > 0) out.push(v);
      else if (prefix.length === 0 && !seen.has(JSON.stringify(v))) out[0] = v;
    }
    return out;
  }

  private number(s: Schema, integer: boolean, variant: number): number {
    const step = integer ? 1 : 0.5;
    const exMin = s.exclusiveMinimum === true ? s.minimum : s.exclusiveMinimum;
    const exMax = s.exclusiveMaximum === true ? s.maximum : s.exclusiveMaximum;
    let lo = typeof s.minimum === 'number' && s.exclusiveMinimum !== true ? s.minimum : -Infinity;
    let hi = typeof s.maximum === 'number' && s.exclusiveMaximum !== true ? s.maximum : Infinity;
    if (typeof exMin === 'number') lo = Math.max(lo, integer ? Math.floor(exMin) + 1 : exMin + 1e-6);
    if (typeof exMax === 'number') hi = Math.min(hi, integer ? Math.ceil(exMax) - 1 : exMax - 1e-6);
    if (integer) [lo, hi] = [Math.ceil(lo), Math.floor(hi)];
    const fits = (n: number): boolean => n >= lo && n <= hi && (!integer || Number.isInteger(n)) && multiple(n, s);
    const fromQuestion = this.hints.numbers.filter(fits);
    if (fromQuestion.length > 0) return fromQuestion[variant % fromQuestion.length] ?? 0;
    const base = Number.isFinite(lo)
      ? Number.isFinite(hi)
        ? lo + (hi - lo) * this.rng.next()
        : lo + this.rng.int(10) * step
      : Number.isFinite(hi)
        ? hi - this.rng.int(10) * step
        : 1 + this.rng.int(9);
    const start = integer ? Math.round(base) : Math.round(base * 100) / 100;
    const m = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : undefined;
    if (m === undefined) return Math.min(hi, Math.max(lo, start + variant * step));
    if (fits(0)) return 0;
    const k0 = Math.ceil((Number.isFinite(lo) ? lo : start) / m);
    for (let k = k0; k < k0 + 1000; k++)
      if (fits(Number((k * m).toPrecision(12)))) return Number((k * m).toPrecision(12));
    return start;
  }

  private string(s: Schema, field: string, variant: number): string {
    const min = typeof s.minLength === 'number' ? s.minLength : 0;
    const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
    const format = typeof s.format === 'string' ? FORMATS[s.format] : undefined;
    if (s.format === 'uuid') return uuidFrom(this.rng);
    const first = format ?? this.hints.string(field, variant);
    if (typeof s.pattern !== 'string') return this.fitLength(first, min, max);
    let re: RegExp;
    try {
      re = new RegExp(s.pattern, 'u');
    } catch {
      return this.fitLength(first, min, max);
    }
    // Candidates are tried one at a time: the first that matches ends the search.
    for (const c of [first, ...this.hints.candidates(field)]) {
      const fitted = this.fitLength(c, min, max);
      if (re.test(fitted)) return fitted;
    }
    // A pattern no candidate matches is the one case left unmet (documented in README).
    return this.fitLength(first, min, max);
  }

  /**
   * `text` cut to `max` characters, or padded with the topic up to `min`: the padding is
   * counted against the limit before it is built, and built in one step.
   */
  private fitLength(text: string, min: number, max: number): string {
    const filler = this.hints.topic === '' ? 'x' : this.hints.topic;
    const base = length(text) > max ? cut(text, max) : text;
    const have = length(base);
    if (have >= min) {
      this.spend(have, 'more text than fits');
      return base;
    }
    this.spend(Math.min(min, max), `a string of at least ${min} characters`);
    const start = base === '' ? filler : base;
    const unit = ` ${filler}`;
    const missing = Math.max(0, min - length(start));
    const out = `${start}${unit.repeat(Math.ceil(missing / length(unit)))}`;
    return length(out) > max ? cut(out, max) : out;
  }
}

/** A field description that asks for the field every time ("Always set…", "Must be given…"), never a conditional one. */
function descriptionAsks(schema: unknown): boolean {
  const d = isRecord(schema) && typeof schema.description === 'string' ? schema.description : '';
  if (/\bonly (?:set|if|when)\b|\boptional\b/i.test(d)) return false;
  return /^\s*(?:always\b|must\b|required\b)/i.test(d) || /\b(?:always (?:set|include|provide)|is required)\b/i.test(d);
}

function uuidFrom(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => rng.int(16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
