// How much of an answer one tool result carries (docs/mcp-results.md, "Long answers"). A host
// puts a tool's result into its model's context whole, and refuses or truncates one that is too
// large where nobody sees it; so nsed cuts an answer past the bound itself, says where and how
// much, and links the whole of it as a resource the host reads only if it wants the rest.

/** UTF-8 bytes per token, as the tool list's size and a result's are estimated. */
export const TOKEN_BYTES = 4;

/** The most one result carries, its text and structured content together. */
export const RESULT_TOKENS_MAX = 20_000;

/** Room kept for the note that says where the answer was cut, and for JSON's escapes of the answer. */
const NOTE_TOKENS = 200;

/** A bound on the tries to fit: each keeps less of the answer than the one before. */
const FIT_TRIES = 8;

export const tokensOf = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / TOKEN_BYTES);

/** Where an answer was cut: `cut` in the structured result, beside the head of the answer in `content`. */
export interface Cut {
  /** The whole answer's size, in tokens. */
  answer_tokens: number;
  /** What the result holds of it. */
  shown_tokens: number;
  /** The resource that holds the whole answer (resources/read). */
  rest: string;
}

/** The note the text carries where the answer stops. */
export const cutNote = (c: Cut): string =>
  `[cut: the answer is about ${c.answer_tokens} tokens; the first ${c.shown_tokens} are above. The whole answer: resources/read ${c.rest}]`;

/** The head of `text` holding at most `tokens` tokens, ended at a line break when one is near the end. */
export function headOf(text: string, tokens: number): string {
  const bytes = Buffer.from(text, 'utf8').subarray(0, Math.max(0, tokens) * TOKEN_BYTES);
  // A character split by the byte bound decodes as U+FFFD: dropped, not shown.
  const head = bytes.toString('utf8').replace(/\uFFFD+$/, '');
  const nl = head.lastIndexOf('\n');
  return nl > head.length * 0.9 ? head.slice(0, nl) : head;
}

export interface Fitted {
  text: string;
  structured: Record<string, unknown>;
  cut: Cut | null;
}

/**
 * A result of at most RESULT_TOKENS_MAX: `build` makes its text and structured content with the
 * answer whole, or with the head of it and the cut; past the bound the answer is cut to what fits
 * both places it shows. Only the answer is cut (the rest of a result is small and bounded):
 * `rest` names the resource that holds it whole.
 */
export function fitAnswer(
  answer: string | null,
  build: (answer: string | null, cut: Cut | null) => { text: string; structured: Record<string, unknown> },
  rest: string,
): Fitted {
  const whole = build(answer, null);
  const size = (r: { text: string; structured: Record<string, unknown> }): number =>
    tokensOf(r.text) + tokensOf(JSON.stringify(r.structured));
  const total = size(whole);
  if (answer === null || total <= RESULT_TOKENS_MAX) return { ...whole, cut: null };
  const answerTokens = tokensOf(answer);
  // The answer shows twice (the text and `content`): what the rest of the result leaves, halved.
  let keep = Math.floor((RESULT_TOKENS_MAX - (total - 2 * answerTokens)) / 2) - NOTE_TOKENS;
  let fitted: Fitted = { ...whole, cut: null };
  for (let i = 0; i < FIT_TRIES; i++) {
    const head = headOf(answer, keep);
    const cut = { answer_tokens: answerTokens, shown_tokens: tokensOf(head), rest };
    fitted = { ...build(head, cut), cut };
    if (size(fitted) <= RESULT_TOKENS_MAX || keep <= 0) break;
    keep = Math.floor(keep * 0.8);
  }
  return fitted;
}
