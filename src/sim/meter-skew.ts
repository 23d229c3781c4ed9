/**
 * How a job's reported usage figures are skewed, as a broken or hostile meter reports them:
 * `negative` tokens and dollars below zero, token counts as a `string` ("1234") or as `"NaN"`,
 * token counts of `zero` however much ran, and `free`: the tokens as they are at $0.
 */
export type MeterSkew = 'negative' | 'string' | 'nan' | 'zero' | 'free';
export const METER_SKEWS: readonly MeterSkew[] = ['negative', 'string', 'nan', 'zero', 'free'];

/** A usage object (`/budget`'s `budget`, a `token_usage`) with its `*_tokens` and `*_usd` figures skewed. */
export function skewFigures(figures: Record<string, unknown>, skew: MeterSkew | undefined): Record<string, unknown> {
  if (skew === undefined) return figures;
  const out: Record<string, unknown> = { ...figures };
  for (const [key, v] of Object.entries(figures)) {
    if (typeof v !== 'number') continue;
    const tokens = key.endsWith('_tokens');
    if (!tokens && !key.endsWith('_usd')) continue;
    if (skew === 'negative') out[key] = -(v || 1);
    else if (skew === 'free') out[key] = tokens ? v : 0;
    else if (tokens) out[key] = skew === 'string' ? String(v) : skew === 'nan' ? 'NaN' : 0;
  }
  return out;
}
