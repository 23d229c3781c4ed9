// One writer of the contention figure: loads the bundled store, says "ready", waits for "go" on
// stdin, then appends COUNT turns to one session and prints {waits} (ms from each update() call
// to its mutate callback, i.e. the wait for the lock plus the re-read inside it).
// argv: <bundle> <home> <session id> <count> <tag>
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';

const [bundle, home, id, count, tag] = process.argv.slice(2);
const { openFileStore } = await import(pathToFileURL(bundle).href);
const store = openFileStore(home, { lockTimeoutMs: 120_000 });

process.stdout.write('ready\n');
process.stdin.resume();
await once(process.stdin, 'data');

const waits = [];
for (let n = 0; n < Number(count); n++) {
  const called = performance.now();
  let entered;
  await store.update(id, (s) => {
    // mutate runs again if the lock was lost mid-write; the wait is up to the first entry.
    entered ??= performance.now();
    s.turns.push({
      id: `${tag}-${n}`,
      role: 'user',
      kind: 'message',
      content: `${tag} appends turn ${n}`,
      status: 'complete',
      ts: new Date().toISOString(),
    });
  });
  waits.push(entered - called);
}
process.stdout.write(`${JSON.stringify({ waits })}\n`);
process.exit(0);
