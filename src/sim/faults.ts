import { NsedError } from '../errors.js';
import { JOB_ENDINGS, type JobEnding } from './job.js';
import { METER_MODES, type MeterMode } from './metering.js';
import { METER_SKEWS, type MeterSkew } from './meter-skew.js';
import { quoted } from './quote.js';

/** What can go wrong on purpose, for testing clients against real sockets. */
export interface FaultSpec {
  dropAfter?: number;
  status?: number;
  retryAfter?: string;
  stallMs?: number;
  stallAfter?: number;
  malformedAt?: number;
  eofWithoutDone?: boolean;
  /** `GET /result` of a completed job answers this text instead of the job's answer. */
  resultText?: string;
  failAtRound?: number;
  /** How the job started by this request ends its streams (see JobEnding); overrides the profile. */
  end?: JobEnding;
  /** The council calls this tool after round 1, offered or not (a model that invents a name). */
  callTool?: string;
  /**
   * `violate-once`: the first structured answer on a thread breaks its format (a required field
   * dropped, a wrong type, or prose), and later ones on that thread fit, so a client's repair
   * turn is tested.
   */
  schema?: 'violate-once';
  /** How much the job started by this request reports about its cost (see MeterMode). */
  meter?: MeterMode;
  /** `budget=404`: the job's `/budget` answers 404, as a server without the endpoint would. */
  budgetMissing?: boolean;
  /** `budget=stall`: the job's `/budget` answers only once the job has ended, as a server that answers it late would. */
  budgetStall?: boolean;
  /** `meter-figures=…`: the figures the job's `/budget` and totals report are skewed (see MeterSkew). */
  meterFigures?: MeterSkew;
  /** `evaluator-timeout=AGENT`: that evaluator times out every round; its evaluations are synthetic stand-ins. */
  evaluatorTimeout?: string;
  /** `answer-bytes=N`: the job's prose answer runs on to at least N bytes (numbered appendix sections), for clients that must cut a long one. */
  answerBytes?: number;
  times?: number;
}

export type FaultScope = 'chat' | 'submit' | 'resume' | 'all';
/** The routes a fault can be aimed at; `other` is every remaining authenticated route. */
export type FaultRoute = 'chat' | 'submit' | 'resume' | 'other';

const SCOPES: readonly FaultScope[] = ['chat', 'submit', 'resume', 'all'];
const bad = (message: string): NsedError =>
  new NsedError('usage', message, { hint: 'fault specs are key=value pairs joined by ;, e.g. drop-after=3;times=1' });

function whole(key: string, value: string | undefined, min: number): number {
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < min) {
    throw bad(
      `fault ${quoted(key)} needs a whole number${min > 0 ? ` of at least ${min}` : ''}, got ${quoted(value ?? '')}`,
    );
  }
  return Number(value);
}

