// The least a batch client does, for the batch figure's reference rows: `node batch-client.mjs
// BASE_URL MODEL JOBS ITEMS_FILE` sends one streamed chat completion per line of ITEMS_FILE, JOBS
// at once on undici's shared pool, reads each answer to its `[DONE]` with the floors' consumer
// (consume.mjs), then reads the deliberation's /details once, as nsed does for the ballots.
// Nothing is recorded and nothing judged; it prints how many items were answered.
import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import { createConsumer } from './consume.mjs';

const [base, model, jobsArg, itemsFile] = process.argv.slice(2);
const jobs = Number(jobsArg);
if (!base || !model || !Number.isInteger(jobs) || jobs < 1 || !itemsFile)
  throw new Error('usage: batch-client.mjs BASE_URL MODEL JOBS ITEMS_FILE');
const root = base.replace(/\/+$/, '');
const prompts = (await readFile(itemsFile, 'utf8')).split('\n').filter((l) => l.trim() !== '');

/** One item: its answer streamed to `[DONE]`, then its /details read whole. */
async function runItem(prompt) {
  const { statusCode, headers, body } = await request(`${root}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], stream: true }),
  });
  if (statusCode !== 200) throw new Error(`chat completion: status ${statusCode}`);
  const job = headers['x-nsed-session-id'];
  if (typeof job !== 'string') throw new Error('chat completion: no x-nsed-session-id header');
  let answer;
  const push = createConsumer('quiet', (all) => (answer = all));
  for await (const bytes of body) {
    push(bytes);
    if (answer !== undefined) break;
  }
  if (answer === undefined || answer === '') throw new Error(`job ${job}: no answer ended by [DONE]`);
  const details = await request(`${root}/deliberation/${encodeURIComponent(job)}/details`);
  const text = await details.body.text();
  if (details.statusCode !== 200) throw new Error(`job ${job}: /details status ${details.statusCode}`);
  JSON.parse(text);
}

let next = 0;
let answered = 0;
const worker = async () => {
  for (let i = next++; i < prompts.length; i = next++) {
    await runItem(prompts[i]);
    answered++;
  }
};
await Promise.all(Array.from({ length: Math.min(jobs, prompts.length) }, worker));
process.stdout.write(`${answered}\n`);
