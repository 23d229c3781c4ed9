// Figure 3: reading the store. `sessions ls` over 10,000 sessions (the index journal already
// built, as after any earlier ls) and `sessions show` of a 1,000-turn session, against `node -e 0`:
// the session as nsed writes it today (every answer with its recorded verdict), and the same
// session as an older nsed wrote it (no verdicts: show derives each from the recorded rounds).
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { atMost, figure } from '../lib/figure.mjs';
import { baseEnv, CLI, runNode, timeNode, whyNot } from '../lib/proc.mjs';
import { interleave } from '../lib/stats.mjs';
import { generateLongSession, generateStore } from '../store/generate.mjs';

const ROUNDS = 10;
const SESSIONS = 10_000;
const TURNS = 1_000;
const FLOOR = 'node -e 0';
const LS = `sessions ls, ${SESSIONS.toLocaleString('en')} sessions`;
const SHOW = `sessions show, ${TURNS.toLocaleString('en')}-turn session`;
const SHOW_OLD = `${SHOW} recorded before verdicts were kept`;

export async function listing({ tmp, store }) {
  const bigHome = await mkdtemp(path.join(tmp, 'listing-home-'));
  const longHome = await mkdtemp(path.join(tmp, 'long-home-'));
  const oldHome = await mkdtemp(path.join(tmp, 'old-home-'));
  const lsEnv = baseEnv({ NSED_HOME: bigHome });
  const showEnv = baseEnv({ NSED_HOME: longHome });
  const oldEnv = baseEnv({ NSED_HOME: oldHome });
  // Asked before generating anything: a command that has not landed yet is skipped, not waited for.
  let lsMissing = await whyNot(['sessions', 'ls'], lsEnv);
  const showProbe = await whyNot(['sessions', 'show', 'no-such-session'], showEnv);
  let showMissing = showProbe?.includes('exited 2') ? showProbe : undefined;
  if (lsMissing && showMissing)
    return [
      { name: LS, skipped: lsMissing },
      { name: SHOW, skipped: showMissing },
      { name: SHOW_OLD, skipped: showMissing },
    ];
  const bundle = await store();
  const listed = await generateStore(bundle, bigHome, SESSIONS);
  const longId = await generateLongSession(bundle, longHome, TURNS);
  const oldId = await generateLongSession(bundle, oldHome, TURNS, { verdicts: false });
  lsMissing ??= await whyNot(['sessions', 'ls'], lsEnv);
  showMissing ??= await whyNot(['sessions', 'show', longId], showEnv);

  const variants = { floor: timeNode(['-e', '0'], { env: lsEnv }) };
  if (!lsMissing) variants.ls = timeNode([CLI, 'sessions', 'ls'], { env: lsEnv });
  if (!showMissing) {
    variants.show = timeNode([CLI, 'sessions', 'show', longId], { env: showEnv });
    variants.showOld = timeNode([CLI, 'sessions', 'show', oldId], { env: oldEnv });
  }
  const s = await interleave(variants, ROUNDS, { warmup: 1 });
  const out = [];
  if (lsMissing) out.push({ name: LS, skipped: lsMissing });
  else {
    const lines = (await runNode([CLI, 'sessions', 'ls'], { env: lsEnv, keep: true })).stdout
      .split('\n')
      .filter(Boolean).length;
    out.push(
      figure({
        name: LS,
        floorName: FLOOR,
        nsed: s.ls,
        floor: s.floor,
        unit: 'ms',
        target: atMost(2),
        extra: { sessions: listed, stdout_lines: lines },
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
        target: atMost(1.5),
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
  return out;
}
