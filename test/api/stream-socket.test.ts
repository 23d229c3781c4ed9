import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type NsedClient } from '../../src/api/client.js';
import { fixtures } from './fixtures.js';
import {
  drain,
  sseHead,
  startServer,
  writeBytewise,
  writeSplit,
  type ScriptedServer,
} from '../harness/scripted-server.js';

/** The fixtures again, over real loopback sockets, through the whole client. */

const request = { model: 'nsed:fast', messages: [{ role: 'user' as const, content: 'What is 2 + 2?' }] };

let server: ScriptedServer;
let client: NsedClient;

beforeAll(async () => {
  server = await startServer();
  client = createClient({ baseUrl: server.url, idleTimeoutMs: 5_000 });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

function expected(f: (typeof fixtures)[number]): { events: unknown[]; error?: unknown } {
  return f.error === undefined
    ? { events: f.events }
    : { events: f.events, error: expect.objectContaining(f.error) as unknown };
}

describe('fixtures over a real socket', () => {
  for (const f of fixtures) {
    it(`${f.name}: whole`, async () => {
      server.route = async (_req, res) => {
        sseHead(res);
        await writeSplit(res, f.bytes, []);
        res.end();
      };
      const out = await drain(await client.chatStream(request));
      expect(out.error === undefined ? { events: out.events } : out).toEqual(expected(f));
    });
  }

  // One byte per write for a handful of the trickiest fixtures keeps the suite fast.
  const bytewise = fixtures.filter((f) =>
    /CR|mixed|byte-order|multi-byte|invalid UTF-8|tool-call fragments/.test(f.name),
  );
  for (const f of bytewise) {
    it(`${f.name}: one byte per write`, async () => {
      server.route = async (_req, res) => {
        sseHead(res);
        await writeBytewise(res, f.bytes);
        res.end();
      };
      const out = await drain(await client.chatStream(request));
      expect(out.error === undefined ? { events: out.events } : out).toEqual(expected(f));
    });
  }
});

describe('batches(): the same events, one array per network read', () => {
  for (const f of fixtures.filter((x) => x.error === undefined).slice(0, 8)) {
    it(`${f.name}: flattened batches equal the events`, async () => {
      server.route = async (_req, res) => {
        sseHead(res);
        await writeBytewise(res, f.bytes);
        res.end();
      };
      const events: unknown[] = [];
      let reads = 0;
      for await (const batch of (await client.chatStream(request)).batches()) {
        expect(batch.length).toBeGreaterThan(0);
        reads += 1;
        events.push(...batch);
      }
      expect(events).toEqual(f.events);
      expect(reads).toBeLessThanOrEqual(Math.max(1, f.events.length));
    });
  }
});
