// The bundles give undici stand-ins for node:http and node:assert (scripts/undici-node-*.cjs, which
// say why). Each must answer what undici reads of it as the real module does.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const scripts = join(__dirname, '..', '..', 'scripts');
const load = createRequire(import.meta.url);

/** `maxHeaderSize` of the stand-in and of node:http, in a Node started with `args` and `env`. */
function headerSizes(args: string[], env: Record<string, string | undefined>): Promise<number[]> {
  const script = `const s = require(${JSON.stringify(join(scripts, 'undici-node-http.cjs'))}).maxHeaderSize;
process.stdout.write(JSON.stringify([s, require('node:http').maxHeaderSize]));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...args, '-e', script], { env: { ...process.env, ...env } }, (err, out) =>
      err ? reject(err) : resolve(JSON.parse(out) as number[]),
    );
  });
}

describe("undici's node:http stand-in", () => {
  it("gives node:http's maxHeaderSize: the default, the command line's and NODE_OPTIONS'", async () => {
    const plain = await headerSizes([], { NODE_OPTIONS: undefined });
    expect(plain[0]).toBe(plain[1]);
    expect(await headerSizes(['--max-http-header-size=40000'], { NODE_OPTIONS: undefined })).toEqual([40000, 40000]);
    expect(await headerSizes([], { NODE_OPTIONS: '--max-http-header-size=50000' })).toEqual([50000, 50000]);
  });

  it("has an IncomingMessage that is not node:http's, so undici's destroy leaves other streams' sockets alone", () => {
    const standIn = load(join(scripts, 'undici-node-http.cjs')) as { IncomingMessage: unknown };
    const http = load('node:http') as { IncomingMessage: unknown };
    expect(typeof standIn.IncomingMessage).toBe('function');
    expect(standIn.IncomingMessage).not.toBe(http.IncomingMessage);
  });
});

describe("undici's node:assert stand-in", () => {
  it("passes a true invariant and throws node:assert's AssertionError on a false one", async () => {
    const assert = load(join(scripts, 'undici-node-assert.cjs')) as (v: unknown, m?: string) => void;
    const { AssertionError } = await import('node:assert');
    expect(() => assert(1)).not.toThrow();
    expect(() => assert(0)).toThrow(AssertionError);
    expect(() => assert(false, 'the invariant')).toThrow('the invariant');
  });
});
