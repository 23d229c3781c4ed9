// The one reader of files a flag names (src/files/read-input.ts), on real files, FIFOs and
// device nodes (made with mknod, skipped with a message where that is not permitted).
import { execFileSync } from 'node:child_process';
import { open as openFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import {
  boundsOf,
  readInputFile,
  readInputText,
  readStreamBytes,
  type BoundsSource,
  type ReadInputOptions,
} from '../../src/files/read-input.js';
import { makeDevice } from '../harness/device-node.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-read-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const opts = (extra: Partial<ReadInputOptions> = {}): ReadInputOptions => ({
  label: '--schema',
  maxBytes: 64,
  ...extra,
});

/** The NsedError a read ends in (a read that succeeds fails the test). */
async function failure(p: Promise<unknown>): Promise<NsedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NsedError);
  return err as NsedError;
}

function fifo(name: string): string {
  const file = join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

/** Sleeps that end at once: --timeout is due as soon as the read waits. */
const instant = (ms: number, signal?: AbortSignal): Promise<void> =>
  signal?.aborted === true ? Promise.reject(new Error('aborted')) : Promise.resolve();

describe('what the reader reads and refuses (reliability #170)', () => {
  it('a regular file is read whole; at the cap it is read, one byte past it is refused (exit 2)', async () => {
    const at = join(dir, 'at-cap.json');
    await writeFile(at, 'x'.repeat(64));
    expect(await readInputText(at, opts())).toBe('x'.repeat(64));
    const past = join(dir, 'past-cap.json');
    await writeFile(past, 'x'.repeat(65));
    const err = await failure(readInputText(past, opts()));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`--schema ${past} is larger than 0.0625 KiB, the cap per file`);
  });

  it('a missing file is exit 3 (not found), a folder, a socket and a loop of links exit 2, each named', async () => {
    const missing = await failure(readInputText(join(dir, 'nope.json'), opts()));
    expect([missing.exitCode, missing.message]).toEqual([3, `--schema ${join(dir, 'nope.json')}: no such file`]);
    const folder = await failure(readInputText(dir, opts()));
    expect([folder.exitCode, folder.message]).toEqual([
      2,
      `--schema ${dir} is a directory; nsed reads regular files and pipes`,
    ]);
    const sock = join(dir, 'sock');
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      const err = await failure(readInputText(sock, opts()));
      expect([err.exitCode, err.message]).toEqual([
        2,
        `--schema ${sock} is a socket; nsed reads regular files and pipes`,
      ]);
    } finally {
      server.close();
    }
    const loop = join(dir, 'loop');
    await symlink(loop, loop);
    const looped = await failure(readInputText(loop, opts()));
    expect([looped.exitCode, looped.message]).toEqual([2, `--schema ${loop} is a loop of symbolic links`]);
  });

  it('/dev/zero and /dev/urandom are refused before a byte is read, as any character device', async () => {
    for (const dev of ['/dev/zero', '/dev/urandom']) {
      const err = await failure(readInputFile(dev, opts({ maxBytes: 512 * 1024 })));
      expect([err.exitCode, err.message]).toEqual([
        2,
        `--schema ${dev} is a character device; nsed reads regular files and pipes`,
      ]);
    }
  });

  it('device nodes made with mknod (zero, urandom) are refused the same way', async (t) => {
    const zero = makeDevice(join(dir, 'zero'), 5);
    const random = makeDevice(join(dir, 'urandom'), 9);
    if (zero === undefined || random === undefined)
      return t.skip('mknod is not permitted here: no device node to read');
    for (const dev of [zero, random]) {
      const err = await failure(readInputFile(dev, opts()));
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain('is a character device');
    }
  });
});

