import { esc } from './escape.js';

/** One line of a chart: a name, its points (round, value 0-1), and whether it is the chosen agent's. */
export interface Series {
  name: string;
  points: ReadonlyArray<readonly [number, number]>;
  chosen?: boolean;
}

const W = 720;
const H = 220;
const PAD = { left: 52, right: 16, top: 12, bottom: 30 };
/** Above this many rounds a point marker per round would be clutter (and 200 x 8 circles of weight). */
const MARKERS_UP_TO = 40;
/** The chart palette has this many colours (CSS `--c0`..`--c7`); more series repeat them dashed. */
export const PALETTE = 8;

const x = (round: number, first: number, last: number): number =>
  PAD.left +
  (last === first ? (W - PAD.left - PAD.right) / 2 : ((round - first) / (last - first)) * (W - PAD.left - PAD.right));
/** The value axis: from `lo` to `hi`, labelled as a percentage or as a score. */
export interface Axis {
  lo: number;
  hi: number;
  unit: 'percent' | 'score';
}

/**
 * The axis a set of values needs: 0-100 % for convergence; for scores the band they occupy
 * (rounded out to tenths), so lines of agents a few hundredths apart do not lie on each other.
 */
export function axisFor(values: readonly number[], unit: Axis['unit']): Axis {
  if (unit === 'percent' || values.length === 0) return { lo: 0, hi: 1, unit };
  const lo = Math.max(0, Math.floor(Math.min(...values) * 10 - 0.5) / 10);
  const hi = Math.min(1, Math.ceil(Math.max(...values) * 10 + 0.5) / 10);
  return hi - lo < 0.2 ? { lo: Math.max(0, hi - 0.2), hi, unit } : { lo, hi, unit };
}
const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();

/**
 * A line chart of values 0-1 over rounds, as inline SVG (nothing to load): one polyline per
 * series carrying its name in `data-series` and a `<title>` (a tooltip and its accessible name),
 * the chosen series drawn thicker with a marker at its end. `label` names the chart for screen
 * readers; the legend is HTML beside it, so it reflows and prints.
 */
export function lineChart(id: string, label: string, series: readonly Series[], axis: Axis): string {
  const rounds = series.flatMap((s) => s.points.map((p) => p[0]));
  if (rounds.length === 0) return '';
  const y = (v: number): number => {
    const t = (Math.min(axis.hi, Math.max(axis.lo, v)) - axis.lo) / (axis.hi - axis.lo || 1);
    return PAD.top + (1 - t) * (H - PAD.top - PAD.bottom);
  };
  const first = Math.min(...rounds);
  const last = Math.max(...rounds);
  const parts: string[] = [
    `<svg class="chart" id="${esc(id)}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${esc(id)}-t">`,
    `<title id="${esc(id)}-t">${esc(label)}</title>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const v = axis.lo + ((axis.hi - axis.lo) * k) / 4;
    const tick = axis.unit === 'percent' ? `${Math.round(v * 100)}%` : v.toFixed(2);
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${fmt(y(v))}" y2="${fmt(y(v))}"/>`,
      `<text class="tick" x="${PAD.left - 6}" y="${fmt(y(v) + 4)}" text-anchor="end">${tick}</text>`,
    );
  }
  for (const r of roundTicks(first, last))
    parts.push(`<text class="tick" x="${fmt(x(r, first, last))}" y="${H - 10}" text-anchor="middle">${r}</text>`);
  parts.push(`<text class="tick" x="${PAD.left - 14}" y="${H - 10}" text-anchor="end">round</text>`);
  series.forEach((s, i) => {
    const colour = `s${i % PALETTE}${i >= PALETTE ? ' dashed' : ''}${s.chosen === true ? ' chosen' : ''}`;
    const pts = s.points.map(([r, v]) => `${fmt(x(r, first, last))},${fmt(y(v))}`).join(' ');
    const name = esc(s.name);
    parts.push(
      `<polyline class="series ${colour}" data-series="${name}" points="${pts}"><title>${name}${s.chosen === true ? ' (chosen)' : ''}</title></polyline>`,
    );
    if (s.points.length <= MARKERS_UP_TO || s.chosen === true) {
      const marked = s.points.length <= MARKERS_UP_TO ? s.points : s.points.slice(-1);
      for (const [r, v] of marked)
        parts.push(
          `<circle class="dot ${colour}" cx="${fmt(x(r, first, last))}" cy="${fmt(y(v))}" r="${s.chosen === true ? 4 : 2.5}"/>`,
        );
    }
  });
  parts.push('</svg>');
  return parts.join('');
}

/** At most about ten round numbers on the axis, at a step of 1, 2, 5, 10, 20, 50… */
function roundTicks(first: number, last: number): number[] {
  const span = Math.max(1, last - first);
  let step = 1;
  for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]) {
    step = m;
    if (span / m <= 10) break;
  }
  const out: number[] = [];
  for (let r = Math.ceil(first / step) * step; r <= last; r += step) out.push(r);
  if (!out.includes(first)) out.unshift(first);
  return out;
}
