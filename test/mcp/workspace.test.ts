import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NsedError } from '../../src/errors.js';
import { confineFiles, workspaceRoots } from '../../src/mcp/workspace.js';

describe("files named by an MCP tool stay inside the host's workspace roots", () => {
  let base: string;
  let root: string;
  let outside: string;
  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'nsed-roots-')));
    root = join(base, 'project');
    outside = join(base, 'secret.txt');
    await mkdir(join(root, 'src'), { recursive: true });
    await writeFile(join(root, 'src', 'a.ts'), 'a');
    await writeFile(join(root, 'src', 'b.ts'), 'b');
    await writeFile(outside, 'do not send');
    await symlink(outside, join(root, 'src', 'link.ts'));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  const refused = async (specs: string[]): Promise<NsedError> => {
    const err = await confineFiles(specs, [root]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(NsedError);
    return err as NsedError;
  };

  it('takes paths and globs relative to the first root, as absolute paths', async () => {
    expect(await confineFiles(['src/a.ts', 'src/[ab].ts'], [root])).toEqual([
      join(root, 'src', 'a.ts'),
      join(root, 'src', 'a.ts'),
      join(root, 'src', 'b.ts'),
    ]);
  });

  it('refuses .., an absolute path, a symlink and a glob match that lead outside, and stdin (reliability #214)', async () => {
    expect((await refused(['../secret.txt'])).message).toContain('is outside the workspace');
    expect((await refused([outside])).code).toBe('usage');
    expect((await refused(['src/link.ts'])).message).toContain('src/link.ts is outside the workspace');
    expect((await refused(['src/*.ts'])).message).toContain('is outside the workspace');
    expect((await refused(['-'])).message).toContain('is not a file path');
    expect((await refused(['src/none.ts'])).code).toBe('not_found');
  });

  it('uses the file: roots a host declares, else the working directory', async () => {
    expect(await workspaceRoots([pathToFileURL(root).href, 'https://example.com/x'], base)).toEqual([root]);
    expect(await workspaceRoots([], root)).toEqual([root]);
    expect(await workspaceRoots(undefined, root)).toEqual([root]);
  });
});
