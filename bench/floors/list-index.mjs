// The floor of `sessions ls`: read the store's index (<home>/index.ndjson, one summary per line,
// the last line per id wins), newest first, and print the page, a tab-separated line a session,
// in one write. No check of each session file against its entry, no locks: the least a listing
// from an index can do. `node list-index.mjs HOME [LIMIT] [--check]`: with --check, each entry
// printed is first compared with its file's mtime and size, as nsed's listing promises
// (docs/reliability.md #58), so that what is left between nsed and this floor is nsed's own.
import { readFileSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const check = args.includes('--check');
const [home, limit] = args.filter((a) => a !== '--check');
const entries = new Map();
for (const line of readFileSync(path.join(home, 'index.ndjson'), 'utf8').split('\n')) {
  if (!line) continue;
  const e = JSON.parse(line);
  if (e.removed) entries.delete(e.id);
  else entries.set(e.id, e);
}
const page = [...entries.values()].sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
const shown = limit === undefined ? page : page.slice(0, Number(limit));
if (check) {
  const dir = path.join(home, 'sessions') + path.sep;
  const stale = shown.filter((e) => {
    const st = statSync(`${dir}${e.id}.json`, { throwIfNoEntry: false });
    return st === undefined || st.mtimeMs !== e.mtimeMs || st.size !== e.size;
  });
  if (stale.length > 0) throw new Error(`${stale.length} index entries differ from their files`);
}
writeSync(1, shown.map((e) => `${e.id}\t${e.title}\t${e.policy}\t${e.turns}\t${e.updated}\t${e.state}\n`).join(''));
