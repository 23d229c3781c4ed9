// Builds the import graph of src/ (static, dynamic and type-only imports alike, as TypeScript's
// own pre-processor reads them) and fails when an import runs against the arrows of
// scripts/layers.mjs or when any circle exists. Run by `npm run lint`.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { LAYERED_FOLDERS, ROOT_FILES_MAX, arrowViolation, resolveSpecifier } from './layers.mjs';

/** `{ 'src/a.ts': ['src/b.ts', ...] }` for every .ts file under `root`/src. */
export async function importGraph(root) {
  const graph = {};
  const files = (await readdir(path.join(root, 'src'), { recursive: true })).filter((f) => f.endsWith('.ts'));
  for (const rel of files) {
    const file = `src/${rel.split(path.sep).join('/')}`;
    const abs = path.join(root, file);
    const info = ts.preProcessFile(await readFile(abs, 'utf8'), true, true);
    graph[file] = [
      ...new Set(
        info.importedFiles
          .map((f) => resolveSpecifier(root, abs, f.fileName))
          .filter((t) => t !== undefined && t.endsWith('.ts')),
      ),
    ];
  }
  return graph;
}

/** Every import that runs against the arrows, as `from -> to: why`. */
export function arrowErrors(graph) {
  return Object.entries(graph).flatMap(([from, tos]) =>
    tos.flatMap((to) => {
      const why = arrowViolation(from, to);
      return why === undefined ? [] : [`${from} -> ${to}: ${why}`];
    }),
  );
}

/** One path around each circle of the graph (Tarjan's strongly connected components). */
export function findCycles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph[v] ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    const self = (graph[v] ?? []).includes(v);
    if (component.length > 1 || self) cycles.push(circleThrough(graph, new Set(component), v));
  };
  for (const v of Object.keys(graph).sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/** A shortest way from `start` back to itself inside one component, for the message. */
function circleThrough(graph, component, start) {
  const prev = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of graph[v] ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const way = [v];
        while (way[0] !== start) way.unshift(prev.get(way[0]));
        return [...way, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** The sub-folder of `folder` that holds `file` (`src/turn/follow/` for src/turn/follow/a/b.ts), or undefined. */
function subFolder(folder, file) {
  if (!file.startsWith(folder)) return undefined;
  const rest = file.slice(folder.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? undefined : `${folder}${rest.slice(0, slash + 1)}`;
}

/** The shortest way of imports from `start` to a file under `place`, or undefined when none leads there. */
function wayInto(graph, start, place) {
  const prev = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    if (v.startsWith(place)) {
      const way = [v];
      while (prev.get(way[0]) !== undefined) way.unshift(prev.get(way[0]));
      return way;
    }
    for (const w of graph[v] ?? []) {
      if (prev.has(w)) continue;
      prev.set(w, v);
      queue.push(w);
    }
  }
  return undefined;
}

/**
 * Every arrow that runs back up inside a layered folder (scripts/layers.mjs LAYERED_FOLDERS): a
 * file of a sub-folder importing a file of the folder itself that leads (through any imports)
 * back into that sub-folder, and every circle among the sub-folders. The folder's own files sit
 * above its sub-folders; a sub-folder may use only the folder's files that stand below them all.
 */
export function backArrowErrors(graph, folders = LAYERED_FOLDERS) {
  return folders.flatMap((folder) => {
    const up = Object.entries(graph).flatMap(([from, tos]) => {
      const sub = subFolder(folder, from);
      if (sub === undefined) return [];
      return tos.flatMap((to) => {
        if (!to.startsWith(folder) || subFolder(folder, to) !== undefined) return [];
        const way = wayInto(graph, to, sub);
        return way === undefined
          ? []
          : [`${from} -> ${to}: runs back up inside ${folder}, as ${way.join(' -> ')} imports ${sub}`];
      });
    });
    const subs = {};
    for (const [from, tos] of Object.entries(graph)) {
      const a = subFolder(folder, from);
      if (a === undefined) continue;
      for (const to of tos) {
        const b = subFolder(folder, to);
        if (b !== undefined && b !== a) subs[a] = [...new Set([...(subs[a] ?? []), b])];
      }
    }
    const circles = findCycles(subs).map((c) => `the sub-folders of ${folder} import each other: ${c.join(' -> ')}`);
    return [...up, ...circles];
  });
}

/** src/'s own files beyond the few leaves it may hold (ROOT_FILES_MAX), as one message, or none. */
export function rootFileErrors(graph, max = ROOT_FILES_MAX) {
  const files = Object.keys(graph)
    .filter((f) => /^src\/[^/]+$/.test(f))
    .sort();
  if (files.length <= max) return [];
  return [
    `src/ holds ${files.length} files (${files.join(', ')}), at most ${max}: put each in the folder named for what it holds`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const graph = await importGraph(root);
  const problems = [
    ...arrowErrors(graph),
    ...findCycles(graph).map((c) => `import circle: ${c.join(' -> ')}`),
    ...backArrowErrors(graph),
    ...rootFileErrors(graph),
  ];
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(
      `${problems.length} import problem(s); the allowed arrows are in scripts/layers.mjs and docs/architecture.md`,
    );
    process.exit(1);
  }
  console.log(`imports: ${Object.keys(graph).length} modules, arrows kept, no circle, no arrow back up`);
}
