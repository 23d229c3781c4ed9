// The simulators the batch figures run against: `nsed sim` in a process of its own (what the
// clients talk to), and the same simulator in this process (the floor, with no client at all).
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleModule } from '../../scripts/build.mjs';
import { baseEnv, CLI } from './proc.mjs';

const LISTENING = /nsed sim listening on (http:\/\/\S+)/;

/** Starts `nsed sim --port 0 ARGS` from the bench's copy of the CLI; resolves once it listens. */
export function startSimProcess(args) {
  const child = spawn(process.execPath, [CLI, 'sim', '--port', '0', ...args], {
    env: baseEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = '';
  let err = '';
  child.stderr.on('data', (d) => {
    if (err.length < 4000) err += d.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nsed sim did not listen within 30 s: ${err.slice(0, 300)}`));
    }, 30_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`nsed sim exited ${code} before listening: ${err.slice(0, 300)}`)));
    child.stdout.on('data', (d) => {
      seen += d.toString();
      const m = LISTENING.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.resume();
      resolve({
        url: m[1],
        close: async () => {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}

let simModule;
/** src/sim/server.ts bundled once into `tmp` and imported here: the simulator without a client process. */
export function loadSim(tmp) {
  simModule ??= bundleModule('src/sim/server.ts', path.join(tmp, 'sim.mjs')).then((f) => import(pathToFileURL(f).href));
  return simModule;
}

/**
 * The simulator's own time for `prompts`, run back to back in this process: one streamed chat
 * request at a time on loopback, read to its end, nothing recorded. Returns the milliseconds.
 */
export async function backToBack(tmp, prompts, { roundMs, model }) {
  const { startSim } = await loadSim(tmp);
  const sim = await startSim({ roundMs, port: 0 });
  try {
    const url = `${sim.url}/v1/chat/completions`;
    const started = performance.now();
    for (const prompt of prompts) {
      const body = JSON.stringify({ model, messages: [{ role: 'user', content: prompt }], stream: true });
      const { status, text } = await post(url, body);
      if (status !== 200 || !text.includes('[DONE]'))
        throw new Error(`the in-process simulator answered ${status}: ${text.slice(0, 200)}`);
    }
    return performance.now() - started;
  } finally {
    await sim.close();
  }
}

/** One POST with node:http, the whole answer read; the least a client can do. */
function post(url, body) {
  return new Promise((resolve, reject) => {
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
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error('the in-process simulator sent nothing for 60 s')));
    req.end(body);
  });
}
