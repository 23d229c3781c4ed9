// Order statistics for the figures. Medians, not means: one descheduled run on a shared
// two-core machine must not move a figure.

/** The q-quantile (0..1) of `values` by nearest rank; NaN when there are none. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Runs every variant once per round, rotating which goes first, so slow phases of the
 * machine land on all of them alike. Returns each variant's samples by name.
 * @param {Record<string, () => Promise<number>>} variants
 */
export async function interleave(variants, rounds, { warmup = 1 } = {}) {
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = -warmup; r < rounds; r++) {
    const shift = ((r % names.length) + names.length) % names.length;
    const order = [...names.slice(shift), ...names.slice(0, shift)];
    for (const name of order) {
      const value = await variants[name]();
      if (r >= 0) samples[name].push(value);
    }
  }
  return samples;
}

export const round = (x, digits = 2) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
