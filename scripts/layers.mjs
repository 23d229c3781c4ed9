// The layers of src/ and the arrows allowed between them: the one table that eslint.config.js
// (rule layers/arrows, on every import as it is written) and scripts/check-imports.mjs (the
// whole graph: arrows again, and no circle) enforce. docs/architecture.md's table of arrows is
// written from it (`arrowTable`, by `npm run docs`) and compared with it by test/lint/arrows.test.ts.
import path from 'node:path';

const STORE_INTERNALS = [
  'src/session/file-store.ts',
  'src/session/lock.ts',
  'src/session/atomic-adapter.ts',
  'src/session/index-journal.ts',
  'src/session/paths.ts',
];

/**
 * Each rule names the files it governs (`from`: a folder ending in `/` or one file) and either
 * the only places they may import (`allow`) or the places they must not (`deny`, with `except`).
 * The first rule whose `from` matches a file decides; a file no rule names may import anything
 * but src/cli/ (the entry), which nothing imports.
 */
export const LAYERS = [
  {
    from: 'src/sim/',
    allow: ['src/sim/', 'src/protocol/', 'src/errors.ts'],
    why: 'the simulator stands in for an orchestrator: it shares the wire protocol with the client and nothing else',
  },
  { from: 'src/protocol/', allow: ['src/protocol/', 'src/errors.ts'], why: 'the wire types are a leaf layer' },
  { from: 'src/errors.ts', allow: [], why: 'the error type and exit codes are a leaf every layer imports' },
  {
    from: 'src/events/events.ts',
    allow: ['src/protocol/', 'src/council/verdict.ts', 'src/council/usage.ts'],
    why: 'the event union is a leaf that api/ produces and output/, turn/ consume',
  },
  {
    from: 'src/council/verdict.ts',
    allow: ['src/protocol/', 'src/council/ballots.ts', 'src/council/usage.ts'],
    why: "the council's verdict is derived from the wire's rounds and milestones and the ballots alone: a leaf that events.ts, output/, turn/ and the reports share",
  },
  {
    from: 'src/council/usage.ts',
    allow: ['src/protocol/'],
    why: "what a turn cost, derived from the server's token_usage, totals, budget and prices alone: a leaf the turn, the reports and the gates share",
  },
  {
    from: 'src/council/spend-cap.ts',
    allow: ['src/council/usage.ts'],
    why: 'a spend cap is its values and whether a usage crossed it: a leaf the settings, the turn, batch and MCP share',
  },
  {
    from: 'src/council/estimate.ts',
    allow: ['src/council/usage.ts'],
    why: 'what a turn may cost before it is sent, from the listed per-round prices and the rounds alone: a pure leaf the commands plumb',
  },
  {
    from: 'src/council/council-status.ts',
    allow: ['src/protocol/', 'src/council/verdict.ts'],
    why: "whether the whole council voted: a pure function over the turn's rounds and its verdict's ballots",
  },
  {
    from: 'src/council/ballots.ts',
    allow: ['src/protocol/'],
    why: 'who voted how, and the trust figures: pure functions over /details and /agents that the verdict reads',
  },
  {
    from: 'src/events/transcript.ts',
    allow: ['src/events/events.ts', 'src/protocol/', 'src/council/usage.ts'],
    why: 'the transcript is a pure fold of the event union: a leaf that turn/ records and output/ renders from',
  },
  { from: 'src/version.ts', allow: [], why: 'a leaf' },
  {
    from: 'src/process-alive.ts',
    allow: [],
    why: 'a leaf: whether a pid names a live process, and the name of the host it is tested on',
  },
  {
    from: 'src/tools/',
    allow: ['src/tools/', 'src/events/events.ts', 'src/terminal/', 'src/errors.ts', 'src/protocol/'],
    why: 'the tools nsed runs for the council (a declared program, a question to the person) need the call, the terminal and nothing of the turn that asks for them',
  },
  {
    from: 'src/secrets.ts',
    allow: [],
    why: 'what is redacted, and how, is a leaf that the store, the exports, stderr and api/ share',
  },
  {
    from: 'src/files/',
    allow: ['src/files/', 'src/errors.ts', 'src/session/random-hex.ts'],
    why: 'writing a file safely (atomically, or directly to a device), and reading one a flag names (bounded), knows nothing of what the file holds',
  },
  {
    from: 'src/terminal/',
    allow: ['src/terminal/', 'src/errors.ts', 'src/secrets.ts'],
    why: 'the terminal knows nothing of deliberations',
  },
  {
    from: 'src/api/',
    deny: [
      'src/session/',
      'src/terminal/',
      'src/output/',
      'src/turn/',
      'src/commands/',
      'src/docs/',
      'src/sim/',
      'src/run/context.ts',
      'src/run/connection.ts',
    ],
    why: 'api/ turns HTTP bytes into typed events; storing, showing and orchestrating them happen above it',
  },
  {
    from: 'src/session/',
    deny: [
      'src/api/',
      'src/output/',
      'src/turn/',
      'src/commands/',
      'src/docs/',
      'src/sim/',
      'src/terminal/',
      'src/run/context.ts',
      'src/run/connection.ts',
    ],
    why: 'the store keeps sessions; it neither talks to the orchestrator nor shows anything',
  },
  {
    from: 'src/output/',
    deny: [
      'src/api/',
      'src/turn/',
      'src/batch/',
      'src/input/',
      'src/commands/',
      'src/docs/',
      'src/sim/',
      'src/run/context.ts',
      'src/run/connection.ts',
      ...STORE_INTERNALS,
    ],
    why: 'output/ renders events (events.ts) and session documents; it neither fetches them nor opens the store',
  },
  {
    from: 'src/turn/',
    deny: ['src/commands/', 'src/batch/', 'src/input/', 'src/docs/', 'src/sim/'],
    why: 'a turn is run from a Context with its input read; the commands that parse argv, the readers of their input, and a batch of turns sit above it',
  },
  {
    from: 'src/input/',
    deny: ['src/commands/', 'src/batch/', 'src/docs/', 'src/sim/'],
    why: "a turn's input (its words or stdin, -f files, a template, a schema, a gates file) is read through a Context before anything is sent; the commands and the batch that ask for it sit above",
  },
  {
    from: 'src/batch/',
    deny: ['src/commands/', 'src/docs/', 'src/sim/'],
    why: "a batch reads each item's input (input/) and runs it as a turn, from a Context; the commands that parse argv, `nsed batch` among them, sit above it",
  },
  {
    from: 'src/run/context.ts',
    deny: ['src/commands/', 'src/turn/', 'src/docs/', 'src/api/', 'src/sim/'],
    except: [],
    why: 'the Context is built below the commands and the turn, which receive it',
  },
  {
    from: 'src/run/connection.ts',
    deny: ['src/commands/', 'src/turn/', 'src/docs/', 'src/run/context.ts', 'src/output/', 'src/session/'],
    why: 'opening a connection needs the client, the config and (for --sim) the simulator, nothing above',
  },
  {
    from: 'src/run/settings.ts',
    allow: ['src/output/modes.ts'],
    why: "a run's resolved settings are plain values, built by the commands and read below them",
  },
  {
    from: 'src/run/config.ts',
    allow: ['src/errors.ts', 'src/protocol/', 'src/run/settings.ts', 'src/files/'],
    why: 'configuration reads the environment and files (the token file by the one reader of files/), nothing else',
  },
  {
    from: 'src/run/config-file.ts',
    allow: [
      'src/errors.ts',
      'src/protocol/',
      'src/output/modes.ts',
      'src/files/',
      'src/commands/shared/setting-rule.ts',
      'src/commands/shared/setting-flags.ts',
    ],
    why: 'the config file is read, each key checked by the rule of the flag it stands in for (the setting flags and their one checker), and written as every file outside the store is',
  },
  {
    from: 'src/mcp/tool-defs.ts',
    allow: ['src/council/verdict.ts', 'src/mcp/turn-args.ts', 'src/mcp/tool-terms.ts', 'src/mcp/result-fit.ts'],
    why: "the MCP tools' names and schemas are data, the turn options made from the CLI's flag entries (turn-args.ts): the server lists them and src/docs/ writes the manual's tool reference (docs/mcp.md) from them",
  },
  {
    from: 'src/mcp/',
    deny: ['src/commands/index.ts', 'src/commands/mcp.ts', 'src/docs/', 'src/sim/', 'src/api/', 'src/batch/'],
    why: "the MCP server runs the CLI's own commands (their parse and run) against a Context of its own; the command table and `nsed mcp` itself sit above it, and the orchestrator is reached only through those commands",
  },
  {
    from: 'src/promptfoo/',
    allow: [
      'src/promptfoo/',
      'src/errors.ts',
      'src/council/usage.ts',
      'src/turn/turn-result.ts',
      'src/commands/shared/flag-def.ts',
    ],
    why: "the promptfoo provider's pieces are pure: its config as words of the command's own flags, and a turn's result as promptfoo's response; the entry (src/cli/promptfoo.ts) runs the turn",
  },
  { from: 'src/commands/', deny: [], why: 'commands may use every layer below the entry' },
  {
    from: 'src/docs/',
    deny: ['src/turn/', 'src/api/', 'src/sim/', 'src/session/'],
    why: 'the docs read the command definitions, not the machinery',
  },
  { from: 'src/cli/', deny: [], why: 'the entry' },
];

