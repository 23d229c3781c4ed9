import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NsedError, notFound, usageError } from '../errors.js';

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * The folders a host lets nsed read: the roots it declares (`roots/list`, file: URIs only), or
 * the server's working directory when it declares none. Each is resolved through its symlinks,
 * so a link inside a root that points out of it is caught by the same test as `..`.
 */
export async function workspaceRoots(declared: readonly string[] | undefined, cwd: string): Promise<string[]> {
  const dirs = (declared ?? [])
    .filter((u) => u.startsWith('file:'))
    .flatMap((u) => {
      try {
        return [fileURLToPath(u)];
      } catch {
        return [];
      }
    });
  const chosen = dirs.length > 0 ? dirs : [cwd];
  const out: string[] = [];
  for (const d of chosen) out.push(await realpath(d).catch(() => resolve(d)));
  return out;
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * The files a tool argument names, as absolute paths confined to the roots: a path or a glob,
 * relative to the first root. Globs are expanded here (the same matcher as -f) so that each match
 * is checked, through its symlinks, before any byte is read; the CLI's reader then applies -f's
 * caps and text rule to the confined list. `-` (stdin) means the protocol stream: refused.
 */
export async function confineFiles(specs: readonly string[], roots: readonly string[]): Promise<string[]> {
  const base = roots[0];
  if (base === undefined) throw usageError('no workspace root to read files from');
  const out: string[] = [];
  for (const spec of specs) {
    if (spec === '-' || spec.trim() === '')
      throw usageError(`files: '${spec}' is not a file path`, 'name files in the workspace, e.g. src/app.ts');
    const abs = resolve(base, spec);
    let matches = [abs];
    if (GLOB_CHARS.test(spec)) {
      const { glob } = await import('tinyglobby');
      matches = (await glob([abs], { onlyFiles: true, expandDirectories: false, absolute: true })).sort();
      if (matches.length === 0) throw notFound(`files: ${spec}: no file matches`);
    }
    for (const m of matches) {
      const real = await realpath(m).catch(() => undefined);
      if (real === undefined) throw notFound(`files: ${spec}: no such file`);
      if (!roots.some((r) => inside(r, real)))
        throw new NsedError('usage', `files: ${spec} is outside the workspace`, {
          hint: `name files under ${roots.join(', ')}`,
        });
      out.push(real);
    }
  }
  return out;
}
