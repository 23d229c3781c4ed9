// The descriptor-written stdout of the fast entries keeps the rules of the stream it replaces
// (docs/reliability.md #69): every byte in order, a full non-blocking pipe handed to the real
// stream, a reader that left reported as EPIPE (quietly closed by SafeWriter), any other failure
// handed to the real stream. The pipes are real: a child process's stdin, whose parent end libuv
// has made non-blocking, so a write larger than the pipe holds meets EAGAIN.
import { spawn, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { fdStdout } from '../../src/terminal/fd-stdout.js';
import { safeWriter } from '../../src/terminal/safe-writer.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A child that copies its stdin to its stdout once told to (a line on fd 3), and its output. */
function reader(startReading: boolean) {
  const script = startReading
    ? 'process.stdin.pipe(process.stdout)'
    : "const s = new (require('net').Socket)({ fd: 3 }); s.once('data', () => { s.destroy(); process.stdin.pipe(process.stdout); })";
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit', 'pipe'] });
  children.push(child);
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (d: Buffer) => chunks.push(d));
  const ended = new Promise<Buffer>((resolve) => child.on('close', () => resolve(Buffer.concat(chunks))));
  const stdin = child.stdin;
  if (stdin === null) throw new Error('no stdin pipe');
  const fd = (stdin as unknown as { _handle: { fd: number } })._handle.fd;
  return { child, stdin, fd, ended, go: () => (child.stdio[3] as Writable).write('go\n') };
}

const bigText = (bytes: number): string => {
  let s = '';
  for (let i = 0; s.length < bytes; i++) s += `line ${i} ✓ ${'x'.repeat(i % 70)}\n`;
  return s;
};

describe('fdStdout', () => {
  it('writes every byte in order, straight to the descriptor when the reader keeps up', async () => {
    const r = reader(true);
    let tookOver = false;
    const out = safeWriter(
      fdStdout(r.fd, () => {
        tookOver = true;
        return r.stdin;
      }),
    );
    const text = bigText(20_000);
    out.write(text.slice(0, 7_000));
    out.write(text.slice(7_000));
    await out.drain();
    r.stdin.end();
    expect((await r.ended).toString('utf8')).toBe(text);
    expect(tookOver).toBe(false);
    expect(out.closed).toBe(false);
    expect(out.failure).toBeUndefined();
  });

  it('hands a full non-blocking pipe (EAGAIN) and every later write to the real stream, in order', async () => {
    const r = reader(false);
    let tookOver = 0;
    const out = safeWriter(
      fdStdout(r.fd, () => {
        tookOver++;
        return r.stdin;
      }),
    );
    // Far more than a pipe holds while nobody reads: the blocking write stops part way.
    const text = bigText(2_000_000);
    out.write(text);
    expect(tookOver).toBe(1);
    out.write('after the take-over\n');
    r.go();
    await out.drain();
    r.stdin.end();
    expect((await r.ended).toString('utf8')).toBe(`${text}after the take-over\n`);
    expect(tookOver).toBe(1);
    expect(out.failure).toBeUndefined();
  });

  it('reports a reader that left as EPIPE: SafeWriter closes quietly, with no failure', async () => {
    // The child closes its end of the pipe and says so, then waits to be killed.
    const child = spawn(
      process.execPath,
      ['-e', "require('fs').closeSync(0); process.stdout.write('closed\\n'); setInterval(() => {}, 60_000)"],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    children.push(child);
    const stdin = child.stdin;
    if (stdin === null) throw new Error('no stdin pipe');
    stdin.on('error', () => undefined);
    const fd = (stdin as unknown as { _handle: { fd: number } })._handle.fd;
    await new Promise((resolve) => child.stdout?.once('data', resolve));
    let tookOver = false;
    const out = safeWriter(
      fdStdout(fd, () => {
        tookOver = true;
        return stdin;
      }),
    );
    out.write(bigText(100_000));
    await out.drain();
    expect(out.closed).toBe(true);
    expect(out.failure).toBeUndefined();
    expect(tookOver).toBe(false);
  });

  it('hands any other failure to the real stream, which reports it as it does for every command', async () => {
    const failed = new Error('no space left on device');
    Object.assign(failed, { code: 'ENOSPC' });
    const real = new Writable({ write: (_chunk, _enc, cb) => cb(failed) });
    // A descriptor number nothing has open: the write fails with EBADF.
    const out = safeWriter(fdStdout(987_654, () => real));
    out.write('text\n');
    await out.drain();
    expect(out.closed).toBe(true);
    expect(out.failure).toBe(failed);
  });
});