/**
 * Layers with a face: from outside `layer`, only its `face` module may be imported; `opens` lets
 * the named importers reach a few more of its files (the Context opens the store). Whatever else
 * the layer holds is private to it.
 */
export const FACES = [
  { layer: 'src/api/', face: 'src/api/index.ts' },
  {
    layer: 'src/session/',
    face: 'src/session/index.ts',
    opens: [
      { by: ['src/run/context.ts'], files: ['src/session/file-store.ts', 'src/session/memory-overlay.ts'] },
      // The one atomic write names its temp files with the store's own random ids (no node:crypto).
      { by: ['src/files/'], files: ['src/session/random-hex.ts'] },
      // A batch holds its results file with the store's own cross-process lock for its whole run.
      { by: ['src/batch/out-lock.ts'], files: ['src/session/lock.ts'] },
    ],
  },
];

/**
 * Folders whose own files sit above their sub-folders: a sub-folder may import a file of the
 * folder only when that file leads back into no sub-folder that imports it, and the sub-folders
 * import each other one way (scripts/check-imports.mjs backArrowErrors).
 */
export const LAYERED_FOLDERS = ['src/turn/'];

/**
 * How many files src/ itself may hold: the leaves every layer imports (errors.ts, version.ts,
 * secrets.ts, process-alive.ts). Everything else lives in a folder named for what it holds.
 */
