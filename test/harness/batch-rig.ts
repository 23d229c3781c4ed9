// What the batch tests share: one simulator rig and one temp folder per file, the items written
// into it, the result lines read back, and the deliberations the simulator was asked to start.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { useRig, type Rig } from './rig.js';

export type ResultLine = Record<string, unknown>;

export interface BatchRig {
  /** The rig of the file, opened in beforeAll. */
  readonly rig: Rig;
  /** The temp folder of the file. */
  readonly dir: string;
  /** Writes `text` to `name` in the folder; its path. */
  file(name: string, text: string): Promise<string>;
}

/** Opens a rig and a temp folder before the file's tests and closes both after them. */
export function useBatchRig(prefix: string): BatchRig {
  const rig = useRig();
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `nsed-${prefix}-`));
  });
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const must = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`the batch rig's ${what} is opened in beforeAll`);
    return v;
  };
  return {
    rig,
    get dir() {
      return must(dir, 'folder');
    },
    async file(name, text) {
      const p = join(must(dir, 'folder'), name);
      await writeFile(p, text);
      return p;
    },
  };
}

/** The result lines of a batch's output; a line that is not JSON (a cut last line) is skipped. */
export const resultLines = (text: string): ResultLine[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as ResultLine];
      } catch {
        return [];
      }
    });

/** The deliberations the simulator was asked to start, on either surface. */
export const deliberations = (r: Rig): number =>
  r.sim.requests.filter((q) => q.method === 'POST' && /completions|deliberation/.test(q.path)).length;

/**
 * Three items one at a time on a held simulator: the first is let finish, the second is running
 * when the batch is interrupted (SIGINT). The batch's own result, which must be exit 130.
 */
export async function interruptedAfterFirst(
  held: Rig,
  items: string,
  flags: readonly string[] = [],
): Promise<Awaited<ReturnType<Rig['run']>>> {
  const run = held.start(['batch', items, '-j', '1', ...flags]);
  held.sim.control.release(await held.sim.control.nextJob());
  await run.output((o) => o.includes('[1/3] line-1 ok'));
  await held.sim.control.nextJob();
  run.interrupt();
  const r = await run.result;
  expect(r.code).toBe(130);
  return r;
}
