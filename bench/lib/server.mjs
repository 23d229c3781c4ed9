// Starts bench/sse-server.mjs in a process of its own and hands back its base URL.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { baseEnv } from './proc.mjs';

const SCRIPT = fileURLToPath(new URL('../sse-server.mjs', import.meta.url));

export function startServer() {
  const child = spawn(process.execPath, [SCRIPT], { env: baseEnv(), stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the bench server exited ${code} before listening`)));
    child.stdout.on('data', (d) => {
      seen += d.toString();
      const m = /listening (http:\/\/\S+)/.exec(seen);
      if (!m) return;
      child.removeAllListeners('exit');
      resolve({
        url: m[1],
        close: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.stdin.end();
          }),
      });
    });
  });
}
