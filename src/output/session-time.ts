/**
 * `3 min ago`, `2 h ago`, `5 days ago`; older than 30 days (or in the future, when clocks
 * disagree) it is the date itself. `now` comes from the context's clock, so tests pin it.
 */
export function relativeTime(iso: string, now: Date): string {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return iso;
  const s = Math.floor((now.getTime() - then) / 1000);
  if (s < -60) return iso.slice(0, 10);
  if (s < 45) return 'just now';
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(s / 3600);
  if (h < 24) return `${h} h ago`;
  const days = Math.round(s / 86_400);
  if (days === 1) return 'yesterday';
  if (days <= 30) return `${days} days ago`;
  return iso.slice(0, 10);
}

/** `2026-11-30 10:00:05Z`: an ISO time without milliseconds, easier to read in a heading. */
export function shortTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return m === null ? iso : `${m[1]} ${m[2]}Z`;
}
