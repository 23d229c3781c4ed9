// The loopback orchestrator the figures run against: it answers at once, from memory, in the
// chat-completions SSE shape nsed expects (role chunk with nsed_session_id, content chunks, a
// finish chunk, [DONE], and the x-nsed-session-id header). It runs in its own process so its
// work never lands on the clock of the process being timed.
//
// The stream is chosen by the base URL's path, so nsed (--url), the floors and the openai
// package all ask the same way:
//   /v1/...                          a short answer (one-shot cost)
//   /bulk/<chunks>/<chars>/v1/...    <chunks> content chunks of <chars> characters each
//   /fixed/<chunks>/<total>/v1/...   a <total>-character answer split into <chunks> chunks
//   /stamp/<events>/<ms>/v1/...      one chunk every <ms> ms whose content is
//                                    "<CLOCK_MONOTONIC ns at write>\n"
// Also POST /deliberation/{id}/resume (the same stream again, from the start),
// GET /deliberation/{id}/result, GET /deliberation/{id}/budget (what the job used: its tokens, as
// docs/protocol.md §3.7 shows them) and GET /agents (one agent with its per-token prices, so a
// spend cap is not refused as unmetered). Prints "listening <url>" when ready.
import { once } from 'node:events';
import http from 'node:http';

const MODEL = 'nsed:bench';
const SHORT = ['The answer ', 'is forty', '-two.'];
const BATCH = 512;

const frame = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** @returns {{ kind: string, a: number, b: number, rest: string } | undefined} */
function route(url) {
  const m = /^\/(bulk|fixed|stamp)\/(\d+)\/(\d+)(\/.*)$/.exec(url);
  if (m) return { kind: m[1], a: Number(m[2]), b: Number(m[3]), rest: m[4] };
  return { kind: 'short', a: 0, b: 0, rest: url };
}

/** The content pieces of a bulk or fixed stream, as [piece, count] runs. */
function pieces(spec) {
  if (spec.kind === 'short') return SHORT.map((p) => [p, 1]);
  if (spec.kind === 'bulk') return [['x'.repeat(spec.b), spec.a]];
  const size = Math.floor(spec.b / spec.a);
  const last = spec.b - size * (spec.a - 1);
  return [
    ['y'.repeat(size), spec.a - 1],
    ['y'.repeat(last), 1],
  ];
}

async function write(res, text) {
  if (!res.write(text)) await once(res, 'drain');
}

async function streamAnswer(res, spec, jobId) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-nsed-session-id': jobId });
  await write(res, frame({ role: 'assistant', content: '', nsed_session_id: jobId }));
  if (spec.kind === 'stamp') {
    for (let i = 0; i < spec.a && !res.destroyed; i++) {
      await new Promise((r) => setTimeout(r, spec.b));
      res.write(frame({ content: `${process.hrtime.bigint()}\n` }));
    }
  } else {
    for (const [piece, count] of pieces(spec)) {
      // Identical frames are sent in batches: the server must cost nothing next to the client.
      const one = frame({ content: piece });
      const batch = one.repeat(Math.min(BATCH, count));
      let left = count;
      for (; left >= BATCH; left -= BATCH) await write(res, batch);
      if (left > 0) await write(res, one.repeat(left));
    }
  }
  res.end(`${frame({}, 'stop')}data: [DONE]\n\n`);
}

function content(spec) {
  if (spec.kind === 'stamp') return '';
  return pieces(spec)
    .map(([p, n]) => p.repeat(n))
    .join('');
}

/** One agent, priced as an NSED orchestrator lists it (docs/protocol.md §3.15). */
const AGENTS = [
  { agent_id: 'BenchA', model_name: 'bench', is_online: true, input_price_per_mtok: 1, output_price_per_mtok: 4 },
];

/** What a job used: the question's and the answer's tokens, about four characters a token. */
function budget(jobId, spec) {
  const output = Math.ceil(content(spec).length / 4);
  return {
    job_id: jobId,
    budget: {
      scope: 'standard',
      rounds_completed: 1,
      total_rounds: 1,
      total_input_tokens: 8,
      total_output_tokens: output,
    },
  };
}

const jobs = new Map();
let counter = 0;

const server = http.createServer({ noDelay: true }, (req, res) => {
  const spec = route(req.url ?? '/');
  const body = [];
  req.on('data', (d) => body.push(d));
  req.on('end', () => {
    const job = /^\/deliberation\/([A-Za-z0-9_-]+)\/(resume|result|budget)$/.exec(spec.rest);
    if (req.method === 'POST' && spec.rest === '/v1/chat/completions') {
      const jobId = `bench-${process.pid}-${++counter}`;
      jobs.set(jobId, spec);
      const request = JSON.parse(Buffer.concat(body).toString('utf8') || '{}');
      if (request.stream === false) {
        const completion = {
          id: 'chatcmpl-bench',
          object: 'chat.completion',
          created: 1,
          model: MODEL,
          choices: [{ index: 0, message: { role: 'assistant', content: content(spec) }, finish_reason: 'stop' }],
        };
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-nsed-session-id': jobId })
          .end(JSON.stringify(completion));
        return;
      }
      streamAnswer(res, spec, jobId).catch(() => res.destroy());
    } else if (job && jobs.has(job[1]) && req.method === 'POST' && job[2] === 'resume') {
      streamAnswer(res, jobs.get(job[1]), job[1]).catch(() => res.destroy());
    } else if (job && jobs.has(job[1]) && req.method === 'GET' && job[2] === 'result') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ job_id: job[1], status: 'completed', result: content(jobs.get(job[1])) }));
    } else if (job && jobs.has(job[1]) && req.method === 'GET' && job[2] === 'budget') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(budget(job[1], jobs.get(job[1]))));
    } else if (req.method === 'GET' && spec.rest === '/agents') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(AGENTS));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Not Found' }));
    }
  });
});

server.keepAliveTimeout = 1_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
// The harness closes our stdin when it is done; that is the signal to go.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
