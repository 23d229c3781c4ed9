import { describe, expect, it } from 'vitest';
import { startPlainServer } from '../everyday/plain-server.js';
import { makeRig, useRig } from '../harness/rig.js';

/** Text mode names the turn's session on stderr once, whatever path the answer took; -q keeps it quiet. */

const rig = useRig();

describe('the session id on stderr where no job names it', () => {
  it('-m against a plain OpenAI-compatible server: text mode names the session on stderr', async () => {
    const plain = await startPlainServer('Plain answer.');
    try {
      const r = await rig.run(['ask', '--url', plain.url, '-m', 'llama3.2', 'hello']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('Plain answer.\n');
      const [id] = (await rig.run(['sessions', 'ls', '--ids', '-n', '1'])).stdout.split('\n');
      expect(r.stderr).toBe(`session ${id} · policy llama3.2\n`);
    } finally {
      await plain.close();
    }
  });

  it('a passthrough answer on the strict profile (no session id anywhere) names the session on stderr', async () => {
    const strict = await makeRig({ profile: 'strict' });
    try {
      const r = await strict.run(['ask', '-p', 'passthrough', 'hello']);
      expect(r.code, r.stderr).toBe(0);
      const [id] = (await strict.run(['sessions', 'ls', '--ids', '-n', '1'])).stdout.split('\n');
      expect(r.stderr).toBe(`session ${id} · policy nsed:passthrough\n`);
    } finally {
      await strict.close();
    }
  });

  it('an NSED answer names the session once, in its job line, and -q keeps stderr empty', async () => {
    const r = await rig.run(['ask', '-p', 'fast', 'hello']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/session /g)).toHaveLength(1);
    expect(r.stderr).toMatch(/^session \S+ · job \S+ · policy nsed:fast$/m);
    expect((await rig.run(['ask', '-q', '-p', 'fast', 'hello'])).stderr).toBe('');
  });
});
