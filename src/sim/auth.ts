import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * True when no token is configured, or the header carries `Bearer <token>` exactly. Both sides
 * are hashed first so the comparison is constant-time whatever the lengths.
 */
export function authorized(token: string | undefined, header: string | undefined): boolean {
  if (token === undefined || token === '') return true;
  const presented = header !== undefined && header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  return timingSafeEqual(digest(presented), digest(token)) && presented !== '';
}
