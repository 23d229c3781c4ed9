// Figure 1: start-up of the commands that sit in shell loops, against `node -e 0`.
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { atMost, figure } from '../lib/figure.mjs';
import { baseEnv, CLI, timeNode, whyNot } from '../lib/proc.mjs';
import { interleave } from '../lib/stats.mjs';

const ROUNDS = 15;
const FLOOR = 'node -e 0';
/** The names this figure prints, each again with ` (NODE_EXTRA_CA_CERTS unset)` where that is set. */
export const STARTUP_NAMES = ['startup --version', 'startup --help', 'startup sessions ls, empty store'];
const [VERSION, HELP, LS] = STARTUP_NAMES;

async function measure(env, suffix, { withHelp, lsMissing }) {
  const variants = {
    floor: timeNode(['-e', '0'], { env }),
    version: timeNode([CLI, '--version'], { env }),
  };
  if (withHelp) variants.help = timeNode([CLI, '--help'], { env });
  if (!lsMissing) variants.ls = timeNode([CLI, 'sessions', 'ls'], { env });
  const s = await interleave(variants, ROUNDS, { warmup: 2 });
  const out = [
    figure({
      name: `${VERSION}${suffix}`,
      floorName: FLOOR,
      nsed: s.version,
      floor: s.floor,
      unit: 'ms',
      target: atMost(1.5),
    }),
  ];
  if (withHelp)
    out.push(
      figure({
        name: `${HELP}${suffix}`,
        floorName: FLOOR,
        nsed: s.help,
        floor: s.floor,
        unit: 'ms',
        target: atMost(1.5),
      }),
    );
  const lsName = `${LS}${suffix}`;
  out.push(
    lsMissing
      ? { name: lsName, skipped: lsMissing }
      : figure({ name: lsName, floorName: FLOOR, nsed: s.ls, floor: s.floor, unit: 'ms', target: atMost(1.5) }),
  );
  return out;
}

export async function startup({ tmp }) {
  const home = await mkdtemp(path.join(tmp, 'empty-home-'));
  const env = baseEnv({ NSED_HOME: home });
  const lsMissing = await whyNot(['sessions', 'ls'], env);
  const figures = await measure(env, '', { withHelp: true, lsMissing });
  if (env.NODE_EXTRA_CA_CERTS !== undefined) {
    // The extra certificates cost every Node start ~50 ms here and shrink every start-up ratio;
    // the same figures without them show what nsed itself adds.
    delete env.NODE_EXTRA_CA_CERTS;
    figures.push(...(await measure(env, ' (NODE_EXTRA_CA_CERTS unset)', { withHelp: false, lsMissing })));
  }
  return figures;
}
