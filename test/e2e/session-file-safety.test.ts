import { copyFile, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNdjson, useRig } from '../harness/rig.js';

/**
 * A session file that is not what nsed wrote (a symbolic link, torn JSON) is never followed or
 * trusted, and never lost: seen through the real CLI (in-process) against the simulator.
 */

const rig = useRig();

const sessionOf = (r: { stdout: string }): string =>
  String(parseNdjson(r.stdout).find((e) => e['type'] === 'turn-start')?.['session']);
const fileOf = (id: string): string => join(rig.home, 'sessions', `${id}.json`);

async function askNdjson(args: string[]): Promise<string> {
  const r = await rig.run(['ask', '-o', 'ndjson', '-p', 'fast', ...args]);
  expect(r.code).toBe(0);
  return sessionOf(r);
}

describe('session files nsed did not write as they are', () => {
  it('refuses a session file that is a symbolic link instead of following it: exit 8, the target untouched', async () => {
    const id = await askNdjson(['a linked question']);
    const outside = join(rig.home, 'outside.json');
    await copyFile(fileOf(id), outside);
    await rm(fileOf(id));
    await symlink(outside, fileOf(id));
    const original = await readFile(outside, 'utf8');

    const shown = await rig.run(['sessions', 'show', id]);
    expect(shown.code).toBe(8);
    expect(shown.stderr).toMatch(
      /^nsed: session file .* is a symbolic link; nsed does not follow links in its store$/m,
    );
    const cont = await rig.run(['continue', '-s', id, 'follow up']);
    expect(cont.code).toBe(8);
    expect(await readFile(outside, 'utf8')).toBe(original);
    const listed = await rig.run(['sessions', 'ls', '--ids']);
    expect(listed.stdout).not.toContain(id);
    expect(listed.stderr).toMatch(/symbolic link/);
    await rm(fileOf(id));
  });

  it('sessions rm of a corrupt file keeps a .corrupt copy; --force deletes it (reliability #57)', async () => {
    const kept = await askNdjson(['to be corrupted']);
    await writeFile(fileOf(kept), '{"id": "torn');
    const r = await rig.run(['sessions', 'rm', kept]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/could not be read, so it was kept as .*\.json\.corrupt-\d+/);
    const names = await readdir(join(rig.home, 'sessions'));
    expect(names).not.toContain(`${kept}.json`);
    const copy = names.find((n) => n.startsWith(`${kept}.json.corrupt-`));
    expect(copy).toBeDefined();
    expect(await readFile(join(rig.home, 'sessions', String(copy)), 'utf8')).toBe('{"id": "torn');

    const gone = await askNdjson(['to be corrupted and forced']);
    await writeFile(fileOf(gone), 'garbage');
    expect((await rig.run(['sessions', 'rm', '--force', gone])).code).toBe(0);
    expect((await readdir(join(rig.home, 'sessions'))).filter((n) => n.startsWith(gone))).toEqual([]);
  });
});
