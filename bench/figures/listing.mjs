// Figure 3: reading the store. `sessions ls` over 10,000 and 100,000 sessions (the index journal
// already built, as after any earlier ls), `sessions show` of a 1,000-turn session and `sessions
// search` over 100,000 sessions (one common word, and three; on the SQLite index where the Node
// running the figure has node:sqlite, else on the file index). Each against `node -e 0`, and ls
// and show also against their own floor, a script doing the same essential work: reading the
// index and printing the page (bench/floors/list-index.mjs), reading the session and printing
// its transcript (bench/floors/show-transcript.mjs). The session is shown as nsed writes it today
// (every answer with its recorded verdict) and as an older nsed wrote it (no verdicts: show
// derives each from the recorded rounds).
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atMost, figure } from '../lib/figure.mjs';
import { baseEnv, CLI, runNode, timeNode, whyNot } from '../lib/proc.mjs';
import { interleave } from '../lib/stats.mjs';
import { generateLongSession, generateStore } from '../store/generate.mjs';

const ROUNDS = 10;
const SESSIONS = 10_000;
const MANY = 100_000;
const TURNS = 1_000;
const FLOOR = 'node -e 0';
const INDEX_FLOOR = fileURLToPath(new URL('../floors/list-index.mjs', import.meta.url));
const SHOW_FLOOR = fileURLToPath(new URL('../floors/show-transcript.mjs', import.meta.url));
const n = (v) => v.toLocaleString('en');
const LS = `sessions ls, ${n(SESSIONS)} sessions`;
const SHOW = `sessions show, ${n(TURNS)}-turn session`;
const SHOW_OLD = `${SHOW} recorded before verdicts were kept`;
const SEARCH_WORD = 'evidence';
// Three words every generated session holds (bench/store/sessions.mjs WORDS), each in the question
// and the answer of all of them and in the claims of some: the most matches, and more ways to rank
// them, than one word has.
const SEARCH_WORDS = ['evidence', 'against', 'held'];

/** The names this figure prints (docs/performance.md names some of them). */
export const LISTING_NAMES = [
  LS,
  SHOW,
  SHOW_OLD,
  `${LS} vs reading the index`,
  `sessions ls, ${n(MANY)} sessions vs reading the index`,
  `${SHOW} vs reading the transcript`,
  `sessions search, ${n(MANY)} sessions`,
  `${LS} vs reading the index and checking each file`,
  `sessions ls, ${n(MANY)} sessions vs reading the index and checking each file`,
  `sessions search, ${n(MANY)} sessions, three common words`,
];
const [, , , LS_FLOOR, LS_MANY_FLOOR, SHOW_VS, SEARCH, LS_CHECKED, LS_MANY_CHECKED, SEARCH_THREE] = LISTING_NAMES;

