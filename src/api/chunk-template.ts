/**
 * A compat stream sends the same chunk again and again with only the text changed: the same id,
 * model and `created`, the same `"finish_reason":null`. Parsing and checking every field of every
 * chunk was a third of a long answer's CPU. A template is the bytes
 * of one fully parsed and checked text chunk before and after its `delta.content` string; a later
 * chunk that is those same bytes around one JSON string token means what that chunk meant, with
 * this text, so its text is read off without parsing the rest again.
 *
 * Why that is exact: JSON is lexed left to right, so when `head` ends outside a string, whatever
 * single string token follows is lexed as one token and `tail` then lexes as before; the parse is
 * the same but for that token's value. stream-processor.ts keeps a template only after parsing
 * `head + "x" + tail` and finding it the same chunk as the original except `delta.content === "x"`:
 * had `head` ended inside a string, the `x` would stand outside one and the probe would not parse;
 * had the token been anything but `delta.content`, the probe would differ elsewhere or keep the
 * old text. Every check on the chunk (docs/reliability.md #17, #20, #21) was made on the
 * template's chunk and holds for each chunk that matches it; any other chunk is parsed in full.
 */
export interface ChunkTemplate {
  /** The chunk's bytes up to the opening quote of its text. */
  readonly head: string;
  /** The chunk's bytes after the closing quote of its text. */
  readonly tail: string;
}

const QUOTE = 34;
const BACKSLASH = 92;

/**
 * Where `text` stands as a string token in `data`, written without escapes: the last such place
 * (the content of a chunk comes after its id and model). Undefined when the text needs escapes
 * or is not there as written; such a chunk teaches no template (a later one may).
 */
export function templateAround(data: string, text: string): ChunkTemplate | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE || c === BACKSLASH || c < 0x20) return undefined;
  }
  const at = data.lastIndexOf(`"${text}"`);
  if (at < 0) return undefined;
  return { head: data.slice(0, at), tail: data.slice(at + text.length + 2) };
}

/** The chunk with `text` as its string token: how the probe is made. */
export function withText(t: ChunkTemplate, text: string): string {
  return `${t.head}${JSON.stringify(text)}${t.tail}`;
}

/**
 * The text of `data` when it is `head`, one JSON string token and `tail`; undefined when it is
 * any other chunk, or its token is not a valid JSON string (raw control characters, a bad
 * escape): such a chunk is parsed in full, and a malformed one fails there (docs/reliability.md #17).
 */
export function textIn(t: ChunkTemplate, data: string): string | undefined {
  const start = t.head.length;
  const end = data.length - t.tail.length;
  if (end - start < 2 || data.charCodeAt(start) !== QUOTE || data.charCodeAt(end - 1) !== QUOTE) return undefined;
  if (!data.startsWith(t.head) || !data.endsWith(t.tail)) return undefined;
  let escaped = false;
  let i = start + 1;
  for (; i < end - 1; i++) {
    const c = data.charCodeAt(i);
    if (c === BACKSLASH) {
      escaped = true;
      i++;
    } else if (c === QUOTE || c < 0x20) return undefined;
  }
  // A backslash just before the closing quote escaped it: the token does not end there.
  if (i !== end - 1) return undefined;
  if (!escaped) return data.slice(start + 1, end - 1);
  try {
    return JSON.parse(data.slice(start, end)) as string;
  } catch {
    return undefined;
  }
}
