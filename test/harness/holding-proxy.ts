import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach } from 'vitest';
import type { SimOptions } from '../../src/sim/server.js';
import { makeRig, type Rig } from './rig.js';
import { startServer, type ScriptedServer, type Seen } from './scripted-server.js';

/**
 * A loopback proxy in front of a real simulator that passes every request on, but decides what
 * the client gets back of the start request (`POST /v1/chat/completions`, or the request a test
 * names): nothing at all (the
 * headers held until the test releases them or ends, so a signal lands between the request and
 * its headers), or
 * a reset instead of the headers, or the headers and the first bytes of the body, then a cut. The
 * simulator runs the job in every case but `keep-first`: the first start is kept from the
 * simulator (it never reaches it, and its client waits), every later one is passed on, so a
 * client killed meanwhile has recorded a turn that no server has seen. `not-found` answers the
 * request a test names with a 404 of its own, as a server without that route would.
 */
export type StartAnswer = 'hold-headers' | 'reset' | 'cut-body' | 'keep-first' | 'not-found';

export interface HoldingProxy {
  server: ScriptedServer;
  url: string;
  /** Resolves once the simulator has answered the start's headers (the job exists there); with `keep-first`, once the first start has arrived. */
  started: Promise<IncomingMessage>;
  /** 'hold-headers': passes on what the held requests were answered, as if nothing had been held. */
  release(): void;
  close(): Promise<void>;
}

/** The start request, the one held or cut unless a test names another. */
const isStart = (seen: Seen): boolean => seen.method === 'POST' && seen.url === '/v1/chat/completions';

export async function startHoldingProxy(
  target: string,
  answer: StartAnswer,
  faulted: (seen: Seen) => boolean = isStart,
): Promise<HoldingProxy> {
  let onStarted: (res: IncomingMessage) => void = () => undefined;
  const started = new Promise<IncomingMessage>((resolve) => (onStarted = resolve));
  const upstream = new URL(target);
  const held: Array<() => void> = [];
  const forward = (req: IncomingMessage, seen: Seen, onResponse: (res: IncomingMessage) => void): void => {
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: seen.method, path: seen.url, headers: req.headers },
      onResponse,
    );
    out.on('error', () => undefined);
    out.end(seen.body);
  };
  let kept = false;
  const server = await startServer((req, res: ServerResponse, seen) => {
    if (answer === 'keep-first' && !kept && faulted(seen)) {
      kept = true;
      onStarted(req);
      return;
    }
    if (answer === 'not-found' && faulted(seen)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    if (answer !== 'keep-first' && faulted(seen)) {
      forward(req, seen, (up) => {
        onStarted(up);
        if (answer === 'hold-headers') {
          held.push(() => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          });
          return;
        }
        if (answer === 'reset') {
          res.destroy();
          up.destroy();
          return;
        }
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.flushHeaders();
        up.once('data', (first: Buffer) => {
          res.write(first.subarray(0, Math.max(1, Math.floor(first.length / 2))), () => res.destroy());
          up.destroy();
        });
      });
      return;
    }
    forward(req, seen, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
  });
  return {
    server,
    url: server.url,
    started,
    release: () => {
      for (const go of held.splice(0)) go();
    },
    close: () => server.close(),
  };
}

/** A rig whose runs reach its simulator through a holding proxy: `env` points NSED_URL at the proxy. */
export interface ProxiedRig {
  rig: Rig;
  proxy: HoldingProxy;
  env: { NSED_URL: string };
}

/**
 * Opens a rig behind a holding proxy per call, both closed after each test (call once at the top
 * of a test file): the set-up of every test of a start whose answer the proxy holds or cuts.
 */
export function proxiedRigs(): (
  answer: StartAnswer,
  simOpts?: SimOptions,
  faulted?: (seen: Seen) => boolean,
) => Promise<ProxiedRig> {
  const open: Array<{ rig: Rig; proxy?: HoldingProxy }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      await o.proxy?.close();
      await o.rig.close();
    }
  });
  return async (answer, simOpts = {}, faulted = isStart) => {
    const entry: { rig: Rig; proxy?: HoldingProxy } = { rig: await makeRig(simOpts) };
    open.push(entry);
    const proxy = await startHoldingProxy(entry.rig.sim.url, answer, faulted);
    entry.proxy = proxy;
    return { rig: entry.rig, proxy, env: { NSED_URL: proxy.url } };
  };
}
