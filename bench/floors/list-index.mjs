// The floor of `sessions ls`: read the store's index (<home>/index.ndjson, one summary per line,
// the last line per id wins), newest first, and print the page, a tab-separated line a session,
// in one write. No check of each session file against its entry, no locks: the least a listing
// from an index can do. `node list-index.mjs HOME [LIMIT]`.
import { readFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const [home, limit] = process.argv.slice(2);
const entries = new Map();
for (const line of readFileSync(path.join(home, 'index.ndjson'), 'utf8').split('\n')) {
  if (!line) continue;
  const e = JSON.parse(line);
  if (e.removed) entries.delete(e.id);
  else entries.set(e.id, e);
}
const page = [...entries.values()].sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0));
const shown = limit === undefined ? page : page.slice(0, Number(limit));
writeSync(1, shown.map((e) => `${e.id}\t${e.title}\t${e.policy}\t${e.turns}\t${e.updated}\t${e.state}\n`).join(''));
