import { Agent, EnvHttpProxyAgent, Pool, type Dispatcher } from 'undici';
import { isLoopbackHost } from '../protocol/loopback.js';

/**
 * The connection pool for one orchestrator (docs/reliability.md #50). Proxy variables come from the
 * `env` the caller passes, never from process.env behind its back; lowercase names win, as in
 * curl. Loopback always goes direct: a proxy cannot reach our 127.0.0.1.
 */

export type Env = Readonly<Record<string, string | undefined>>;

function pick(env: Env, lower: string, upper: string): string {
  const l = env[lower];
  if (l !== undefined && l.trim() !== '') return l.trim();
  const u = env[upper];
  return u !== undefined ? u.trim() : '';
}

export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

export function proxySettings(env: Env): ProxySettings | undefined {
  const httpProxy = pick(env, 'http_proxy', 'HTTP_PROXY');
  const httpsProxy = pick(env, 'https_proxy', 'HTTPS_PROXY');
  if (httpProxy === '' && httpsProxy === '') return undefined;
  return { httpProxy, httpsProxy, noProxy: pick(env, 'no_proxy', 'NO_PROXY') };
}

/** `host:port` of a proxy URL, for debug lines: never its credentials. */
export function proxyDisplay(proxy: string): string {
  try {
    const u = new URL(proxy);
    return u.host;
  } catch {
    return '(unparsable proxy URL)';
  }
}

export function createDispatcher(
  base: URL,
  env: Env,
  connectTimeoutMs: number,
): { dispatcher: Dispatcher; proxy: string | undefined } {
  const connect = { timeout: connectTimeoutMs };
  const proxy = proxySettings(env);
  if (proxy === undefined || isLoopbackHost(base.hostname))
    return { dispatcher: new Agent({ connect }), proxy: undefined };
  const via = base.protocol === 'https:' ? proxy.httpsProxy || proxy.httpProxy : proxy.httpProxy;
  return {
    // Empty strings (not undefined) keep EnvHttpProxyAgent from reading process.env itself.
    // Plain-HTTP targets are forwarded as absolute-URI requests; HTTPS ones tunnel via CONNECT.
    // The tunnel is part of connecting: a proxy that accepts the socket and never answers
    // CONNECT must fail within the connect timeout too, not after undici's 300 s for headers.
    dispatcher: new EnvHttpProxyAgent({
      connect,
      proxyTunnel: false,
      ...proxy,
      proxyTls: { timeout: connectTimeoutMs },
      clientFactory: (origin: URL, opts: object) => tunnelPool(origin, opts, connectTimeoutMs),
    }),
    proxy: via === '' ? undefined : via,
  };
}

/** Raised when a proxy accepted the connection but did not answer CONNECT in time. */
export const PROXY_TUNNEL_TIMEOUT = 'the proxy did not answer CONNECT';

/**
 * The pool to the proxy itself carries only CONNECT requests, so its headers timeout is the
 * tunnel's; the error is renamed a connect timeout, since no request reached the orchestrator.
 */
function tunnelPool(origin: URL, opts: object, timeoutMs: number): Pool {
  const pool = new Pool(origin, { ...opts, headersTimeout: timeoutMs });
  const connect = pool.connect.bind(pool) as (o: Dispatcher.ConnectOptions) => Promise<Dispatcher.ConnectData>;
  Object.assign(pool, {
    connect: async (o: Dispatcher.ConnectOptions) => {
      try {
        return await connect(o);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'UND_ERR_HEADERS_TIMEOUT') throw err;
        throw Object.assign(new Error(PROXY_TUNNEL_TIMEOUT, { cause: err }), { code: 'UND_ERR_CONNECT_TIMEOUT' });
      }
    },
  });
  return pool;
}
