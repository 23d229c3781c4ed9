// What start-up must not pay for (bench/RESULTS.md has the measurements): string-width's
// Intl.Segmenter is built only for text that is not printable ASCII, the bundle carries undici's
// dispatchers without its fetch/WebSocket/cookie modules, a one-shot ask loads no Node module it
// does not call, and the CommonJS entries are ASCII.
import { execFile } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST, spawnCli, type RunResult } from '../harness/process.js';
import { testRig } from '../harness/rig.js';

// Preloaded into the CLI process: says on stderr whenever anything builds an Intl.Segmenter,
// and at exit which of some Node modules were loaded (the list read before stderr, a piped
// one a socket that loads node:net, is written to).
const SPY = `const S = Intl.Segmenter;
Intl.Segmenter = class extends S { constructor(...a) { super(...a); process.stderr.write('[segmenter built]\\n'); } };
process.on('exit', () => {
  const mods = process.moduleLoadList;
  const seen = mods.includes('NativeModule fs') ? ['[module list read]'] : [];
  for (const m of ['crypto', 'http', 'assert', 'child_process', 'readline', 'net', 'stream'])
    if (mods.includes('NativeModule ' + m)) seen.push('[' + m + ' loaded]');
  process.stderr.write(seen.map((l) => l + '\\n').join(''));
});`;
/** NODE_OPTIONS that preload `script` into every Node started with them. */
const preloading = (script: string): string =>
  `--import=data:text/javascript;base64,${Buffer.from(script).toString('base64')}`;
const NODE_OPTIONS = preloading(SPY);

