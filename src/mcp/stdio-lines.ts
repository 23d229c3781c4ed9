import { Transform } from 'node:stream';

/** The largest message `nsed mcp` reads over stdio: the MCP SDK's own cap on its read buffer. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

const NL = 0x0a;

/**
 * The host's stdin as whole lines (one JSON-RPC message each), a line longer than `maxBytes`
 * dropped as it streams in, never held: `tooLong` is told its size once its newline arrives,
 * and the lines after it pass as before. Without it the SDK's reader, past its cap, closes the
 * transport and the server ends without a word.
 */
export function messageLines(maxBytes: number, tooLong: (bytes: number) => void): Transform {
  let parts: Buffer[] = [];
  let held = 0;
  /** The size of the line being dropped, or undefined while the line fits. */
  let dropping: number | undefined;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      let from = 0;
      while (from <= chunk.length) {
        const nl = chunk.indexOf(NL, from);
        const piece = chunk.subarray(from, nl === -1 ? chunk.length : nl);
        if (dropping === undefined && held + piece.length > maxBytes) {
          dropping = held;
          parts = [];
          held = 0;
        }
        if (dropping !== undefined) dropping += piece.length;
        else if (piece.length > 0) {
          parts.push(piece);
          held += piece.length;
        }
        if (nl === -1) break;
        if (dropping !== undefined) tooLong(dropping);
        else this.push(Buffer.concat([...parts, Buffer.of(NL)]));
        dropping = undefined;
        parts = [];
        held = 0;
        from = nl + 1;
      }
      done();
    },
  });
}