describe('a FIFO is read as its writer writes, within the bounds (reliability #171)', () => {
  it('with no writer, --timeout ends the wait (exit 124), on the run clock', async () => {
    const file = fifo('no-writer');
    const err = await failure(readInputText(file, opts({ timeoutS: 30, sleep: instant })));
    expect([err.exitCode, err.message]).toEqual([124, `nothing ended --schema ${file} within --timeout 30 s`]);
  });

  it('an input deadline sooner than --timeout ends the wait at it, naming what set it (reliability #288)', async () => {
    const file = fifo('deadline');
    const slept: number[] = [];
    const source = (timeoutS: number | undefined): BoundsSource => ({
      globals: { settings: { timeoutS: { value: timeoutS } } },
      signal: new AbortController().signal,
      signalExit: () => undefined,
      clock: { now: () => new Date(10_000), sleep: (ms, s) => (slept.push(ms), instant(ms, s)) },
      inputDeadline: { at: 12_500, said: "the tool call's timeout_s (2.5 s)" },
    });
    const err = await failure(readInputText(file, { ...opts(), ...boundsOf(source(30)) }));
    expect([err.exitCode, err.message]).toEqual([
      124,
      `nothing ended --schema ${file} within the tool call's timeout_s (2.5 s)`,
    ]);
    expect(slept[0]).toBe(2500);
    // A --timeout sooner than the deadline bounds the read, and is named.
    expect(boundsOf(source(1))).toMatchObject({ timeoutS: 1 });
    expect(boundsOf(source(1)).timeoutSaid).toBeUndefined();
  });

  it('the signal ends the wait: exit 130, or the code of the signal that came', async () => {
    const file = fifo('signalled');
    const ctl = new AbortController();
    const reading = readInputText(file, opts({ signal: ctl.signal }));
    ctl.abort();
    const err = await failure(reading);
    expect([err.exitCode, err.message]).toEqual([130, `interrupted while reading --schema ${file}`]);
    const term = new AbortController();
    term.abort();
    const again = await failure(readInputText(file, opts({ signal: term.signal, signalExit: () => 143 })));
    expect(again.exitCode).toBe(143);
  });

  it('a writer that opens it later is waited for, and what it writes is read to its end', async () => {
    const file = fifo('late-writer');
    const reading = readInputText(file, opts());
    const writer = await openFile(file, 'w');
    await writer.write('{"type":"object"}');
    await writer.close();
    expect(await reading).toBe('{"type":"object"}');
  });

  it('a writer that passes the cap is refused at cap + 1 bytes, however much it would write', async () => {
    const file = fifo('endless');
    const reading = readInputText(file, opts());
    const writer = await openFile(file, 'w');
    // Writes until the reader lets go (EPIPE): without the cap this would never end.
    const writing = (async () => {
      for (;;) await writer.write(Buffer.alloc(4096, 0x61));
    })().catch((e: unknown) => e);
    const err = await failure(reading);
    expect(err.message).toBe(`--schema ${file} is larger than 0.0625 KiB, the cap per file`);
    expect(((await writing) as NodeJS.ErrnoException).code).toBe('EPIPE');
    await writer.close().catch(() => undefined);
  });
});

describe('standard input by the same rule (reliability #172)', () => {
  it('silent: --timeout ends it (124), the signal ends it (130), and the stream is let go', async () => {
    const silent = new PassThrough();
    const err = await failure(readStreamBytes(silent, opts({ label: 'standard input', timeoutS: 5, sleep: instant })));
    expect([err.exitCode, err.message]).toEqual([124, 'nothing ended standard input within --timeout 5 s']);
    expect(silent.destroyed).toBe(true);
    const ctl = new AbortController();
    const other = new PassThrough();
    const reading = readStreamBytes(other, opts({ label: 'standard input', signal: ctl.signal }));
    ctl.abort();
    expect((await failure(reading)).exitCode).toBe(130);
    expect(other.destroyed).toBe(true);
  });

  it('past the cap it is refused without reading on', async () => {
    const big = new PassThrough();
    big.end('y'.repeat(65));
    const err = await failure(readStreamBytes(big, opts({ label: 'standard input' })));
    expect(err.message).toBe('standard input is larger than 0.0625 KiB, the cap for it');
  });
});
