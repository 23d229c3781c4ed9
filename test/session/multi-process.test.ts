import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileStore } from '../../src/session/file-store.js';
import type { Session } from '../../src/session/model.js';
import { bundleStore, runWorker, startWorker } from './fixtures/bundle-store.js';
import { session, tempHome } from '../harness/temp-store.js';

let bundle = '';
let bundleDir = '';
beforeAll(async () => {
  bundleDir = await mkdtemp(path.join(os.tmpdir(), 'nsed-store-bundle-'));
  bundle = await bundleStore(bundleDir);
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
});

describe('several processes on one store', () => {
  it('keeps every turn when 16 processes append 20 turns each to one session (reliability #54, C10)', async () => {
    const home = await tempHome();
    const store = openFileStore(home);
    await store.create(session('shared'));
    const outputs = await Promise.all(
      Array.from({ length: 16 }, (_, w) => runWorker([bundle, home, 'shared', 'append', '20', `w${w}`])),
    );
    const s = await store.read('shared');
    expect(s.turns).toHaveLength(320);
    expect(new Set(s.turns.map((t) => t.id)).size).toBe(320);
    for (let w = 0; w < 16; w++) {
      // Each worker's own turns land in the order it wrote them.
      expect(s.turns.filter((t) => t.id.startsWith(`w${w}-`)).map((t) => t.id)).toEqual(
        Array.from({ length: 20 }, (_, n) => `w${w}-${n}`),
      );
    }
    expect((await store.list()).sessions[0]?.turns).toBe(320);
    expect((await readdir(store.dir)).sort()).toEqual(['shared.json']);
    const waits = outputs.flatMap((o) => (JSON.parse(o) as { waits: number[] }).waits).sort((a, b) => a - b);
    console.info(
      `C10: 320 contended updates, p50 ${waits[160]?.toFixed(1)} ms, p95 ${waits[304]?.toFixed(1)} ms, max ${waits.at(-1)?.toFixed(1)} ms`,
    );
  });

  it('leaves the old or the new file after kill -9 at random moments mid-write (reliability #56, C11)', async () => {
    const home = await tempHome();
    const store = openFileStore(home, { lockTimeoutMs: 5_000 });
    const lanes = ['lane0', 'lane1'];
    for (const id of lanes) await store.create(session(id));
    const lane = async (id: string): Promise<void> => {
      let previous = 0;
      for (let kill = 0; kill < 15; kill++) {
        const child = startWorker([bundle, home, id, 'churn']);
        const exited = once(child, 'exit');
        let seen = '';
        let errors = '';
        child.stderr.on('data', (d: Buffer) => (errors += d.toString()));
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => {
            seen += d.toString();
            if (seen.includes('ready')) resolve();
          });
          child.on('exit', () => reject(new Error(`worker died before it was ready: ${errors}`)));
        });
        await sleep(Math.random() * 40);
        child.kill('SIGKILL');
        await exited;
        const raw = JSON.parse(await readFile(path.join(store.dir, `${id}.json`), 'utf8')) as Session;
        expect(raw.turns.length).toBeGreaterThanOrEqual(previous);
        previous = raw.turns.length;
      }
    };
    await Promise.all(lanes.map(lane));
    const { sessions, unreadable } = await store.list();
    expect(unreadable).toEqual([]);
    expect(sessions).toHaveLength(2);
    // The next start sweeps what the killed writers left (C11: 0 leftover temp files).
    expect((await readdir(store.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // The killed writers' locks are taken over at once: the store reports no wait on them.
    const waited: Array<number | undefined> = [];
    const after = openFileStore(home, { lockTimeoutMs: 5_000, onLockWait: (pid) => waited.push(pid) });
    await after.update('lane0', (s) => {
      s.title = 'after the crashes';
    });
    expect(waited).toEqual([]);
  });
});
