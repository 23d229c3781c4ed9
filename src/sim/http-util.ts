import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export class BodyTooLarge extends Error {}

const DRAIN_FACTOR = 8;

/**
 * Reads the whole request body as UTF-8, refusing bodies over the limit. The rest of an
 * oversized body is read and thrown away, so the client, still sending, gets to read the 413
 * instead of a reset socket; a sender that goes on far beyond the limit is cut off.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > DRAIN_FACTOR * limit) req.destroy();
      if (size <= limit) parts.push(b);
      else if (!refused) {
        refused = true;
        parts.length = 0;
        reject(new BodyTooLarge(`request body over ${limit} bytes`));
      }
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export type Parsed = { ok: true; value: unknown } | { ok: false };

export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * The OpenAI-style error body the compat surface answers with: `message`, `type`, `param` (the
 * request field at fault, or null) and `code`, as OpenAI's published spec has it.
 */
export function sendOpenAiError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string,
  headers: Record<string, string> = {},
  param: string | null = null,
): void {
  sendJson(res, status, { error: { message, type, param, code } }, headers);
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
