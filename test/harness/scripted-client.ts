import { afterEach } from 'vitest';
import { createClient, type ClientConfig, type NsedClient } from '../../src/api/client.js';
import { chunk } from '../api/fixtures.js';
import { startServer, type Route, type ScriptedServer } from './scripted-server.js';

export const request = { model: 'nsed:fast', messages: [{ role: 'user' as const, content: 'q' }] };
export const ev = (json: string): string => `data: ${json}\n\n`;
export const TEXT = ev(chunk({ content: 'partial' }));

/**
 * One scripted server and client per test, closed after it: `setup(route)` starts both.
 * Call at the top level of a test file (it registers an afterEach).
 */
export function useScriptedClient(): (
  route: Route,
  cfg?: Partial<ClientConfig>,
) => Promise<{ server: ScriptedServer; client: NsedClient }> {
  let server: ScriptedServer | undefined;
  let client: NsedClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
    server = undefined;
    client = undefined;
  });
  return async (route, cfg = {}) => {
    server = await startServer(route);
    client = createClient({ baseUrl: server.url, idleTimeoutMs: 5_000, ...cfg });
    return { server, client };
  };
}
