import { describe, expect, it } from 'vitest';
import { inToolTerms } from '../../src/mcp/tool-terms.js';

describe('errors and hints in the tools’ terms', () => {
  it('turns a command line of a hint into the tool call that does the same', () => {
    expect(inToolTerms('nsed resume -s 20261206-ab12')).toBe('wait with session "20261206-ab12"');
    expect(inToolTerms('cancel it first (nsed cancel -s 20261206-ab12), then ask again')).toBe(
      'cancel it first (cancel with session "20261206-ab12"), then ask again',
    );
    expect(inToolTerms('nsed continue -s 20261206-ab12 --tool-result call_1=FILE (- for stdin)')).toBe(
      'answer_tool_call with session "20261206-ab12" and call_id "call_1"',
    );
    expect(inToolTerms("see the recorded turn with 'nsed sessions show 20261206-ab12'")).toBe(
      `see the recorded turn with 'verdict with session "20261206-ab12"'`,
    );
  });

  it('names the argument where the CLI names its flag, and leaves words with dashes alone', () => {
    expect(inToolTerms('--agents needs at least two agent names')).toBe('agents needs at least two agent names');
    expect(inToolTerms('not with -p; choose --agents or --policy')).toBe('not with policy; choose agents or policy');
    expect(inToolTerms('--max-cost must be more than 0')).toBe('max_cost must be more than 0');
    expect(inToolTerms('a read-heavy API, a non-standard -sized cache')).toBe(
      'a read-heavy API, a non-standard -sized cache',
    );
  });
});
