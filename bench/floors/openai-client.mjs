// The official openai package on the same server: its own SSE decoder and Stream iterator.
import OpenAI from 'openai';
import { parseArgs, REQUEST } from './consume.mjs';

const { url, mode } = parseArgs(process.argv);
const client = new OpenAI({ baseURL: url.replace(/\/chat\/completions$/, ''), apiKey: 'bench', maxRetries: 0 });
const stream = await client.chat.completions.create(REQUEST);
let answer = '';
for await (const chunk of stream) {
  const piece = chunk.choices[0]?.delta?.content;
  if (typeof piece !== 'string' || piece === '') continue;
  if (mode === 'stream') process.stdout.write(piece);
  else answer += piece;
}
if (mode === 'final') process.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
