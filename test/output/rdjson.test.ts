// --rdjson (docs/ci-review.md): the placed findings as reviewdog's rdjsonl, checked against
// reviewdog's Diagnostic schema (schemas/rdjson.schema.json), open and closed.
import { describe, expect, it } from 'vitest';
import type { PlacedFinding } from '../../src/output/findings.js';
import { rdjsonReport } from '../../src/output/export/rdjson.js';
import { rdjsonErrors } from '../harness/rdjson-schema.js';

const finding = (over: Partial<PlacedFinding> = {}): PlacedFinding => ({
  file: './src/retry.py',
  path: 'src/retry.py',
  line: 42,
  endLine: 44,
  severity: 'error',
  message: 'the retry never backs off',
  title: 'No back-off',
  suggestion: null,
  ...over,
});

describe('the rdjsonl report', () => {
  it("is one Diagnostic a line with path, line-wise range, severity, source, code and suggestions, valid by reviewdog's schema", () => {
    const text = rdjsonReport([
      finding({ suggestion: 'for attempt in range(3):\n    sleep(2 ** attempt)' }),
      finding({ severity: 'notice', line: 7, endLine: null, title: null, path: 'dir with space/ü.py' }),
      finding({ severity: 'warning', line: 9, endLine: 9, suggestion: '' }),
    ]);
    expect(rdjsonErrors(text)).toEqual([]);
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    const [a, b, c] = lines.slice(0, -1).map((l) => JSON.parse(l) as unknown);
    expect(a).toEqual({
      message: 'the retry never backs off',
      location: { path: 'src/retry.py', range: { start: { line: 42 }, end: { line: 44 } } },
      severity: 'ERROR',
      source: { name: 'nsed' },
      code: { value: 'No back-off' },
      suggestions: [
        {
          range: { start: { line: 42 }, end: { line: 44 } },
          text: 'for attempt in range(3):\n    sleep(2 ** attempt)',
        },
      ],
    });
    expect(b).toEqual({
      message: 'the retry never backs off',
      location: { path: 'dir with space/ü.py', range: { start: { line: 7 } } },
      severity: 'INFO',
      source: { name: 'nsed' },
      code: { value: 'nsed notice' },
    });
    // An empty suggestion deletes the line; a one-line finding's suggestion names its one line as the range.
    expect(c).toMatchObject({
      severity: 'WARNING',
      location: { range: { start: { line: 9 } } },
      suggestions: [{ range: { start: { line: 9 }, end: { line: 9 } }, text: '' }],
    });
    expect(rdjsonReport([])).toBe('');
  });

  it('is refused by the closed schema when a line carries a field reviewdog does not know (the check can fail)', () => {
    const line = JSON.stringify({
      message: 'm',
      location: { path: 'a', range: { start: { line: 1 } } },
      fingerprint: 'x',
    });
    expect(rdjsonErrors(`${line}\n`)).toEqual(['line 1 (closed schema): / must NOT have additional properties']);
    expect(rdjsonErrors('{"severity":"FATAL"}\n')).toHaveLength(2);
  });
});
