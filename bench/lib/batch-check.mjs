// What each client of the batch figures must have done for its time to count: every item
// answered once. A run that lost or failed an item did other work, and is an error, not a figure.

/** The result lines of `nsed batch`: `count` lines, each id once, every status `ok`. */
export function checkBatchLines(stdout, count) {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const ids = new Set();
  const notOk = {};
  for (const line of lines) {
    const r = JSON.parse(line);
    if (ids.has(r.id)) throw new Error(`nsed batch wrote item ${r.id} twice`);
    ids.add(r.id);
    if (r.status !== 'ok') notOk[r.status] = (notOk[r.status] ?? 0) + 1;
  }
  if (lines.length !== count) throw new Error(`nsed batch wrote ${lines.length} result lines for ${count} items`);
  const bad = Object.entries(notOk);
  if (bad.length > 0)
    throw new Error(`nsed batch: items not ok (${bad.map(([status, n]) => `${n} ${status}`).join(', ')})`);
  return lines.length;
}

/** promptfoo's `-o out.json`: `count` results, all successes, none an error. */
export function checkPromptfooOutput(json, count) {
  const stats = JSON.parse(json)?.results?.stats;
  if (stats === undefined) throw new Error('promptfoo wrote no results.stats');
  const { successes, failures, errors } = stats;
  if (successes !== count || failures !== 0 || errors !== 0)
    throw new Error(`promptfoo: ${successes} successes, ${failures} failures, ${errors} errors of ${count} tests`);
  return successes;
}

/** The prompts of a batch of `count` items: distinct questions, one line each. */
export function batchPrompts(count) {
  return Array.from({ length: count }, (_, i) => `Question ${i + 1}: how should the queue retry job ${i + 1}?`);
}
