import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { safeWriter } from '../../src/terminal/safe-writer.js';
import { Capture, settle } from './memory-io.js';

const SOURCE = fileURLToPath(new URL('../../src/terminal/safe-writer.ts', import.meta.url));

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-safe-writer-'));
  await build({
    entryPoints: [SOURCE],
    outfile: join(dir, 'safe-writer.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  // Writes ~4 MB through safeWriter into a pipe whose reader leaves after one byte; exits 0
  // only if it noticed the reader go, was not told it failed, and survived writing afterwards.
  await writeFile(
    join(dir, 'through-safe-writer.mjs'),
    `import { safeWriter } from './safe-writer.mjs';
const out = safeWriter(process.stdout);
const line = 'x'.repeat(1023) + '\\n';
for (let i = 0; i < 4000 && !out.closed; i++) {
  out.write(line);
  if (i % 16 === 0) await out.drain();
}
out.write('after the reader left\\n');
await out.drain();
process.exitCode = out.closed && out.failure === undefined ? 0 : 9;
`,
  );
  // The same loop on the bare stream: the control that shows the test can fail.
  await writeFile(
    join(dir, 'bare-stdout.mjs'),
    `const line = 'x'.repeat(1023) + '\\n';
for (let i = 0; i < 4000; i++) {
  process.stdout.write(line);
  if (i % 16 === 0) await new Promise((r) => setImmediate(r));
}
`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function pipeIntoHead(script: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'bash',
      ['-c', 'node "$1" | head -c 1 > /dev/null; exit "${PIPESTATUS[0]}"', 'pipe-test', join(dir, script)],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('safeWriter (reliability #69)', () => {
  it('lets a process piped into `head -c 1` exit 0 with nothing on stderr', async () => {
    const { code, stderr } = await pipeIntoHead('through-safe-writer.mjs');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('is needed: the same writes on the bare stream die with an EPIPE stack trace', async () => {
    const { code, stderr } = await pipeIntoHead('bare-stdout.mjs');
    expect(code).not.toBe(0);
    expect(stderr).toContain('EPIPE');
  });

  it('passes text through and resolves drain once it has been flushed', async () => {
    const sink = new Capture(false);
    const out = safeWriter(sink);
    out.write('one ');
    out.write('two');
    await out.drain();
    await settle();
    expect(sink.text).toBe('one two');
    expect(out.closed).toBe(false);
  });

  it('drops writes quietly after the stream is destroyed and reports no failure', async () => {
    const sink = new Capture(false);
    const out = safeWriter(sink);
    out.write('kept');
    await out.drain();
    sink.destroy();
    out.write('dropped');
    out.write('dropped again');
    await out.drain();
    await settle();
    expect(out.closed).toBe(true);
    expect(out.failure).toBeUndefined();
    expect(sink.text).toBe('kept');
  });

  it('marks the stream closed and keeps the error when a write fails for another reason', async () => {
    const disk = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
      },
    });
    const out = safeWriter(disk);
    out.write('answer');
    await out.drain();
    await settle();
    expect(out.closed).toBe(true);
    expect(out.failure?.message).toBe('no space left on device');
    expect(() => out.write('more')).not.toThrow();
  });

  it('returns one writer per stream, so every renderer learns the reader has gone', () => {
    const sink = new Capture(false);
    expect(safeWriter(sink)).toBe(safeWriter(sink));
    expect(sink.listenerCount('error')).toBe(1);
  });
});
