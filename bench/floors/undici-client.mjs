// nsed's own stack at its floor: undici's request() + eventsource-parser in a plain for-await loop.
import { request } from 'undici';
import { createConsumer, parseArgs, REQUEST } from './consume.mjs';

const { url, mode } = parseArgs(process.argv);
const { statusCode, body } = await request(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  body: JSON.stringify(REQUEST),
});
if (statusCode !== 200) throw new Error(`status ${statusCode}`);
let done = false;
const push = createConsumer(mode, () => (done = true));
for await (const bytes of body) {
  push(bytes);
  if (done) break;
}
