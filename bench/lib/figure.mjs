// One figure = a ratio of two medians measured side by side in the same run.
import { median, round } from './stats.mjs';

const UNITS = {
  ms: (v) => `${v.toFixed(v < 10 ? 2 : 1)} ms`,
  MiB: (v) => `${v.toFixed(1)} MiB`,
  'turns/s': (v) => `${v.toFixed(0)} turns/s`,
};

/**
 * @param {object} f
 * @param {string} f.name
 * @param {string} f.floorName what the floor is, for the printed line
 * @param {number[]} f.nsed samples (or, with `medians`, already one value)
 * @param {number[]} f.floor
 * @param {string} f.unit
 * @param {{ text: string, ok: (ratio: number, nsed: number, floor: number) => boolean }} [f.target]
 * @param {string} [f.note] what else the line should say (lost turns, events/s)
 */
export function figure({ name, floorName, nsed, floor, unit, runs, target, extra, note }) {
  const n = median(nsed);
  const fl = median(floor);
  const ratio = n / fl;
  const out = {
    name,
    ratio: round(ratio, 3),
    nsed_median: round(n, 3),
    floor_median: round(fl, 3),
    unit,
    floor: floorName,
    runs: runs ?? nsed.length,
  };
  if (target) out.target = { text: target.text, ok: target.ok(ratio, n, fl) };
  if (extra) out.extra = extra;
  if (note) out.note = note;
  // Raw samples too, where they are per run (latency pools thousands of events instead).
  if (nsed.length > 1 && nsed.length <= 50)
    out.samples = { nsed: nsed.map((v) => round(v, 2)), floor: floor.map((v) => round(v, 2)) };
  out.line = formatLine(out);
  return out;
}

export function formatValue(v, unit) {
  return (UNITS[unit] ?? ((x) => `${x} ${unit}`))(v);
}

/** `name: ratio (nsed median / floor median, N runs)`, then the floor's name and any target. */
export function formatLine(f) {
  if (f.skipped) return `${f.name}: skipped (${f.skipped})`;
  const show = (v) => formatValue(v, f.unit);
  let line = `${f.name}: ${f.ratio.toFixed(2)} (${show(f.nsed_median)} / ${show(f.floor_median)}, ${f.runs} runs; floor: ${f.floor})`;
  if (f.target) line += ` · target ${f.target.text}: ${f.target.ok ? 'ok' : 'MISSED'}`;
  if (f.note) line += ` · ${f.note}`;
  return line;
}

export const atMost = (limit) => ({ text: `≤ ${limit}`, ok: (ratio) => ratio <= limit });
export const below = (limit) => ({ text: `< ${limit}`, ok: (ratio) => ratio < limit });
