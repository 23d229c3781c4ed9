// Writing a file outside the store (docs/reliability.md #82-#84): a regular file or a new path is
// replaced atomically; a device, a FIFO or a socket is written directly and stays what it was; a
// folder or a block device is refused; a link is followed. Real nodes in a temp folder: the
// devices are made with mknod (skipped with a message where that is not permitted).
import { execFileSync, spawn } from 'node:child_process';
import { lstatSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { writeOutsideFile } from '../../src/files/outside-file.js';
import { makeDevice } from '../harness/device-node.js';
import { WAIT_MS } from '../harness/limits.js';
import { tempHome } from '../harness/temp-store.js';

const failure = async (p: Promise<unknown>): Promise<NsedError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NsedError);
  return err as NsedError;
};

describe('a regular file or a new path (reliability #82)', () => {
  it('is replaced atomically, mode 0600, no temp file left; a new path is created', async () => {
    const dir = await tempHome();
    const old = path.join(dir, 'old.txt');
    await writeFile(old, 'old', { mode: 0o644 });
    expect(await writeOutsideFile(old, 'new\n')).toBe('replaced');
    expect(await readFile(old, 'utf8')).toBe('new\n');
    expect(statSync(old).mode & 0o777).toBe(0o600);
    expect(await writeOutsideFile(path.join(dir, 'fresh.txt'), 'x')).toBe('replaced');
    expect((await readdir(dir)).sort()).toEqual(['fresh.txt', 'old.txt']);
  });

  it('a missing folder is exit 11 naming ENOENT, unless makeDirs asks for it', async () => {
    const dir = await tempHome();
    const deep = path.join(dir, 'a', 'b', 'c.json');
    const err = await failure(writeOutsideFile(deep, 'x'));
    expect(err.exitCode).toBe(11);
    expect(err.message).toBe(`cannot write ${deep}: ENOENT`);
    await writeOutsideFile(deep, 'x', { makeDirs: true });
    expect(await readFile(deep, 'utf8')).toBe('x');
  });
});

describe('a device, a FIFO, a socket (reliability #83)', () => {
  it('a null device is written, and stays a character device', async (t) => {
    const dir = await tempHome();
    const dev = makeDevice(path.join(dir, 'null'), 3);
    if (dev === undefined) return t.skip('mknod is not permitted here: no device node to write to');
    expect(await writeOutsideFile(dev, 'a whole export\n')).toBe('device');
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
    expect(await readdir(dir)).toEqual(['null']);
  });

  it('a full device is exit 11 naming ENOSPC, and stays a device', async (t) => {
    const dir = await tempHome();
    const dev = makeDevice(path.join(dir, 'full'), 7);
    if (dev === undefined) return t.skip('mknod is not permitted here: no device node to write to');
    const err = await failure(writeOutsideFile(dev, 'x'));
    expect(err.exitCode).toBe(11);
    expect(err.code).toBe('io');
    expect(err.message).toBe(`cannot write ${dev}: ENOSPC`);
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
  });

  it('a FIFO is written to its reader, more than a pipe holds, and stays a FIFO', async () => {
    const dir = await tempHome();
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let got = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (got += d));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    const text = 'line of an export\n'.repeat(20_000);
    // cat may open the FIFO after the first try: the write waits for it, here with the suite's
    // backstop as the bound, so a slow spawn on a busy machine is not a failure.
    expect(await writeOutsideFile(fifo, text, { waitMs: WAIT_MS })).toBe('fifo');
    await closed;
    expect(got).toBe(text);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('a FIFO nobody reads is exit 11 once the wait is spent, not a hang', async () => {
    const dir = await tempHome();
    const fifo = path.join(dir, 'unread');
    execFileSync('mkfifo', [fifo]);
    const err = await failure(writeOutsideFile(fifo, 'x', { waitMs: 60, pauseMs: 20 }));
    expect(err.exitCode).toBe(11);
    expect(err.message).toBe(`cannot write ${fifo}: no process opened the FIFO for reading`);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('a Unix socket gets the bytes through a connection, and stays a socket', async () => {
    const dir = await tempHome();
    const sock = path.join(dir, 'sock');
    let got = '';
    let ended: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const server = createServer((c) => {
      c.setEncoding('utf8').on('data', (d: string) => (got += d));
      c.on('end', () => server.close(() => ended()));
    });
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    expect(await writeOutsideFile(sock, 'over the socket\n')).toBe('socket');
    await done;
    expect(got).toBe('over the socket\n');
  });
});

describe('a folder and a link (reliability #84)', () => {
  it('a folder is refused, exit 2 naming it, and left as it was', async () => {
    const dir = await tempHome();
    const sub = path.join(dir, 'reports');
    await mkdir(sub);
    const err = await failure(writeOutsideFile(sub, 'x', { label: 'the config file' }));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`the config file ${sub} is a directory; nsed writes a file, never into a folder`);
    expect(await readdir(sub)).toEqual([]);
  });

  it('a link to a regular file replaces the target where it is; the link stays a link', async () => {
    const dir = await tempHome();
    await mkdir(path.join(dir, 'real'));
    const target = path.join(dir, 'real', 'export.md');
    await writeFile(target, 'old');
    const link = path.join(dir, 'link.md');
    await symlink('real/export.md', link);
    const chain = path.join(dir, 'chain.md');
    await symlink(link, chain);
    expect(await writeOutsideFile(chain, 'through two links')).toBe('replaced');
    expect(await readFile(target, 'utf8')).toBe('through two links');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(lstatSync(chain).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe('real/export.md');
    expect((await readdir(path.join(dir, 'real'))).sort()).toEqual(['export.md']);
  });

  it('a dangling link creates its target; a link to a device writes the device', async (t) => {
    const dir = await tempHome();
    const link = path.join(dir, 'later.json');
    await symlink('made-by-nsed.json', link);
    await writeOutsideFile(link, '{}');
    expect(await readFile(path.join(dir, 'made-by-nsed.json'), 'utf8')).toBe('{}');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    const dev = makeDevice(path.join(dir, 'null'), 3);
    if (dev === undefined) return t.skip('mknod is not permitted here: no device node to link to');
    const toDev = path.join(dir, 'to-null');
    await symlink(dev, toDev);
    expect(await writeOutsideFile(toDev, 'x')).toBe('device');
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
  });

  it('a loop of links is refused, exit 2', async () => {
    const dir = await tempHome();
    await symlink('b', path.join(dir, 'a'));
    await symlink('a', path.join(dir, 'b'));
    const err = await failure(writeOutsideFile(path.join(dir, 'a'), 'x'));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/is a loop of symbolic links$/);
  });
});
