// The platform's floor: node:http + eventsource-parser, nothing else loaded.
import http from 'node:http';
import { createConsumer, parseArgs, REQUEST } from './consume.mjs';

const { url, mode } = parseArgs(process.argv);
const body = JSON.stringify(REQUEST);
const req = http.request(
  url,
  {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'content-length': Buffer.byteLength(body),
    },
  },
  (res) => {
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
    const push = createConsumer(mode, () => res.destroy());
    res.on('data', push);
  },
);
req.end(body);
