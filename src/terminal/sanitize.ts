/**
 * Terminal-safe text (docs/reliability.md #78, #81). Model text, agent names and server error
 * strings can carry escape sequences that write the clipboard (OSC 52), disguise links (OSC 8),
 * move the cursor to rewrite earlier lines, reset the terminal (`ESC c`) or reorder text (BiDi).
 * Everything that could act on a terminal is removed; LF and TAB are kept.
 */

const GROUND = 0;
const ESCAPE = 1;
/** ESC followed by intermediate bytes (`ESC ( B`, `ESC # 8`), waiting for the final byte. */
const ESCAPE_INTERMEDIATE = 2;
const CSI = 3;
/** Inside OSC, DCS, SOS, PM or APC: everything up to BEL or ST is swallowed. */
const STRING = 4;
const STRING_ESCAPE = 5;

type State =
  typeof GROUND | typeof ESCAPE | typeof ESCAPE_INTERMEDIATE | typeof CSI | typeof STRING | typeof STRING_ESCAPE;

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const ST_8BIT = 0x9c;

function isBidiControl(c: number): boolean {
  return c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

function isPrintable(c: number): boolean {
  if (c >= 0x20 && c < 0x7f) return true;
  if (c === 0x0a || c === 0x09) return true;
  return c >= 0xa0 && !isBidiControl(c);
}

/** What a control character outside any sequence starts: 8-bit C1 introducers act like their ESC forms. */
function introducedBy(c: number): State {
  if (c === ESC) return ESCAPE;
  if (c === 0x9b) return CSI;
  // OSC, DCS, SOS, PM, APC.
  if (c === 0x9d || c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) return STRING;
  return GROUND;
}

/**
 * A streaming sanitiser: its state survives between chunks, so a sequence split across two
 * text events (`"\x1b"` then `"]52;c;…\x07"`) is still removed whole. Nothing is buffered:
 * characters inside a sequence are dropped as they arrive.
 */
export class TerminalSanitizer {
  private state: State = GROUND;

  push(chunk: string): string {
    let out = '';
    let runStart = -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.state === GROUND) {
        if (isPrintable(c)) {
          if (runStart < 0) runStart = i;
          continue;
        }
        if (runStart >= 0) {
          out += chunk.slice(runStart, i);
          runStart = -1;
        }
        this.state = introducedBy(c);
        continue;
      }
      // A sequence that ends on something unexpected is abandoned and that character is read afresh.
      if (!this.step(c)) i--;
    }
    if (runStart === 0) return chunk;
    if (runStart > 0) out += chunk.slice(runStart);
    return out;
  }

  /** Advances inside a sequence; false when `c` does not belong to it (state is then GROUND or ESCAPE). */
  private step(c: number): boolean {
    if (c === CAN || c === SUB) {
      this.state = GROUND;
      return true;
    }
    switch (this.state) {
      case ESCAPE:
        if (c === 0x5b) this.state = CSI;
        else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f) this.state = STRING;
        else if (c >= 0x20 && c <= 0x2f) this.state = ESCAPE_INTERMEDIATE;
        else if (c >= 0x30 && c <= 0x7e) this.state = GROUND;
        else if (c !== ESC) return this.abandon();
        return true;
      case ESCAPE_INTERMEDIATE:
        if (c >= 0x20 && c <= 0x2f) return true;
        if (c >= 0x30 && c <= 0x7e) {
          this.state = GROUND;
          return true;
        }
        return this.abandon();
      case CSI:
        if (c >= 0x20 && c <= 0x3f) return true;
        if (c >= 0x40 && c <= 0x7e) {
          this.state = GROUND;
          return true;
        }
        return this.abandon();
      case STRING:
        if (c === BEL || c === ST_8BIT) this.state = GROUND;
        else if (c === ESC) this.state = STRING_ESCAPE;
        return true;
      case STRING_ESCAPE:
        if (c === 0x5c) {
          this.state = GROUND;
          return true;
        }
        // An ESC inside a string that is not ST aborts the string and starts a new sequence.
        this.state = ESCAPE;
        return false;
      default:
        return this.abandon();
    }
  }

  private abandon(): false {
    this.state = GROUND;
    return false;
  }
}

/** The whole of `text` with every terminal control removed; an unterminated sequence at the end is dropped. */
export function sanitizeForTerminal(text: string): string {
  return new TerminalSanitizer().push(text);
}

const PLAIN_LINE = /^(?:[\x21-\x7e]+(?: [\x21-\x7e]+)*)?$/;

/**
 * One safe line for stderr: sanitised, whitespace (newlines included) collapsed to single
 * spaces, and cut to `max` characters with a trailing '…'.
 */
export function oneLine(text: string, max = 200): string {
  // Printable ASCII words with single spaces are already one safe line: `sessions ls` of 10,000
  // sessions spent a tenth of its time sanitising titles that needed nothing.
  if (text.length <= max && PLAIN_LINE.test(text)) return text;
  const flat = sanitizeForTerminal(text).replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  if (max <= 0) return '';
  let cut = max - 1;
  // Never leave half of a surrogate pair before the ellipsis.
  const last = flat.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${flat.slice(0, cut)}…`;
}
