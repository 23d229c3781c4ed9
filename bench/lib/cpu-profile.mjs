// Reads a V8 .cpuprofile into the frames that matter: self time (where the CPU was) and
// inclusive time (what it was doing on behalf of), optionally within a time window.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './proc.mjs';

const frameName = (cf) => {
  const where = cf.url ? `${path.relative(ROOT, cf.url.replace(/^file:\/\//, ''))}:${cf.lineNumber + 1}` : '';
  return `${cf.functionName || '(anonymous)'} ${where}`.trim();
};

/** @returns {{ totalMs: number, self: Array<[string, number]>, inclusive: Array<[string, number]> }} */
export async function summarize(file, { fromMs = 0, toMs = Infinity } = {}) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const inclusive = new Map();
  let t = 0;
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    t += dt;
    if (t < fromMs || t > toMs) return;
    totalMs += dt;
    const node = byId.get(id);
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + dt);
    // Each frame counted once per sample, however deep the recursion.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const n = frameName(byId.get(cur).callFrame);
      if (seen.has(n)) continue;
      seen.add(n);
      inclusive.set(n, (inclusive.get(n) ?? 0) + dt);
    }
  });
  const top = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { totalMs, self: top(self), inclusive: top(inclusive) };
}

/**
 * What the process did in each `bucketMs` slice: busy time and the heaviest stack, named by
 * the innermost frames of nsed's own bundle (dist/), for finding what holds the event loop.
 */
export async function timeline(file, bucketMs = 10) {
  const profile = JSON.parse(await readFile(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const buckets = new Map();
  let t = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    t += dt;
    const leaf = byId.get(id).callFrame;
    if (leaf.functionName === '(idle)') return;
    const own = [];
    for (let cur = id; cur !== undefined && own.length < 4; cur = parent.get(cur)) {
      const cf = byId.get(cur).callFrame;
      if (cf.url.includes('/dist/') || cf.url.includes('/bench/')) own.push(cf.functionName || '(anonymous)');
    }
    const key = `${own.reverse().join(' > ') || '(node internals)'} | ${leaf.functionName || '(anonymous)'}`;
    const b = Math.floor(t / bucketMs);
    const m = buckets.get(b) ?? new Map();
    m.set(key, (m.get(key) ?? 0) + dt);
    buckets.set(b, m);
  });
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, m]) => {
      const busy = [...m.values()].reduce((x, y) => x + y, 0);
      const [key, ms] = [...m.entries()].sort((x, y) => y[1] - x[1])[0];
      return { atMs: b * bucketMs, busyMs: busy, top: key, topMs: ms };
    });
}
