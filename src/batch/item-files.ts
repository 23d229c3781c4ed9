import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { usageError } from '../errors.js';
import { expandFileSpec } from '../input/attachments.js';
import { oneLine } from '../terminal/sanitize.js';
import type { BatchItem } from './items.js';

/**
 * The files a batch item names for itself (`"files"` in a JSONL line) stay inside the batch
 * file's folder (the current folder for `-`) unless `--allow-outside-files`: a batch file from an
 * untrusted pull request must not send any file the runner can read to the orchestrator
 * (docs/reliability.md "Batches", docs/reliability.md #176). Checked before the first request, on the path as
 * written (`..`, an absolute path) and on what it finally names (a link that leads out); a glob
 * is checked match by match. A file that does not exist yet is left to its item's error (exit 3).
 */
export async function confineItemFiles(items: readonly BatchItem[], batchFile: string): Promise<void> {
  const lexicalRoot = path.resolve(batchFile === '-' ? '.' : path.dirname(batchFile));
  const realRoot = await realpath(lexicalRoot).catch(() => lexicalRoot);
  for (const item of items) {
    for (const spec of item.overrides.files ?? []) {
      const refuse = (why: string): never => {
        throw usageError(
          `item '${item.id}' (line ${item.line}): file ${oneLine(spec, 200)} ${why}, outside the batch file's folder ${lexicalRoot}`,
          'name files inside that folder, or pass --allow-outside-files if you trust the batch file',
        );
      };
      if (!inside(lexicalRoot, path.resolve(spec))) refuse('lies');
      for (const match of await expandFileSpec(spec).catch(() => [] as string[])) {
        const real = await realpath(match).catch(() => undefined);
        if (real !== undefined && !inside(realRoot, real)) refuse(`leads to ${oneLine(real, 200)}`);
      }
    }
  }
}

const inside = (root: string, p: string): boolean => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};
