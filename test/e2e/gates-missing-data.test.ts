// A gate that reads data the server did not give is inconclusive (exit 13), never a pass, as
// --min-endorse without real evaluators already is: --max-wrong 0 over claims nobody judged
// (every verdict null). The server is the simulator with those answers written into what it says
// (test/harness/rewriting-proxy.ts); the same question put to the simulator itself is judged, so
// the gate does read what the proxy changes. --max-synthetic over a round summary and /details
// that disagree: test/verdict/gates-missing-data.test.ts.
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { startTextRewritingProxy } from '../harness/rewriting-proxy.js';
import { testRig, type Rig } from '../harness/rig.js';

interface Checked {
  gate: { status: string; checks: Array<{ name: string; status: string; actual: number | null; reason?: string }> };
  error: { code: string; exit_code: number } | null;
}

async function judged(rig: Rig, url: string, words: string[]): Promise<{ code: number; doc: Checked }> {
  const r = await rig.run(['ask', '-o', 'json', ...words, 'Design a cache'], { env: { NSED_URL: url } });
  return { code: r.code, doc: JSON.parse(r.stdout) as Checked };
}

describe('a gate on data the server did not give', () => {
  it('--max-wrong 0 is inconclusive when no claim of the chosen proposal has a verdict', async () => {
    const rig = await testRig({ seed: 3 });
    // Every claim verdict the server sends, in a round and in /details, is null.
    const proxy = await startTextRewritingProxy(rig.sim.url, (text) =>
      text.replace(/"verdict":\s*"(verified|contested|unverified|wrong|unknown)"/g, '"verdict":null'),
    );
    try {
      const judgedClaims = await judged(rig, rig.sim.url, ['-p', 'deep', '--max-wrong', '0', '--max-contested', '99']);
      expect(judgedClaims.doc.gate.checks.map((c) => c.status)).not.toContain('inconclusive');

      const { code, doc } = await judged(rig, proxy.url, ['-p', 'deep', '--max-wrong', '0', '--max-contested', '99']);
      expect(code).toBe(ExitCode.inconclusive);
      expect(doc.gate.status).toBe('inconclusive');
      expect(doc.gate.checks).toEqual([
        { name: 'max-wrong', expected: 0, actual: null, status: 'inconclusive', reason: 'not_reported' },
        { name: 'max-contested', expected: 99, actual: null, status: 'inconclusive', reason: 'not_reported' },
      ]);
      expect(doc.error).toMatchObject({ code: 'inconclusive', exit_code: 13 });
    } finally {
      await proxy.close();
    }
  });
});