export const ROOT_FILES_MAX = 4;

const ENTRY = 'src/cli/';

const under = (file, place) => (place.endsWith('/') ? file.startsWith(place) : file === place);

/**
 * Why the import `from` -> `to` runs against the arrows, or undefined when it may. Both are
 * paths from the repository root with forward slashes (`src/api/client.ts`).
 */
export function arrowViolation(from, to) {
  if (!from.startsWith('src/') || !to.startsWith('src/')) return undefined;
  if (under(to, ENTRY) && !under(from, ENTRY)) return `${to} is the entry: nothing but src/cli/ imports it`;
  return layerViolation(from, to) ?? faceViolation(from, to);
}

function layerViolation(from, to) {
  const rule = LAYERS.find((r) => under(from, r.from));
  if (rule === undefined) return undefined;
  if ((rule.except ?? []).some((p) => under(to, p))) return undefined;
  if (rule.allow !== undefined) {
    return rule.allow.some((p) => under(to, p))
      ? undefined
      : `${rule.from} may import only ${rule.allow.join(', ') || 'nothing of src/'} (${rule.why})`;
  }
  const hit = rule.deny.find((p) => under(to, p));
  return hit === undefined ? undefined : `${rule.from} must not import ${hit} (${rule.why})`;
}

function faceViolation(from, to) {
  const faced = FACES.find((f) => under(to, f.layer) && !under(from, f.layer));
  if (faced === undefined || to === faced.face) return undefined;
  const opened = (faced.opens ?? []).some((o) => o.by.some((p) => under(from, p)) && o.files.includes(to));
  if (opened) return undefined;
  return `${to} is private to ${faced.layer}: import what other layers may use from ${faced.face}`;
}

/** The repository file a relative specifier names (`../api/client.js` -> `src/api/client.ts`), or undefined. */
export function resolveSpecifier(root, fromAbs, spec) {
  if (!spec.startsWith('.')) return undefined;
  const abs = path.resolve(path.dirname(fromAbs), spec).replace(/\.js$/, '.ts');
  return path.relative(root, abs).split(path.sep).join('/');
}

const short = (place) => `\`${place.replace(/^src\//, '')}\``;

/**
 * LAYERS as the Markdown table docs/architecture.md shows between `<!-- arrows -->` and
 * `<!-- /arrows -->`: one row a rule, in the order the first matching rule decides.
 */
export function arrowTable() {
  const rows = LAYERS.map((r) => {
    const except = (r.except ?? []).length > 0 ? ` (but ${r.except.map(short).join(', ')})` : '';
    let may;
    let mustNot;
    if (r.allow !== undefined) {
      may = r.allow.length === 0 ? 'nothing of `src/`' : r.allow.map(short).join(', ');
      mustNot = 'everything else';
    } else if (r.from === ENTRY) {
      may = 'everything';
      mustNot = 'nothing';
    } else {
      may = r.deny.length === 0 ? 'everything but `cli/`' : 'everything but the next column and `cli/`';
      mustNot = r.deny.length === 0 ? '`cli/`' : `${r.deny.map(short).join(', ')}${except}`;
    }
    return `| ${short(r.from)} | ${may} | ${mustNot} | ${r.why.replaceAll('|', '\\|')} |`;
  });
  return [
    '| from | may import | must not import | why |',
    '|---|---|---|---|',
    ...rows,
    '| any other module | everything but `cli/` | `cli/`, unless it is in `cli/` itself: nothing but the bin imports the entry | |',
  ].join('\n');
}

/** `text` (docs/architecture.md) with its arrows region rewritten from LAYERS. */
export function withArrowTable(text) {
  const start = '<!-- arrows -->\n';
  const end = '\n<!-- /arrows -->';
  const i = text.indexOf(start);
  const j = text.indexOf(end, i);
  if (i < 0 || j < 0) throw new Error('docs/architecture.md has no <!-- arrows --> region');
  return `${text.slice(0, i + start.length)}${arrowTable()}${text.slice(j)}`;
}
