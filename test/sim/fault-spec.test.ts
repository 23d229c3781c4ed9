import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { FaultBook, parseFaultSpec, parseScopedFault } from '../../src/sim/faults.js';
import { skewFigures } from '../../src/sim/meter-skew.js';
import { runOn } from '../../src/sim/answer.js';

const failure = (fn: () => unknown): NsedError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof NsedError) return err;
    throw err;
  }
  throw new Error('expected a throw');
};

describe('parseFaultSpec', () => {
  it('reads every key of the grammar', () => {
    expect(parseFaultSpec('drop-after=3')).toEqual({ dropAfter: 3 });
    expect(parseFaultSpec('status=429;retry-after=1')).toEqual({ status: 429, retryAfter: '1' });
    expect(parseFaultSpec('stall-ms=5000; stall-after=4')).toEqual({ stallMs: 5000, stallAfter: 4 });
    expect(parseFaultSpec('malformed-at=2;times=1')).toEqual({ malformedAt: 2, times: 1 });
    expect(parseFaultSpec('eof-without-done')).toEqual({ eofWithoutDone: true });
    expect(parseFaultSpec('result-text=Another answer')).toEqual({ resultText: 'Another answer' });
    expect(parseFaultSpec('fail-at-round=2;')).toEqual({ failAtRound: 2 });
    expect(parseFaultSpec('end=bare-done;fail-at-round=1')).toEqual({ end: 'bare-done', failAtRound: 1 });
    expect(parseFaultSpec('end=close')).toEqual({ end: 'close' });
    expect(parseFaultSpec('schema=violate-once')).toEqual({ schema: 'violate-once' });
    expect(parseFaultSpec('meter=runaway;budget=404')).toEqual({ meter: 'runaway', budgetMissing: true });
    expect(parseFaultSpec('evaluator-timeout=CortexB')).toEqual({ evaluatorTimeout: 'CortexB' });
    expect(parseFaultSpec('budget=stall;meter-figures=nan')).toEqual({ budgetStall: true, meterFigures: 'nan' });
    expect(parseFaultSpec('answer-bytes=120000')).toEqual({ answerBytes: 120000 });
  });

  it.each([
    ['bogus=1', /unknown fault 'bogus'/],
    ['drop-after=x', /'drop-after' needs a whole number, got 'x'/],
    ['status=700', /'status' must be an HTTP status/],
    ['times=0', /'times' needs a whole number of at least 1/],
    ['', /empty fault spec/],
    ['retry-after=', /'retry-after' needs a value/],
    ['eof-without-done=maybe', /takes no value/],
    ['end=sometimes', /'end' is one of chunk, bare-done, close, got 'sometimes'/],
    ['schema=violate-always', /'schema' is violate-once, got 'violate-always'/],
    ['meter=free', /'meter' is one of full, tokens, none, runaway, got 'free'/],
    ['budget=500', /'budget' is 404 or stall, got '500'/],
    ['meter-figures=huge', /'meter-figures' is one of negative, string, nan, zero, free, got 'huge'/],
    ['evaluator-timeout=', /'evaluator-timeout' needs an agent id/],
    ['answer-bytes=0', /'answer-bytes' needs a whole number of at least 1/],
    [`bogus=${'x'.repeat(100_000)}`, /^unknown fault 'bogus' in 'bogus=x{194}…'$/],
  ])('refuses %j with a usage error naming the bad part', (spec, message) => {
    const err = failure(() => parseFaultSpec(spec));
    expect(err.code).toBe('usage');
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(message);
  });

  it('reads an optional scope, defaulting to chat', () => {
    expect(parseScopedFault('drop-after=1').scope).toBe('chat');
    expect(parseScopedFault('resume:drop-after=1').scope).toBe('resume');
    expect(parseScopedFault('all:status=503').spec).toEqual({ status: 503 });
    expect(failure(() => parseScopedFault('nowhere:status=503')).message).toMatch(/unknown fault scope 'nowhere'/);
  });
});

describe('FaultBook', () => {
  it('applies a server-wide fault only to the routes its scope covers', () => {
    const book = new FaultBook();
    book.set(['drop-after=2', 'submit:status=503']);
    expect(book.take('chat', undefined)).toEqual({ dropAfter: 2 });
    expect(book.take('resume', undefined)).toEqual({});
    expect(book.take('submit', undefined)).toEqual({ status: 503 });
    book.set(['all:status=500']);
    expect(book.take('resume', undefined)).toEqual({ status: 500 });
    expect(book.take('other', undefined)).toEqual({ status: 500 });
  });

  it('stops applying a fault after `times` matching requests', () => {
    const book = new FaultBook();
    book.set(['status=503;times=2']);
    expect(book.take('chat', undefined).status).toBe(503);
    expect(book.take('resume', undefined).status).toBeUndefined();
    expect(book.take('chat', undefined).status).toBe(503);
    expect(book.take('chat', undefined).status).toBeUndefined();
  });

  it('lets a header add to or override the server-wide faults', () => {
    const book = new FaultBook();
    book.set(['drop-after=5']);
    expect(book.take('chat', 'drop-after=1;malformed-at=3')).toEqual({ dropAfter: 1, malformedAt: 3 });
    expect(book.take('resume', 'stall-ms=10')).toEqual({ stallMs: 10 });
  });

  it('counts a header spec with times across the requests that carry it', () => {
    const book = new FaultBook();
    expect(book.take('chat', 'status=503;times=1').status).toBe(503);
    expect(book.take('chat', 'status=503;times=1').status).toBeUndefined();
  });
});

describe('meter-figures skews what a job reports of its usage', () => {
  const budget = { rounds_completed: 1, total_input_tokens: 1788, total_output_tokens: 830, estimated_cost_usd: 0.008 };
  it.each([
    ['negative', { total_input_tokens: -1788, total_output_tokens: -830, estimated_cost_usd: -0.008 }],
    ['string', { total_input_tokens: '1788', total_output_tokens: '830', estimated_cost_usd: 0.008 }],
    ['nan', { total_input_tokens: 'NaN', total_output_tokens: 'NaN', estimated_cost_usd: 0.008 }],
    ['zero', { total_input_tokens: 0, total_output_tokens: 0, estimated_cost_usd: 0.008 }],
    ['free', { total_input_tokens: 1788, total_output_tokens: 830, estimated_cost_usd: 0 }],
  ] as const)('%s', (skew, figures) => {
    expect(skewFigures(budget, skew)).toEqual({ rounds_completed: 1, ...figures });
  });
});

describe('runOn (fault answer-bytes)', () => {
  it('runs the answer on with numbered sections to at least the bytes asked, the answer itself first', () => {
    const prose = '## A cache\n\nKeep it simple.';
    const long = runOn(prose, 5000);
    expect(long.startsWith(prose)).toBe(true);
    expect(Buffer.byteLength(long, 'utf8')).toBeGreaterThanOrEqual(5000);
    expect(Buffer.byteLength(long, 'utf8')).toBeLessThan(5300);
    expect(long).toMatch(/### Appendix 1\n[\s\S]*### Appendix 2\n/);
    expect(runOn(prose, 10)).toBe(prose);
  });
});
