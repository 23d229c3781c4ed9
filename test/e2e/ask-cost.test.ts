// What a one-shot `ask` must not pay for (bench/RESULTS.md, round 3, has the measurements):
// undici's HTTP/2 client and node:http2 (nsed never negotiates HTTP/2), and node:crypto (ids come
// from /dev/urandom where there is one), and a file stream on a stdin that is /dev/null (round 7).
// Only a real process shows what it loaded.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useRig } from '../harness/rig.js';

// Preloaded into the CLI process: at exit, lists the built-in modules it loaded on stderr.
const SPY = `process.on('exit', () => process.stderr.write('[modules ' + process.moduleLoadList.join(',') + ']\\n'));`;
const NODE_OPTIONS = `--import=data:text/javascript;base64,${Buffer.from(SPY).toString('base64')}`;

const rig = useRig();

describe('the cost of a one-shot ask', () => {
  it('answers without loading node:http2 or node:crypto, and leaves no lock or temp file behind', async () => {
    const r = await rig.runProcess(['ask', '-q', '-p', 'fast', '-o', 'final', 'What is 6 times 7?'], {
      env: { NODE_OPTIONS },
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).not.toBe('');
    const modules = /\[modules ([^\]]*)\]/.exec(r.stderr)?.[1]?.split(',') ?? [];
    // The spy works: the request went out through node:net.
    expect(modules).toContain('NativeModule net');
    expect(modules.filter((m) => m.includes('http2'))).toEqual([]);
    if (process.platform !== 'win32') expect(modules).not.toContain('NativeModule crypto');
    // The transcript and the folder of its answer's rounds (docs/history.md), nothing else.
    const names = await readdir(join(rig.home, 'sessions'));
    const [transcript] = names.filter((n) => n.endsWith('.json'));
    expect(names.sort()).toEqual([transcript, String(transcript).replace(/\.json$/, '.rounds')].sort());
    const rounds = await readdir(join(rig.home, 'sessions', String(transcript).replace(/\.json$/, '.rounds')));
    expect(rounds.filter((n) => !n.endsWith('.json'))).toEqual([]);
    expect((await readdir(rig.home)).filter((n) => n.includes('.lock'))).toEqual([]);
  });

  it('answers with stdin on /dev/null without opening a file stream on it', async () => {
    const r = await rig.runProcess(['ask', '-q', '-p', 'fast', '-o', 'final', 'What is 6 times 7?'], {
      env: { NODE_OPTIONS },
      stdin: 'null-device',
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).not.toBe('');
    const modules = /\[modules ([^\]]*)\]/.exec(r.stderr)?.[1]?.split(',') ?? [];
    expect(modules).toContain('NativeModule net');
    // process.stdin on /dev/null is an fs.ReadStream, read through the thread pool: nothing else
    // an ask does loads its module.
    if (process.platform !== 'win32') expect(modules).not.toContain('NativeModule internal/fs/streams');
  });

  it('still reads a /dev/null stdin as empty where the prompt is stdin', async () => {
    const r = await rig.runProcess(['ask', '-q', '-p', 'fast', '-o', 'final', '-'], { stdin: 'null-device' });
    const piped = await rig.runProcess(['ask', '-q', '-p', 'fast', '-o', 'final', '-'], { stdin: '' });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: piped.code, stderr: piped.stderr });
    expect(r.code).not.toBe(0);
  });
});