/** Parses `key=value;key=value`; throws a usage error naming the part it cannot read. */
export function parseFaultSpec(spec: string): FaultSpec {
  const out: FaultSpec = {};
  const parts = spec
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) throw bad(`empty fault spec ${quoted(spec)}`);
  for (const part of parts) {
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    const value = eq < 0 ? undefined : part.slice(eq + 1).trim();
    switch (key) {
      case 'drop-after':
        out.dropAfter = whole(key, value, 0);
        break;
      case 'stall-ms':
        out.stallMs = whole(key, value, 1);
        break;
      case 'stall-after':
        out.stallAfter = whole(key, value, 0);
        break;
      case 'malformed-at':
        out.malformedAt = whole(key, value, 1);
        break;
      case 'fail-at-round':
        out.failAtRound = whole(key, value, 1);
        break;
      case 'times':
        out.times = whole(key, value, 1);
        break;
      case 'answer-bytes':
        out.answerBytes = whole(key, value, 1);
        break;
      case 'call-tool':
        if (value === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(value))
          throw bad(`fault 'call-tool' needs a tool name (letters, digits, - and _), got ${quoted(value ?? '')}`);
        out.callTool = value;
        break;
      case 'schema':
        if (value !== 'violate-once') throw bad(`fault 'schema' is violate-once, got ${quoted(value ?? '')}`);
        out.schema = value;
        break;
      case 'meter':
        if (!(METER_MODES as readonly string[]).includes(value ?? ''))
          throw bad(`fault 'meter' is one of ${METER_MODES.join(', ')}, got ${quoted(value ?? '')}`);
        out.meter = value as MeterMode;
        break;
      case 'budget':
        if (value !== '404' && value !== 'stall')
          throw bad(`fault 'budget' is 404 or stall, got ${quoted(value ?? '')}`);
        if (value === '404') out.budgetMissing = true;
        else out.budgetStall = true;
        break;
      case 'meter-figures':
        if (!(METER_SKEWS as readonly string[]).includes(value ?? ''))
          throw bad(`fault 'meter-figures' is one of ${METER_SKEWS.join(', ')}, got ${quoted(value ?? '')}`);
        out.meterFigures = value as MeterSkew;
        break;
      case 'evaluator-timeout':
        if (value === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(value))
          throw bad(
            `fault 'evaluator-timeout' needs an agent id (letters, digits, - and _), got ${quoted(value ?? '')}`,
          );
        out.evaluatorTimeout = value;
        break;
      case 'status': {
        const status = whole(key, value, 100);
        if (status > 599) throw bad(`fault 'status' must be an HTTP status (100-599), got ${quoted(value ?? '')}`);
        out.status = status;
        break;
      }
      case 'retry-after':
        if (value === undefined || value === '' || /[\r\n]/.test(value))
          throw bad(`fault 'retry-after' needs a value, got ${quoted(part)}`);
        out.retryAfter = value;
        break;
      case 'end':
        if (!(JOB_ENDINGS as readonly string[]).includes(value ?? '')) {
          throw bad(`fault 'end' is one of ${JOB_ENDINGS.join(', ')}, got ${quoted(value ?? '')}`);
        }
        out.end = value as JobEnding;
        break;
      case 'result-text':
        if (value === undefined || value === '') throw bad(`fault 'result-text' needs a text, got ${quoted(part)}`);
        out.resultText = value;
        break;
      case 'eof-without-done':
        if (value !== undefined && value !== 'true' && value !== '1')
          throw bad(`fault 'eof-without-done' takes no value, got ${quoted(part)}`);
        out.eofWithoutDone = true;
        break;
      default:
        throw bad(`unknown fault ${quoted(key)} in ${quoted(spec)}`);
    }
  }
  return out;
}

export interface ScopedFault {
  scope: FaultScope;
  spec: FaultSpec;
  /** Requests this fault has already been applied to (for `times`). */
  used: number;
}

/** Parses a server-wide fault, `[scope:]spec`; the scope defaults to `chat`. */
export function parseScopedFault(text: string): ScopedFault {
  const colon = text.indexOf(':');
  const eq = text.indexOf('=');
  if (colon >= 0 && (eq < 0 || colon < eq)) {
    const scope = text.slice(0, colon).trim();
    if (!(SCOPES as readonly string[]).includes(scope))
      throw bad(`unknown fault scope ${quoted(scope)} in ${quoted(text)} (use chat, submit, resume or all)`);
    return { scope: scope as FaultScope, spec: parseFaultSpec(text.slice(colon + 1)), used: 0 };
  }
  return { scope: 'chat', spec: parseFaultSpec(text), used: 0 };
}

const covers = (scope: FaultScope, route: FaultRoute): boolean => scope === 'all' || scope === route;

/**
 * Decides which faults a request gets: the server-wide ones whose scope covers its route and
 * whose `times` is not used up, then its own header on top. A header spec with `times` is
 * counted across requests carrying that same header text.
 */
export class FaultBook {
  private scoped: ScopedFault[] = [];
  private readonly headerUses = new Map<string, number>();

  set(specs: readonly string[]): void {
    this.scoped = specs.map(parseScopedFault);
    this.headerUses.clear();
  }

  /** Throws a usage error when the header cannot be parsed. */
  take(route: FaultRoute, header: string | undefined): FaultSpec {
    const merged: FaultSpec = {};
    for (const f of this.scoped) {
      if (!covers(f.scope, route)) continue;
      if (f.spec.times !== undefined && f.used >= f.spec.times) continue;
      f.used += 1;
      Object.assign(merged, f.spec);
    }
    if (header !== undefined && header.trim() !== '') {
      const spec = parseFaultSpec(header);
      const used = this.headerUses.get(header) ?? 0;
      this.headerUses.set(header, used + 1);
      if (spec.times === undefined || used < spec.times) Object.assign(merged, spec);
    }
    return merged;
  }
}
