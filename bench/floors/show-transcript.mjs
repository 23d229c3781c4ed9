// The floor of `sessions show`: read one session file, parse it, and print each turn as a header
// line and its text (with a line for each answer's recorded verdict), in one write. No
// validation, no redaction, no terminal sanitising. `node show-transcript.mjs HOME ID`.
import { readFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const [home, id] = process.argv.slice(2);
const s = JSON.parse(readFileSync(path.join(home, 'sessions', `${id}.json`), 'utf8'));
const out = [`${s.title}\nsession ${s.id} · policy ${s.active_policy} · ${s.turns.length} turns\n`];
s.turns.forEach((t, i) => {
  out.push(`\n── ${i + 1} · ${t.role} · ${t.ts}\n${t.content}\n`);
  if (t.verdict) out.push(`\n  verdict · ${JSON.stringify(t.verdict).length} bytes\n`);
});
writeSync(1, out.join(''));
