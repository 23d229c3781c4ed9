import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '../../src/api/client.js';
import type { Connection } from '../../src/run/connection.js';
import { parseGlobalOptions } from '../../src/commands/global-options.js';
import { createContext, type Context, type GlobalOptions } from '../../src/run/context.js';
import type { OutputMode } from '../../src/output/modes.js';
import { openFileStore } from '../../src/session/file-store.js';
import type { InputOptions } from '../../src/input/turn-input.js';
import type { TurnOptions } from '../../src/turn/turn-options.js';
import type { SessionStore } from '../../src/session/store.js';
import { startSim, type SimOptions, type SimServer } from '../../src/sim/server.js';
import { memoryIO, type MemoryIO } from '../terminal/memory-io.js';

/** A turn's options as `ask` parses them with no flags given. */
export const TURN_DEFAULTS: TurnOptions = {
  policy: undefined,
  system: undefined,
  title: undefined,
  stream: true,
  agents: undefined,
  rounds: undefined,
  toolsFile: undefined,
  toolFlags: [],
  askUser: false,
  maxToolCalls: 8,
};

/** What the input flags (-f, --schema, --template) parse to when none is given. */
export const INPUT_DEFAULTS: InputOptions = {
  files: [],
  schema: undefined,
  schemaName: undefined,
  schemaRetries: 1,
  template: undefined,
  vars: [],
  varsFile: undefined,
};

export interface ContextRig {
  ctx: Context;
  conn: Connection;
  store: SessionStore;
  sim: SimServer;
  mem: MemoryIO;
  close(): Promise<void>;
}

/**
 * A Context as runCli builds it, but with its parts in the test's hands: an in-process
 * simulator on a loopback port of its own, a store in a temp directory and memory IO. Turn
 * functions run against it directly, with no process spawned.
 */
export async function contextRig(opts: { sim?: SimOptions; output?: OutputMode } = {}): Promise<ContextRig> {
  const sim = await startSim({ port: 0, roundMs: 3, ...opts.sim });
  const home = await mkdtemp(join(tmpdir(), 'nsed-turn-'));
  const store = openFileStore(home, { now: () => new Date() });
  const mem = memoryIO();
  const client = createClient({ baseUrl: sim.url, idleTimeoutMs: 90_000 });
  const conn: Connection = { client, url: sim.url, orchestrator: sim.url, close: () => client.close() };
  // The settings as runCli resolves them, with --url naming the rig's simulator.
  const { settings } = parseGlobalOptions({ url: sim.url, home, output: opts.output ?? 'ndjson' });
  const globals: GlobalOptions = {
    quiet: true,
    verbose: false,
    sim: false,
    config: { path: undefined, exists: false, values: {}, unknown: [], error: undefined },
    settings,
  };
  const base = {
    env: {},
    clock: { now: () => new Date(), sleep: (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }) },
    signal: new AbortController().signal,
    signalExit: () => undefined,
    randomHex: (bytes: number) => randomBytes(bytes).toString('hex'),
  };
  // Commands close the connection they open; the rig's stays open until close() below.
  const lent: Connection = { ...conn, close: async () => undefined };
  const ctx = createContext(base, mem.io, globals, { store: async () => store, connect: async () => lent });
  return {
    ctx,
    conn,
    store,
    sim,
    mem,
    close: async () => {
      await client.close();
      await sim.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