/** What a spy (by default the one above) says on stderr of a Node running `code`. */
const spied = (code: string, nodeOptions = NODE_OPTIONS): Promise<string> =>
  new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', code],
      { env: { ...process.env, NODE_OPTIONS: nodeOptions } },
      (err, _out, stderr) => (err ? reject(err) : resolve(stderr)),
    );
  });

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'nsed-startup-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('start-up cost', () => {
  it('builds no Intl.Segmenter for sessions ls, a usage error or --help; ls loads no node:crypto', async () => {
    const env = { NSED_HOME: home, NO_COLOR: '1', NODE_OPTIONS };
    const ls = await spawnCli(['sessions', 'ls'], { env, timeoutMs: 60_000 }).result;
    expect(ls.code).toBe(0);
    expect(ls.stderr).not.toContain('[segmenter built]');
    expect(ls.stderr).toContain('[module list read]');
    expect(ls.stderr).not.toContain('[crypto loaded]');

    const bad = await spawnCli(['ask', '--no-such-flag', 'q'], { env, timeoutMs: 60_000 }).result;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('nsed: ');
    expect(bad.stderr).not.toContain('[segmenter built]');

    // English help text is printable ASCII, which is measured without the segmenter.
    const help = await spawnCli(['--help'], { env, timeoutMs: 60_000 }).result;
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('nsed <command>');
    expect(help.stderr).not.toContain('[segmenter built]');

    // The spy itself works.
    expect(await spied('new Intl.Segmenter()')).toContain('[segmenter built]');
  });

  it('a one-shot ask loads neither node:http, node:assert, node:child_process nor node:readline', async () => {
    // undici requires the first two at start-up for what nsed never sends (scripts/undici-node-*.cjs);
    // the other two serve a tool call and a question to the person, which this turn has neither of.
    const rig = await testRig();
    const ask = await rig.runProcess(['ask', '-q', '-o', 'final', 'What is the answer?'], {
      env: { NODE_OPTIONS },
      timeoutMs: 60_000,
    });
    expect(ask.code).toBe(0);
    expect(ask.stdout).not.toBe('');
    expect(ask.stderr).toContain('[module list read]');
    for (const m of ['http', 'assert', 'child_process', 'readline']) expect(ask.stderr).not.toContain(`[${m} loaded]`);
    // The spy sees them when they are loaded.
    const seen = await spied("require('node:http'); require('node:assert')");
    expect(seen).toContain('[http loaded]');
    expect(seen).toContain('[assert loaded]');
  });

  it("a one-shot ask sets V8's Liftoff-only WebAssembly tiering before undici compiles its parser", async () => {
    // src/cli/wasm-tiering.ts: set later, V8 would already have tiered the parser up. The spy
    // sees each flag set through node:v8 and each WebAssembly module built before it.
    const flagSpy = `import v8 from 'node:v8';
let modules = 0;
WebAssembly.Module = new Proxy(WebAssembly.Module, { construct(t, a) { modules++; return Reflect.construct(t, a); } });
const set = v8.setFlagsFromString;
v8.setFlagsFromString = (f) => { process.stderr.write('[' + f + ' after ' + modules + ' modules]\\n'); return set(f); };
process.on('exit', () => process.stderr.write('[' + modules + ' modules]\\n'));`;
    const rig = await testRig();
    const ask = await rig.runProcess(['ask', '-q', '-o', 'final', 'What is the answer?'], {
      env: { NODE_OPTIONS: preloading(flagSpy) },
      timeoutMs: 60_000,
    });
    expect(ask.code, ask.stderr).toBe(0);
    expect(ask.stdout).not.toBe('');
    expect(ask.stderr).toContain('[--liftoff-only after 0 modules]');
    expect(ask.stderr).toContain('[--no-wasm-lazy-compilation after 0 modules]');
    // The parser was compiled in this run, after the flags: the spy counts it.
    expect(ask.stderr).toMatch(/\[[1-9]\d* modules\]/);
  });

  it('sessions ls with its output on /dev/null or a pipe loads neither node:net nor node:stream', async () => {
    // A terminal is told from /dev/null without node:tty, and stdin is not read (cli/process-context.ts).
    const env = { NSED_HOME: home, NO_COLOR: '1', NODE_OPTIONS };
    const devNull = openSync('/dev/null', 'w');
    let toNull: RunResult;
    try {
      toNull = await spawnCli(['sessions', 'ls'], { env, stdin: 'null-device', stdout: devNull, timeoutMs: 60_000 })
        .result;
    } finally {
      closeSync(devNull);
    }
    const piped = await spawnCli(['sessions', 'ls'], { env, timeoutMs: 60_000 }).result;
    for (const { code, stderr } of [toNull, piped]) {
      expect(code, stderr).toBe(0);
      expect(stderr).toContain('[module list read]');
      expect(stderr).not.toContain('[net loaded]');
      expect(stderr).not.toContain('[stream loaded]');
    }
  });

  it('the CommonJS entries are ASCII, so Node reads each as a one-byte string', async () => {
    for (const entry of ['ask.cjs', 'fast.cjs', 'help.cjs']) {
      const bytes = await readFile(join(DIST, entry));
      const at = bytes.findIndex((b) => b > 0x7f);
      expect(at, `${entry}: ${bytes.subarray(Math.max(0, at - 60), at + 20).toString()}`).toBe(-1);
    }
  });

  it.skipIf(
    typeof (createRequire(import.meta.url)('node:module') as { enableCompileCache?: unknown }).enableCompileCache ===
      'function',
  )(
    "the bin compiles each entry's text as it was read, and V8 takes the entry's code cache (Node < 22.1)",
    async () => {
      // Wrapped by the bin (Module.wrap), the text would be copied whole before V8 looks its cache
      // up (scripts/build.mjs, ENTRY_WRAPPER).
      const vmSpy = `const vm = process.getBuiltinModule('node:vm');
const S = vm.Script;
vm.Script = class extends S { constructor(src, o) { super(src, o); if (o && o.cachedData) process.stderr.write('[entry ' + (src.startsWith('// nsed-build ') ? 'as read' : 'rewritten') + ', cache ' + (this.cachedDataRejected ? 'rejected' : 'taken') + ']\\n'); } };`;
      const env = { NSED_HOME: home, NO_COLOR: '1', NODE_OPTIONS: preloading(vmSpy) };
      const rig = await testRig();
      const runs = [
        await spawnCli(['sessions', 'ls'], { env, timeoutMs: 60_000 }).result,
        await spawnCli(['--help'], { env, timeoutMs: 60_000 }).result,
        await rig.runProcess(['ask', '-q', '-o', 'final', 'What is the answer?'], { env, timeoutMs: 60_000 }),
      ];
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toContain('[entry as read, cache taken]');
      }
      // The spy tells a rewritten text from one as read.
      expect(
        await spied(
          `new (require('node:vm').Script)(require('node:module').wrap('// nsed-build 0'), { cachedData: Buffer.alloc(8) })`,
          env.NODE_OPTIONS,
        ),
      ).toContain('[entry rewritten, cache rejected]');
    },
  );

  it('bundles every undici name src/ imports, and not undici fetch or WebSocket', async () => {
    const root = join(__dirname, '..', '..');
    const named = new Set<string>();
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (p.endsWith('.ts')) {
          const text = await readFile(p, 'utf8');
          for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'undici'/g)) {
            for (const part of (m[1] ?? '').split(',')) {
              const name = part.trim();
              if (name !== '' && !name.startsWith('type ')) named.add(name.split(/\s+as\s+/)[0] ?? name);
            }
          }
          expect(text).not.toMatch(/import\s+\w+\s*from\s*'undici'|import\s*\*\s*as\s+\w+\s+from\s*'undici'/);
        }
      }
    };
    await walk(join(root, 'src'));
    expect(named.size).toBeGreaterThan(0);
    const slim = createRequire(import.meta.url)(join(root, 'scripts', 'undici-slim.cjs')) as Record<string, unknown>;
    for (const name of named) expect(typeof slim[name], name).toBe('function');
    const Dispatcher = slim['Dispatcher'] as { prototype: Record<string, unknown> };
    expect(typeof Dispatcher.prototype['request']).toBe('function');

    const chunks = join(DIST, 'chunks');
    const texts = await Promise.all((await readdir(chunks)).map((f) => readFile(join(chunks, f), 'utf8')));
    const bundle = texts.join('\n');
    expect(bundle).toContain('node_modules/undici/lib/dispatcher/agent.js');
    expect(bundle).not.toContain('node_modules/undici/lib/web/websocket/');
    expect(bundle).not.toContain('node_modules/undici/lib/web/fetch/index.js');
    // Nor fetch's body code, which undici's client requires only to send a FormData body.
    expect(bundle).toContain('scripts/undici-no-formdata.cjs');
    expect(bundle).not.toContain('node_modules/undici/lib/web/fetch/body.js');
  });
});
