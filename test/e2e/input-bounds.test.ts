// Every file a flag names is read by the one reader (src/files/read-input.ts): a FIFO nobody
// writes to is bounded by --timeout (exit 124), a device is refused (exit 2), a missing file is
// exit 3, whichever flag names it.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDevice } from '../harness/device-node.js';
import { waitForOutput, useRig } from '../harness/rig.js';

const rig = useRig();
let dir: string;
let template: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsed-input-bounds-'));
  template = join(dir, 'review.md');
  await writeFile(template, 'Review {{thing}}\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each flag that names a file, as the words that make `path` the file it reads. */
const PATH_FLAGS: Array<[string, (path: string) => string[]]> = [
  ['-f', (p) => ['ask', '-f', p, 'q']],
  ['--schema', (p) => ['ask', '--schema', p, 'q']],
  ['--gates', (p) => ['ask', '--gates', p, 'q']],
  ['--tools', (p) => ['ask', '--tools', p, 'q']],
  ['--template', (p) => ['ask', '--template', p]],
  ['--vars', (p) => ['ask', '--template', template, '--vars', p]],
  ['--token-file', (p) => ['ask', '--token-file', p, 'q']],
  ['the batch file', (p) => ['batch', p]],
  ['gate --from', (p) => ['gate', '--from', p, '--min-convergence', '0.5']],
  ['nsed render', (p) => ['render', p]],
];

let fifos = 0;
function fifo(): string {
  const file = join(dir, `fifo-${++fifos}`);
  execFileSync('mkfifo', [file]);
  return file;
}

describe.concurrent('a FIFO with no writer, for every flag that names a file (reliability #171)', () => {
  // Real processes, all at once: the FIFO never gets a writer, so --timeout is what ends each
  // run, whenever it comes (a short one is the behaviour under test here).
  it.each(PATH_FLAGS)('%s: --timeout ends the wait with exit 124, naming the file', async (flag, words) => {
    const file = fifo();
    const r = await rig.runProcess([...words(file), '--timeout', '2']);
    expect({ flag, code: r.code }).toEqual({ flag, code: 124 });
    expect(r.stderr).toContain(
      `nsed: nothing ended ${flag === 'gate --from' ? '--from' : flag} ${file} within --timeout 2 s`,
    );
  });
});

describe('a device, for every flag that names a file (reliability #170)', () => {
  it.each(PATH_FLAGS)(
    '%s: /dev/zero and /dev/urandom are refused (exit 2) before a byte is read',
    async (flag, words) => {
      for (const dev of ['/dev/zero', '/dev/urandom']) {
        const r = await rig.run(words(dev));
        expect({ flag, dev, code: r.code }).toEqual({ flag, dev, code: 2 });
        expect(r.stderr).toContain(`${dev} is a character device; nsed reads regular files and pipes`);
      }
    },
  );

  it('device nodes made with mknod (zero, urandom): refused for -f and --schema as a real process', async (t) => {
    const zero = makeDevice(join(dir, 'zero'), 5);
    const random = makeDevice(join(dir, 'urandom'), 9);
    if (zero === undefined || random === undefined)
      return t.skip('mknod is not permitted here: no device node to read');
    for (const args of [
      ['ask', '-f', zero, 'q'],
      ['ask', '--schema', random, 'q'],
    ]) {
      const r = await rig.runProcess(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain('is a character device');
    }
  });
});

describe('a missing file is exit 3 for every flag that names one (reliability #173)', () => {
  it.each(PATH_FLAGS)('%s', async (flag, words) => {
    const missing = join(dir, 'no-such-file');
    const r = await rig.run(words(missing));
    expect({ flag, code: r.code }).toEqual({ flag, code: 3 });
    expect(r.stderr).toContain(`${missing}: no such file`);
  });
});

describe('Ctrl-C while standard input is silent (reliability #172)', () => {
  it('nsed render - ends with exit 130 at SIGINT', async () => {
    const child = rig.spawn(['render', '--verbose', '-'], { stdin: 'inherit-open' });
    // The line comes once the command runs, so the signal handlers are in place.
    await waitForOutput(child, (out) => out.includes('reading standard input'));
    child.kill('SIGINT');
    const r = await child.result;
    child.stdin?.destroy();
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('nsed: interrupted while reading standard input');
  });

  it('nsed ask - likewise, without --timeout', async () => {
    const child = rig.spawn(['ask', '--verbose', '-'], { stdin: 'inherit-open' });
    await waitForOutput(child, (out) => out.includes('setting '));
    child.kill('SIGINT');
    const r = await child.result;
    child.stdin?.destroy();
    expect(r.code).toBe(130);
  });
});

describe('a report path that cannot be written is refused before anything is sent (reliability #174)', () => {
  it('--summary, --junit, --html and batch --out on a loop of links: exit 2, no request', async () => {
    const loop = join(dir, 'report-loop');
    await symlink(loop, loop);
    const items = join(dir, 'one.txt');
    await writeFile(items, 'q one\n');
    for (const args of [
      ['ask', '--summary', loop, 'q'],
      ['ask', '--junit', loop, 'q'],
      ['ask', '--html', loop, 'q'],
      ['batch', items, '--summary', loop],
      ['batch', items, '--out', loop],
    ]) {
      const before = rig.sim.requests.length;
      const r = await rig.run(args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(`${loop} is a loop of symbolic links`);
      expect(rig.sim.requests.length).toBe(before);
    }
  });
});

describe('the config file on a device (reliability #179)', () => {
  it('NSED_CONFIG=/dev/zero is exit 8 naming the file, after at most its cap is read', async () => {
    const r = await rig.run(['sessions', 'ls'], { env: { NSED_CONFIG: '/dev/zero' } });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('nsed: cannot read the config file /dev/zero: EFBIG');
  });
});
