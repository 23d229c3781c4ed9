import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Whether a location a server named is a real place in the checkout (README "Findings on the
 * changed lines", docs/reliability.md #202): a path relative to the workspace that stays inside it
 * once every symbolic link is resolved, names a regular file, and a line that file has. Nothing
 * here trusts the name: an absolute path, a `..` part, a link out, a missing file or line is
 * refused with the reason, and the caller drops the finding with one warning line.
 */
export type Placement = { ok: true; path: string } | { ok: false; why: string };

/** Longest file whose lines are counted: a bigger one is no source file a review points into. */
const MAX_BYTES = 32 * 1024 * 1024;

export class Workspace {
  private root: Promise<string> | undefined;
  private readonly lines = new Map<string, Promise<number | string>>();

  constructor(private readonly dir: string) {}

  /** Places `file` at `line` (to `endLine`) in the workspace, or says why it cannot be. */
  async place(file: string, line: number, endLine: number | null): Promise<Placement> {
    const rel = relativeOf(file);
    if (typeof rel !== 'string') return rel;
    let root: string;
    try {
      root = await (this.root ??= realpath(this.dir));
    } catch {
      return { ok: false, why: `the workspace ${this.dir} cannot be read` };
    }
    let real: string;
    try {
      real = await realpath(path.join(root, ...rel.split('/')));
    } catch {
      return { ok: false, why: 'no such file in the checkout' };
    }
    const inside = path.relative(root, real);
    if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside))
      return { ok: false, why: 'it leaves the workspace (a symbolic link out of it)' };
    const count = await (this.lines.get(real) ?? this.countLines(real));
    if (typeof count === 'string') return { ok: false, why: count };
    if (line > count) return { ok: false, why: `line ${line} is past its end (${count} lines)` };
    if (endLine !== null && (endLine < line || endLine > count))
      return { ok: false, why: `end line ${endLine} is not between line ${line} and its end (${count} lines)` };
    return { ok: true, path: rel };
  }

  private countLines(real: string): Promise<number | string> {
    const counted = (async (): Promise<number | string> => {
      const s = await stat(real).catch(() => undefined);
      if (s === undefined || !s.isFile()) return 'not a file in the checkout';
      if (s.size > MAX_BYTES) return 'a file too big to point into';
      const bytes = await readFile(real).catch(() => undefined);
      if (bytes === undefined) return 'the file cannot be read';
      let n = 0;
      for (const b of bytes) if (b === 0x0a) n++;
      // A last line without its newline is a line all the same.
      return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? n + 1 : n;
    })();
    this.lines.set(real, counted);
    return counted;
  }
}

/**
 * The path as a workspace-relative one with `/` between its parts (`./` and empty parts taken
 * out), or why it is not one: absolute (POSIX, a drive letter, a UNC path), with a `..` part, a
 * backslash or a control character.
 */
function relativeOf(file: string): string | { ok: false; why: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(file)) return { ok: false, why: 'its path holds a control character' };
  if (file.startsWith('/') || /^[A-Za-z]:/.test(file) || file.startsWith('\\'))
    return { ok: false, why: 'an absolute path' };
  if (file.includes('\\')) return { ok: false, why: 'its path holds a backslash' };
  const parts = file.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return { ok: false, why: "it leaves the workspace ('..')" };
  if (parts.length === 0) return { ok: false, why: 'no file named' };
  return parts.join('/');
}