export async function listing({ tmp, store }) {
  const bigHome = await mkdtemp(path.join(tmp, 'listing-home-'));
  const manyHome = await mkdtemp(path.join(tmp, 'many-home-'));
  const longHome = await mkdtemp(path.join(tmp, 'long-home-'));
  const oldHome = await mkdtemp(path.join(tmp, 'old-home-'));
  const lsEnv = baseEnv({ NSED_HOME: bigHome });
  const manyEnv = baseEnv({ NSED_HOME: manyHome });
  const showEnv = baseEnv({ NSED_HOME: longHome });
  const oldEnv = baseEnv({ NSED_HOME: oldHome });
  // Asked before generating anything: a command that has not landed yet is skipped, not waited for.
  let lsMissing = await whyNot(['sessions', 'ls'], lsEnv);
  const showProbe = await whyNot(['sessions', 'show', 'no-such-session'], showEnv);
  let showMissing = showProbe?.includes('exited 2') ? showProbe : undefined;
  const searchProbe = await whyNot(['sessions', 'search', SEARCH_WORD], lsEnv);
  const searchMissing = searchProbe?.includes('exited 2')
    ? `nsed sessions search does not exist in this build (${searchProbe})`
    : undefined;
  if (lsMissing && showMissing)
    return LISTING_NAMES.map((name) => ({
      name,
      skipped: name === SEARCH || name === SEARCH_THREE ? searchMissing : lsMissing,
    }));
  const bundle = await store();
  const listed = await generateStore(bundle, bigHome, SESSIONS);
  const many = lsMissing && searchMissing ? 0 : await generateStore(bundle, manyHome, MANY);
  const longId = await generateLongSession(bundle, longHome, TURNS);
  const oldId = await generateLongSession(bundle, oldHome, TURNS, { verdicts: false });
  lsMissing ??= await whyNot(['sessions', 'ls'], lsEnv);
  showMissing ??= await whyNot(['sessions', 'show', longId], showEnv);

  const variants = { floor: timeNode(['-e', '0'], { env: lsEnv }) };
  if (!lsMissing) {
    // The floor prints as many lines as nsed does: today ls prints every session; a paged ls, a page.
    const linesOf = async (env) =>
      (await runNode([CLI, 'sessions', 'ls'], { env, keep: true })).stdout.split('\n').filter(Boolean).length;
    const lsLines = await linesOf(lsEnv);
    const manyLines = await linesOf(manyEnv);
    variants.ls = timeNode([CLI, 'sessions', 'ls'], { env: lsEnv });
    variants.lsIndex = timeNode([INDEX_FLOOR, bigHome, String(lsLines)], { env: lsEnv });
    variants.lsMany = timeNode([CLI, 'sessions', 'ls'], { env: manyEnv });
    variants.lsManyIndex = timeNode([INDEX_FLOOR, manyHome, String(manyLines)], { env: manyEnv });
    // The same floors comparing each printed entry with its file, as ls must (docs/reliability.md #58).
    variants.lsChecked = timeNode([INDEX_FLOOR, bigHome, String(lsLines), '--check'], { env: lsEnv });
    variants.lsManyChecked = timeNode([INDEX_FLOOR, manyHome, String(manyLines), '--check'], { env: manyEnv });
    variants.lines = { ls: lsLines, many: manyLines };
  }
  if (!showMissing) {
    variants.show = timeNode([CLI, 'sessions', 'show', longId], { env: showEnv });
    variants.showOld = timeNode([CLI, 'sessions', 'show', oldId], { env: oldEnv });
    variants.showFloor = timeNode([SHOW_FLOOR, longHome, longId], { env: showEnv });
  }
  if (!searchMissing) {
    variants.search = timeNode([CLI, 'sessions', 'search', SEARCH_WORD], { env: manyEnv });
    variants.searchThree = timeNode([CLI, 'sessions', 'search', ...SEARCH_WORDS], { env: manyEnv });
  }
  const lines = variants.lines;
  delete variants.lines;
  const s = await interleave(variants, ROUNDS, { warmup: 1 });
  // Which index the searches read: SQLite where this Node has node:sqlite with FTS5, else the file index.
  const searchIndex = existsSync(path.join(manyHome, 'search', 'index.sqlite'))
    ? `the SQLite index (Node ${process.version})`
    : `the file index (Node ${process.version})`;
  const out = [];
  if (lsMissing) out.push({ name: LS, skipped: lsMissing });
  else {
    out.push(
      figure({
        name: LS,
        floorName: FLOOR,
        nsed: s.ls,
        floor: s.floor,
        unit: 'ms',
        // No target against node -e 0: ls and show are held to floors doing the same work (below).
        extra: { sessions: listed, stdout_lines: lines.ls },
      }),
    );
  }
  if (showMissing) out.push({ name: SHOW, skipped: showMissing }, { name: SHOW_OLD, skipped: showMissing });
  else {
    const bytes = (await runNode([CLI, 'sessions', 'show', longId], { env: showEnv })).bytes;
    out.push(
      figure({
        name: SHOW,
        floorName: FLOOR,
        nsed: s.show,
        floor: s.floor,
        unit: 'ms',
        extra: { turns: TURNS, stdout_bytes: bytes },
      }),
      figure({
        name: SHOW_OLD,
        floorName: FLOOR,
        nsed: s.showOld,
        floor: s.floor,
        unit: 'ms',
        extra: { turns: TURNS },
      }),
    );
  }
  if (lsMissing)
    out.push(...[LS_FLOOR, LS_MANY_FLOOR, LS_CHECKED, LS_MANY_CHECKED].map((name) => ({ name, skipped: lsMissing })));
  else
    out.push(
      figure({
        name: LS_FLOOR,
        floorName: 'a script reading index.ndjson and printing the same lines',
        nsed: s.ls,
        floor: s.lsIndex,
        unit: 'ms',
        target: atMost(1.25),
        extra: { sessions: listed, stdout_lines: lines.ls },
      }),
      figure({
        name: LS_MANY_FLOOR,
        floorName: 'a script reading index.ndjson and printing the same lines',
        nsed: s.lsMany,
        floor: s.lsManyIndex,
        unit: 'ms',
        target: atMost(1.25),
        extra: { sessions: many, stdout_lines: lines.many },
      }),
      // No target of the issue's: these say how much of the gap above is the per-file check.
      figure({
        name: LS_CHECKED,
        floorName: 'the same script, comparing each printed entry with its file',
        nsed: s.ls,
        floor: s.lsChecked,
        unit: 'ms',
        extra: { sessions: listed, stdout_lines: lines.ls },
      }),
      figure({
        name: LS_MANY_CHECKED,
        floorName: 'the same script, comparing each printed entry with its file',
        nsed: s.lsMany,
        floor: s.lsManyChecked,
        unit: 'ms',
        extra: { sessions: many, stdout_lines: lines.many },
      }),
    );
  if (showMissing) out.push({ name: SHOW_VS, skipped: showMissing });
  else
    out.push(
      figure({
        name: SHOW_VS,
        floorName: 'a script reading the session file and printing its turns',
        nsed: s.show,
        floor: s.showFloor,
        unit: 'ms',
        target: atMost(1.25),
        extra: { turns: TURNS },
      }),
    );
  if (searchMissing) out.push({ name: SEARCH, skipped: searchMissing }, { name: SEARCH_THREE, skipped: searchMissing });
  else
    out.push(
      figure({
        name: SEARCH,
        floorName: FLOOR,
        nsed: s.search,
        floor: s.floor,
        unit: 'ms',
        target: atMost(3),
        extra: { sessions: many, word: SEARCH_WORD },
        note: searchIndex,
      }),
      figure({
        name: SEARCH_THREE,
        floorName: FLOOR,
        nsed: s.searchThree,
        floor: s.floor,
        unit: 'ms',
        target: atMost(3),
        extra: { sessions: many, words: SEARCH_WORDS.join(' ') },
        note: searchIndex,
      }),
    );
  return out;
}
