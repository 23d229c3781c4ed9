import { NsedError } from '../errors.js';
import { PROXY_TUNNEL_TIMEOUT } from './dispatcher.js';
import { sanitizeServerText } from './redact.js';

/** Classifying errors raised before any response byte arrived (docs/reliability.md #43, #51, #52). */

const CONNECT_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found (DNS lookup failed)',
  EAI_AGAIN: 'host not found (DNS lookup failed temporarily)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host is down',
  ETIMEDOUT: 'the connection attempt timed out',
};

/** How the default URL (http://localhost:8080) is named in messages. */
const DEFAULT_HOST_PORTS = ['localhost:8080'];

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_|DEPTH_ZERO|EPROTO|HOSTNAME_MISMATCH/;

/** Every `code` found on an error, its cause, and the members of an AggregateError (happy eyeballs). */
export function errorCodes(err: unknown, depth = 0): string[] {
  if (typeof err !== 'object' || err === null || depth > 4) return [];
  const codes: string[] = [];
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') codes.push(code);
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined) codes.push(...errorCodes(cause, depth + 1));
  const members = (err as { errors?: unknown }).errors;
  if (Array.isArray(members)) for (const m of members) codes.push(...errorCodes(m, depth + 1));
  return codes;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isProxyAuthFailure(err: unknown): boolean {
  return /Proxy Authentication Required \(407\)|Proxy response \(407\)/.test(messageOf(err));
}

export function isTlsFailure(err: unknown): boolean {
  return errorCodes(err).some((c) => TLS_CODE.test(c));
}

/**
 * True when the request cannot have reached the server: refused, unresolvable, unreachable,
 * connect timeout or a failed TLS handshake. Only these are retried, even for a POST (docs/reliability.md #43).
 */
export function isConnectPhaseError(err: unknown): boolean {
  if (isTlsFailure(err)) return true;
  return errorCodes(err).some((c) => c in CONNECT_CODES || c === 'UND_ERR_CONNECT_TIMEOUT');
}

/** The NsedError for a failure before any response byte, naming the host and the cause. */
export function connectError(
  err: unknown,
  target: { hostPort: string; connectTimeoutMs: number; token: string | undefined },
): NsedError {
  const where = `cannot reach the orchestrator at ${target.hostPort}`;
  const codes = errorCodes(err);
  if (isProxyAuthFailure(err)) {
    return new NsedError(
      'network',
      'the proxy requires authentication (407): check the credentials in HTTPS_PROXY / HTTP_PROXY',
      { cause: err },
    );
  }
  const tunnel = /Proxy response \((\d+)\)/.exec(messageOf(err));
  if (tunnel !== null) {
    return new NsedError('network', `${where}: the proxy refused the tunnel (${tunnel[1] ?? '?'})`, { cause: err });
  }
  if (codes.includes('UND_ERR_CONNECT_TIMEOUT')) {
    const s = +(target.connectTimeoutMs / 1000).toFixed(3);
    if (messageOf(err).includes(PROXY_TUNNEL_TIMEOUT)) {
      return new NsedError('network', `${where}: the proxy did not open a tunnel within ${s} s (connect timeout)`, {
        cause: err,
        hint: 'check HTTPS_PROXY / HTTP_PROXY, or list the host in NO_PROXY',
      });
    }
    return new NsedError('network', `${where}: no connection within ${s} s (connect timeout)`, { cause: err });
  }
  if (isTlsFailure(err)) {
    const code = codes.find((c) => TLS_CODE.test(c)) ?? 'TLS';
    return new NsedError('network', `${where}: TLS handshake failed (${code})`, {
      cause: err,
      hint: 'if the orchestrator uses a private or corporate CA, point NODE_EXTRA_CA_CERTS at its certificate (or run node with --use-system-ca); never disable verification',
    });
  }
  const known = codes.find((c) => c in CONNECT_CODES);
  if (known === 'ECONNREFUSED' && DEFAULT_HOST_PORTS.includes(target.hostPort)) {
    // Nothing listens on the built-in default: most often no orchestrator was named at all.
    return new NsedError('network', `${where}: ${CONNECT_CODES[known]}`, {
      cause: err,
      hint: "that is the default URL: pass --url or set NSED_URL (or 'nsed config set url'), try --sim, or run 'nsed doctor'",
    });
  }
  if (known !== undefined)
    return new NsedError('network', `${where}: ${CONNECT_CODES[known] ?? known}`, { cause: err });
  if (codes.some((c) => c === 'ECONNRESET' || c === 'EPIPE' || c === 'UND_ERR_SOCKET' || c === 'UND_ERR_CLOSED')) {
    return new NsedError(
      'network',
      `the connection to ${target.hostPort} was closed before the orchestrator answered`,
      { cause: err },
    );
  }
  const text = sanitizeServerText(messageOf(err), target.token);
  return new NsedError('network', `${where}: ${text === '' ? 'the request failed' : text}`, { cause: err });
}
