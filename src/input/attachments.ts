import type { createHash as CreateHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { notFound, usageError } from '../errors.js';
import { boundsOf, readInputFile } from '../files/read-input.js';
import type { Attachment } from '../session/index.js';
import { fenced, readStdin, type PromptContext } from './prompt.js';

/**
 * Caps on files given with -f (docs/usage.md "Files as context"): one file, and all of a turn's files
 * together. Past them the prompt would outgrow any council's context; a glob that reaches too far
 * is better refused, naming the file, than sent.
 */
export const MAX_FILE_BYTES = 512 * 1024;
export const MAX_TOTAL_BYTES = 2 * 1024 * 1024;

/** A file attached to a turn: what the prompt holds (content) and what the session records. */
export interface ReadAttachment extends Attachment {
  content: string;
}

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * Reads what -f names, in order: a path, a glob (expanded here, matches sorted, so a shell
 * without globstar and a quoted pattern give the same files), or `-` for standard input (read to
 * its end, bounded by --timeout). A file named twice is attached once.
 */
export async function readAttachments(specs: readonly string[], ctx: PromptContext): Promise<ReadAttachment[]> {
  const out: ReadAttachment[] = [];
  if (specs.length === 0) return out;
  // Loaded here: a turn without files (the one-shot ask entry) never pays for node:crypto.
  const { createHash } = await import('node:crypto');
  const attachment = (path: string, bytes: Buffer): ReadAttachment => textAttachment(path, bytes, createHash);
  const seen = new Set<string>();
  let total = 0;
  const add = (a: ReadAttachment): void => {
    total += a.size;
    if (total > MAX_TOTAL_BYTES)
      throw usageError(
        `-f ${a.path}: the files attached come to more than ${MAX_TOTAL_BYTES / 1024} KiB in all`,
        'attach fewer files, or narrow the glob',
      );
    out.push(a);
  };
  for (const spec of specs) {
    if (spec === '-') {
      const text = await readStdin(ctx, 'the file -f -', MAX_FILE_BYTES);
      add(attachment('-', Buffer.from(text, 'utf8')));
      continue;
    }
    for (const path of await expandFileSpec(spec)) {
      if (seen.has(path)) continue;
      seen.add(path);
      add(
        attachment(
          path,
          await readInputFile(path, {
            label: '-f',
            maxBytes: MAX_FILE_BYTES,
            overCapHint: 'attach the part that matters',
            ...boundsOf(ctx),
          }),
        ),
      );
    }
  }
  return out;
}

/** One path, or the sorted matches of a glob; a glob matching nothing is exit 3 naming it. */
export async function expandFileSpec(spec: string): Promise<string[]> {
  if (!GLOB_CHARS.test(spec) || (await exists(spec))) return [spec];
  const { glob } = await import('tinyglobby');
  // Matches read as the pattern was written: relative to the current directory, or absolute.
  const found = await glob([spec], { onlyFiles: true, expandDirectories: false, absolute: isAbsolute(spec) });
  // A pattern that reaches nsed unexpanded matched nothing in the shell either (or the shell does
  // not expand), so quoting it cannot help: the hint says where it was matched from instead.
  if (found.length === 0)
    throw notFound(
      `-f ${spec}: no file matches`,
      isAbsolute(spec) ? 'check the pattern' : 'check the pattern: it is matched from the current folder',
    );
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Text only: a NUL byte or bytes that are not UTF-8 mark a file the prompt cannot carry. */
function textAttachment(path: string, bytes: Buffer, createHash: typeof CreateHash): ReadAttachment {
  let content: string;
  try {
    if (bytes.includes(0)) throw new Error('NUL');
    content = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw usageError(`-f ${path} is a binary file`, 'attach text files only (UTF-8)');
  }
  return { path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), content };
}

/**
 * The documented layout: the question, then each file in a fenced block whose info string is
 * its path (`stdin` for -f -), a blank line between blocks.
 */
export function withAttachments(prompt: string, files: readonly ReadAttachment[]): string {
  if (files.length === 0) return prompt;
  const blocks = files.map((f) => fenced(f.content, infoString(f.path)));
  return `${prompt}\n\n${blocks.join('\n')}`.replace(/\n$/, '');
}

/** A path as an info string: on one line, and without backticks (which a backtick fence's info string cannot hold). */
function infoString(path: string): string {
  if (path === '-') return 'stdin';
  return [...path].map((c) => (c === '`' || c.charCodeAt(0) < 0x20 || c === '\u007f' ? '?' : c)).join('');
}
