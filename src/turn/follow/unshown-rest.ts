/**
 * The part of the recorded answer not shown yet, when what was shown is its beginning (the
 * stream closed early); undefined when the two differ, so nothing is spliced onto other text.
 */
export function unshownRest(shown: string, answer: string): string | undefined {
  if (answer.startsWith(shown)) return answer.slice(shown.length);
  if (shown.trim() === answer) return '';
  return undefined;
}
