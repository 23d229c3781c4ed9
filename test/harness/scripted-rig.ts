import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startServer, type Route, type ScriptedServer } from './scripted-server.js';

/**
 * The set-up the scripted-server tests share: a loopback server a test scripts and a temp
 * store home, both gone after each test. Call once at the top of a test file.
 */
export interface ScriptedRig {
  /** Closes the server this test opened, if any, and opens one answering with `route`. */
  serve(route: Route): Promise<ScriptedServer>;
  /** This test's temp home, made on first use; `fresh`: the one before is removed and a new one made. */
  home(opts?: { fresh?: boolean }): Promise<string>;
  /** The server this test opened last; a test that opened none fails here. */
  readonly server: ScriptedServer;
  /** The home this test made; a test that made none fails here. */
  readonly homeDir: string;
}

export function scriptedRig(prefix: string): ScriptedRig {
  let server: ScriptedServer | undefined;
  let home: string | undefined;

  const dropHome = async (): Promise<void> => {
    if (home !== undefined) await rm(home, { recursive: true, force: true });
    home = undefined;
  };
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await dropHome();
  });

  return {
    async serve(route) {
      await server?.close();
      server = await startServer(route);
      return server;
    },
    async home(opts = {}) {
      if (opts.fresh === true) await dropHome();
      home ??= await mkdtemp(join(tmpdir(), `nsed-${prefix}-`));
      return home;
    },
    get server() {
      if (server === undefined) throw new Error('this test opened no scripted server (rig.serve)');
      return server;
    },
    get homeDir() {
      if (home === undefined) throw new Error('this test made no home (rig.home)');
      return home;
    },
  };
}

/** A JSON answer with its status. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}
