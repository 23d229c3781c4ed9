import { request } from 'node:http';
import { startServer, type ScriptedServer, type Seen } from './scripted-server.js';

/**
 * A loopback proxy in front of a real simulator that passes every request on and every answer
 * back, except the JSON answers `rewrite` takes: for a request it `wants`, the simulator's 200
 * body is parsed and what `rewrite` returns is sent instead (a listing older than the council, a
 * history naming another author). The server the client meets is the simulator but for that.
 */
export async function startRewritingProxy(
  target: string,
  wants: (seen: Seen) => boolean,
  rewrite: (seen: Seen, body: unknown) => unknown,
): Promise<ScriptedServer> {
  const upstream = new URL(target);
  return startServer((req, res, seen) => {
    const taken = wants(seen);
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: seen.method, path: seen.url, headers: req.headers },
      (up) => {
        if (!taken || up.statusCode !== 200) {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          return;
        }
        let body = '';
        up.setEncoding('utf8');
        up.on('data', (d: string) => (body += d));
        up.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(rewrite(seen, JSON.parse(body))));
        });
      },
    );
    out.on('error', () => res.destroy());
    out.end(seen.body);
  });
}

/**
 * A loopback proxy in front of a real simulator that passes every request on and hands back each
 * answer whole (read to its end, so no rewrite is cut by a chunk boundary) with its text rewritten:
 * a server that says what the simulator says, with words of its own in it (a token it echoes).
 * Streams arrive at once when they end, which a simulator that is not held does at once.
 */
export async function startTextRewritingProxy(
  target: string,
  rewrite: (text: string) => string,
): Promise<ScriptedServer> {
  const upstream = new URL(target);
  return startServer((req, res, seen) => {
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: seen.method, path: seen.url, headers: req.headers },
      (up) => {
        let body = '';
        up.setEncoding('utf8');
        up.on('data', (d: string) => (body += d));
        up.on('end', () => {
          const headers = { ...up.headers };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(up.statusCode ?? 502, headers);
          res.end(rewrite(body));
        });
      },
    );
    out.on('error', () => res.destroy());
    out.end(seen.body);
  });
}
