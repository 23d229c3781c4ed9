/** The most of a client's value an error message quotes back; a 100,000-character field is not echoed. */
export const QUOTE_MAX = 200;

/** A client's value cut for an error message, with an ellipsis where it was cut. */
export function clip(text: string, max = QUOTE_MAX): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max).join('')}…`;
}

/** A client's value in single quotes for an error message, cut to QUOTE_MAX characters. */
export const quoted = (value: unknown): string => `'${clip(typeof value === 'string' ? value : String(value))}'`;
