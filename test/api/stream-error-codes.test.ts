import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../harness/cli.js';
import { parseNdjson } from '../harness/ndjson.js';
import { scriptedRig } from '../harness/scripted-rig.js';
import { runPieces, sseHead } from '../harness/scripted-server.js';

/**
 * An error sent inside a 200 stream exits as the same error does as an HTTP status
 * (docs/reliability.md #19, C9): the real CLI against a loopback server that answers both ways.
 */

const rig = scriptedRig('stream-errors');

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

const CASES: Array<[string, number, number]> = [
  ['{"error":{"code":"invalid_api_key"}}', 401, 4],
  ['{"error":{"message":"no such model","type":"invalid_request_error","code":"model_not_found"}}', 404, 3],
  ['{"error":{"message":"bad messages","type":"invalid_request_error"}}', 400, 2],
  ['{"error":{"message":"denied","type":"permission_error"}}', 403, 4],
  ['{"error":{"message":"slow down","code":"rate_limit_exceeded"}}', 429, 5],
  ['{"error":{"message":"council failed","type":"server_error"}}', 500, 5],
  ['{"error":{"message":"no key","status":401}}', 401, 4],
];

async function ask(
  body: string,
  as: 'stream' | 'status',
  status: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const server = await rig.serve((_req, res) => {
    if (as === 'status') {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
      return;
    }
    sseHead(res);
    res.end(`data: ${body}\n\n`);
  });
  return runCliInProcess(['ask', '--url', server.url, '-o', 'ndjson', 'x'], {
    env: { NSED_HOME: await rig.home(), NO_COLOR: '1' },
  });
}

describe('an error inside a 200 stream (reliability #19)', () => {
  for (const [body, status, exit] of CASES) {
    it(`exits ${exit} for ${body}, as the same error does as HTTP ${status} (reliability #19, C9)`, async () => {
      const inStream = await ask(body, 'stream', status);
      const asStatus = await ask(body, 'status', status);
      expect(inStream.code).toBe(exit);
      // A 404 on the compat route without a model_not_found code reads "not found" as well: exit 3.
      expect(asStatus.code).toBe(exit);
      const terminal = parseNdjson(inStream.stdout).at(-1);
      expect(terminal).toMatchObject({ type: 'error', exit_code: exit });
    });
  }

  it('maps `event: error` the same way (reliability #19)', () => {
    const out = runPieces([enc('event: error\ndata: {"error":{"code":"invalid_api_key"}}\n\n')]);
    expect(out.error).toMatchObject({ code: 'auth', exitCode: 4 });
    expect(out.error?.message).toContain('invalid_api_key');
  });
});
