// The part every floor client shares: SSE text -> chunk JSON -> content, in a plain callback
// loop (the fastest shape measured here). `final` prints the answer once at the
// end, like `nsed ask -o final`; `stream` writes each piece as it arrives, like `-o text`.
import { createParser } from 'eventsource-parser';

export const REQUEST = { model: 'nsed:bench', messages: [{ role: 'user', content: 'bench' }], stream: true };

export function parseArgs(argv) {
  const [base, mode = 'final'] = argv.slice(2);
  if (!base || !['final', 'stream'].includes(mode)) throw new Error('usage: <client> BASE_URL [final|stream]');
  return { url: `${base.replace(/\/+$/, '')}/v1/chat/completions`, mode };
}

/**
 * Returns `push(bytes)`; calls `done(answer)` once `[DONE]` has arrived. `quiet` holds the answer
 * and prints nothing (the batch client, which answers many items).
 */
export function createConsumer(mode, done) {
  const decoder = new TextDecoder('utf-8');
  let answer = '';
  let finished = false;
  const parser = createParser({
    onEvent(e) {
      if (finished) return;
      if (e.data === '[DONE]') {
        finished = true;
        if (mode === 'final') process.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
        done(answer);
        return;
      }
      const piece = JSON.parse(e.data).choices[0]?.delta?.content;
      if (typeof piece !== 'string' || piece === '') return;
      if (mode === 'stream') process.stdout.write(piece);
      else answer += piece;
    },
  });
  return (bytes) => parser.feed(decoder.decode(bytes, { stream: true }));
}
