import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the plain server received: path and parsed body of each request. */
export interface PlainRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface PlainServer {
  url: string;
  requests: PlainRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let raw = '';
  for await (const chunk of req) raw += String(chunk);
  try {
    return raw === '' ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    return raw;
  }
}

/** The models the plain server lists on GET /v1/models. */
export const PLAIN_MODELS = ['llama3.2', 'qwen2.5:7b'];

/**
 * A plain OpenAI-compatible server, as llama.cpp, vLLM or Ollama answer: no x-nsed-session-id,
 * no rounds, no /deliberation, no /policies; GET /v1/models lists PLAIN_MODELS. Streaming sends a role chunk, content deltas, a usage chunk with
 * `choices: []` (what `stream_options.include_usage` produces) and `[DONE]`. `answers` is the
 * answer, or a function of the chat request's index (0, 1, …) giving each in turn.
 */
export async function startPlainServer(
  answers: string | ((chatIndex: number) => string) = 'Hello from a plain server.',
): Promise<PlainServer> {
  const requests: PlainRequest[] = [];
  let chats = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      requests.push({ method: req.method ?? '', path, body });
      if (req.method === 'GET' && path === '/v1/models') {
        // As llama.cpp, vLLM and Ollama list what -m may name.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ object: 'list', data: PLAIN_MODELS.map((id) => ({ id, object: 'model', owned_by: 'me' })) }),
        );
        return;
      }
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Not Found: ${path}`, type: 'invalid_request_error' } }));
        return;
      }
      // A function scripts the answers in turn (a repair test's first and second answer).
      const answer = typeof answers === 'string' ? answers : answers(chats++);
      const model = (body as { model?: string } | undefined)?.model ?? 'unknown';
      const stream = (body as { stream?: boolean } | undefined)?.stream === true;
      const base = { id: 'chatcmpl-plain', created: 1_700_000_000, model };
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (v: unknown): boolean => res.write(`data: ${JSON.stringify(v)}\n\n`);
      const chunk = (delta: unknown, finish: string | null = null) => ({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      send(chunk({ role: 'assistant', content: '' }));
      for (const word of answer.split(/(?<= )/)) send(chunk({ content: word }));
      send(chunk({}, 'stop'));
      send({
        ...base,
        object: 'chat.completion.chunk',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
      });
      res.end('data: [DONE]\n\n');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
