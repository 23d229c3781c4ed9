import { usageError } from '../errors.js';
import { isLoopbackHost } from '../protocol/loopback.js';

/**
 * `--allow-origin` values as origins (`https://app.example.com`, `http://localhost:5173`): the
 * scheme, host and port a browser sends in `Origin`, and nothing else.
 */
export function allowedOrigins(values: readonly string[]): string[] {
  return values.map((v) => {
    let u: URL | undefined;
    try {
      u = new URL(v);
    } catch {
      u = undefined;
    }
    if (
      u === undefined ||
      (u.protocol !== 'http:' && u.protocol !== 'https:') ||
      u.origin !== v.replace(/\/$/, '').toLowerCase()
    )
      throw usageError(
        `--allow-origin '${v.slice(0, 100)}' is not an origin`,
        'give scheme, host and optional port, e.g. --allow-origin https://app.example.com',
      );
    return u.origin;
  });
}

/**
 * Whether a Streamable HTTP request may come from `origin` (its `Origin` header, absent for a
 * client that is not a browser): a page served from loopback, or one `--allow-origin` names. Any
 * other page could drive the council with the person's token through their browser, so the
 * spec has servers refuse it (MCP "Transports", security warning).
 */
export function originAdmitted(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    // `null` (a sandboxed page, a file) and anything else that is not an origin.
    return false;
  }
  if (allowed.includes(u.origin)) return true;
  return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname);
}
