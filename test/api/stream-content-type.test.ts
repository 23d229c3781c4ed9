import { describe, expect, it } from 'vitest';
import { chunk } from './fixtures.js';
import { TEXT, ev, request, useScriptedClient } from '../harness/scripted-client.js';
import { drain, failure } from '../harness/scripted-server.js';

const setup = useScriptedClient();

describe('content type of a 2xx stream response (reliability #15, #16)', () => {
  it('accepts a MIME type in odd case with parameters', async () => {
    const { client } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'Text/Event-Stream; charset=utf-8' });
      res.end(TEXT + ev('[DONE]'));
    });
    const out = await drain(await client.chatStream(request));
    expect(out.error).toBeUndefined();
  });

  it('decodes UTF-8 even when the header declares another charset (reliability #4)', async () => {
    const { client } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=windows-1252' });
      res.end(ev(chunk({ content: 'é🦀' })) + ev('[DONE]'));
    });
    const out = await drain(await client.chatStream(request));
    expect(out.events[0]).toEqual({ type: 'text', text: 'é🦀', index: 1 });
  });

  it('refuses an HTML page with a bounded, sanitised excerpt', async () => {
    const { client } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html>\u001b]52;c;ZXZpbA==\u0007<body>proxy login ${'x'.repeat(100_000)}</body></html>`);
    });
    const err = await failure(client.chatStream(request));
    expect(err).toMatchObject({ code: 'server', exitCode: 5, status: 200 });
    expect(err.message).toMatch(
      /^the orchestrator answered 200 with text\/html instead of an event stream: <html><body>proxy login x+…$/,
    );
    expect(err.message.length).toBeLessThan(220);
  });

  it('refuses a JSON body sent with 200 to a streaming request', async () => {
    const { client } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"error":"stream unsupported"}');
    });
    const err = await failure(client.chatStream(request));
    expect(err.message).toContain('application/json instead of an event stream');
  });
});
