// Files nsed writes outside its store, through the CLI (docs/reliability.md #82-#87): export
// --out and the config file to devices, FIFOs, links and folders; a failed stdout is exit 11;
// the config commands repair a wrong value; a config file with a byte-order mark is read.
import { execFileSync, spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeDevice } from '../harness/device-node.js';
import { CLI, parseNdjson, useRig } from '../harness/rig.js';
import { tempHome } from '../harness/temp-store.js';

const rig = useRig();
let id = '';
beforeAll(async () => {
  const ask = await rig.run(['ask', '-o', 'ndjson', 'Design a cache']);
  expect(ask.code).toBe(0);
  id = String(parseNdjson(ask.stdout)[0]?.['session']);
});

function sh(script: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const exportTo = (out: string) => rig.run(['sessions', 'export', id, '--format', 'markdown', '--out', out]);

describe('sessions export --out', () => {
  it('a null device is written and stays a device; a full one exits 11 naming ENOSPC (reliability #83)', async (t) => {
    const dir = await tempHome();
    const nul = makeDevice(join(dir, 'null'), 3);
    const full = makeDevice(join(dir, 'full'), 7);
    if (nul === undefined || full === undefined)
      return t.skip('mknod is not permitted here: no device node to export to');
    const ok = await exportTo(nul);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(lstatSync(nul).isCharacterDevice()).toBe(true);
    const r = await exportTo(full);
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(new RegExp(`^nsed: cannot write ${full}: ENOSPC\nhint: `));
    expect(lstatSync(full).isCharacterDevice()).toBe(true);
    expect(await readdir(dir)).toEqual(['full', 'null']);
  });

  it('--out /dev/stdout writes the export to the pipe (reliability #83)', async () => {
    const expected = (await rig.run(['sessions', 'export', id, '--format', 'markdown'])).stdout;
    const r = await rig.runProcess(['sessions', 'export', id, '--format', 'markdown', '--out', '/dev/stdout']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(expected);
    expect(expected).toMatch(/^# Design a cache\n/);
  });

  it('a FIFO gets the export from its reader and stays a FIFO (reliability #83)', async () => {
    const dir = await tempHome();
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let got = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (got += d));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    const r = await exportTo(fifo);
    await closed;
    expect(r.code).toBe(0);
    expect(got).toBe((await rig.run(['sessions', 'export', id, '--format', 'markdown'])).stdout);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('a link is followed: its regular target is replaced and the link kept; a folder is exit 2 (reliability #84)', async () => {
    const dir = await tempHome();
    await writeFile(join(dir, 'target.md'), 'old');
    await symlink('target.md', join(dir, 'link.md'));
    expect((await exportTo(join(dir, 'link.md'))).code).toBe(0);
    expect(lstatSync(join(dir, 'link.md')).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dir, 'target.md'), 'utf8')).toMatch(/^# Design a cache\n/);
    await mkdir(join(dir, 'folder'));
    const r = await exportTo(join(dir, 'folder'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `nsed: ${join(dir, 'folder')} is a directory; nsed writes a file, never into a folder\nhint: name a file\n`,
    );
    expect(await readdir(join(dir, 'folder'))).toEqual([]);
  });

  it('sessions export ID > /dev/full exits 11 naming ENOSPC, never 1 (reliability #85)', async () => {
    const r = await sh(`"${process.execPath}" "${CLI}" sessions export ${id} > /dev/full`, rig.env);
    expect(r.code).toBe(11);
    expect(r.stderr).toBe('nsed: cannot write to standard output: ENOSPC\n');
    const show = await sh(`"${process.execPath}" "${CLI}" sessions show ${id} > /dev/full`, rig.env);
    expect(show.code).toBe(11);
    expect(show.stderr).toBe('nsed: cannot write to standard output: ENOSPC\n');
  });
});

describe('the config file (NSED_CONFIG) outside the store', () => {
  const set = (config: string, ...args: string[]) =>
    rig.run(['config', 'set', ...args], { env: { NSED_CONFIG: config } });

  it('a device or a FIFO is written, never replaced; a folder is exit 2 naming it (reliability #83, #84)', async (t) => {
    const dir = await tempHome();
    await mkdir(join(dir, 'folder'));
    const folder = await set(join(dir, 'folder'), 'policy', 'fast');
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/^nsed: the config file .*folder is a directory; nsed writes a file/);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let got = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (got += d));
    const closed = new Promise((resolve) => reader.on('close', resolve));
    // Read without waiting for a writer (it reads as empty), then written to its reader.
    expect(await set(fifo, 'policy', 'fast')).toMatchObject({ code: 0, stderr: '' });
    await closed;
    expect(JSON.parse(got)).toEqual({ policy: 'fast' });
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    const nul = makeDevice(join(dir, 'null'), 3);
    if (nul === undefined) return t.skip('mknod is not permitted here: no device node for the config');
    const r = await set(nul, 'policy', 'fast');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(lstatSync(nul).isCharacterDevice()).toBe(true);
  });

  it('a link to the config file is followed and kept', async () => {
    const dir = await tempHome();
    await mkdir(join(dir, 'dotfiles'));
    await writeFile(join(dir, 'dotfiles', 'nsed.json'), '{"policy": "deep"}\n');
    await symlink('dotfiles/nsed.json', join(dir, 'config.json'));
    expect((await set(join(dir, 'config.json'), 'rounds', '3')).code).toBe(0);
    expect(lstatSync(join(dir, 'config.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await readFile(join(dir, 'dotfiles', 'nsed.json'), 'utf8'))).toEqual({
      policy: 'deep',
      rounds: 3,
    });
  });

  it('config set url and config unset url repair a file whose url is wrong (reliability #86)', async () => {
    const dir = await tempHome();
    const config = join(dir, 'config.json');
    await writeFile(config, '{"url": "ftp://nowhere", "policy": "deep"}\n');
    const env = { NSED_CONFIG: config };
    const broken = await rig.run(['config', 'get', 'policy'], { env });
    expect(broken.code).toBe(8);
    expect(broken.stderr).toMatch(/hint: fix it with 'nsed config set url VALUE' or 'nsed config unset url'/);
    expect((await rig.run(['config', 'set', 'url', 'http://127.0.0.1:9'], { env })).code).toBe(0);
    expect((await rig.run(['config', 'get', 'url'], { env })).stdout).toBe('http://127.0.0.1:9\n');
    await writeFile(config, '{"url": 42, "policy": "deep"}\n');
    expect((await rig.run(['config', 'unset', 'url'], { env })).code).toBe(0);
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ policy: 'deep' });
    // A file that is not JSON is still never overwritten.
    await writeFile(config, '{"url": ');
    expect((await rig.run(['config', 'set', 'url', 'http://127.0.0.1:9'], { env })).code).toBe(8);
    expect(await readFile(config, 'utf8')).toBe('{"url": ');
  });

  it('a config file starting with a UTF-8 byte-order mark is read (reliability #87)', async () => {
    const dir = await tempHome();
    const config = join(dir, 'config.json');
    await writeFile(config, '\uFEFF{"policy": "fast"}\n');
    const env = { NSED_CONFIG: config };
    expect(await rig.run(['config', 'get', 'policy'], { env })).toMatchObject({ code: 0, stdout: 'fast\n' });
    expect((await rig.run(['config', 'set', 'rounds', '2'], { env })).code).toBe(0);
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ policy: 'fast', rounds: 2 });
  });
});
