import { liveRowRoom } from '../terminal/fit-rows.js';

/** What the live bar of `nsed batch` shows (docs/reliability.md "Batches"): counts and times, no item text. */
export interface BatchBarState {
  /** Items the batch will run (after --shard). */
  total: number;
  /** Items that ended with a result line, whatever their status. */
  done: number;
  /** Deliberations under way now. */
  running: number;
  /** Of `done`, the items that did not end `ok`. */
  notOk: number;
  elapsedMs: number;
  /** The back-off every item waits out after a 429/503 with Retry-After; 0 or absent when none. */
  backoffMs?: number;
}

/** A bar narrower than this tells nothing; the counts take its place. */
const MIN_BAR = 10;
const MAX_BAR = 30;

/** `1.5s`, `42s`, `3m05s`, `2h07m`: short enough for a status line. */
export function shortDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 60) return `${Math.round(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Items per minute or per second, whichever reads as a number above 1. */
function rate(done: number, elapsedMs: number): string | undefined {
  if (done === 0 || elapsedMs <= 0) return undefined;
  const perS = done / (elapsedMs / 1000);
  return perS >= 1 ? `${perS.toFixed(1)}/s` : `${(perS * 60).toFixed(1)}/min`;
}

/** The time left at the rate so far; unknown until an item has ended. */
function eta(s: BatchBarState): string | undefined {
  if (s.done === 0 || s.elapsedMs <= 0) return undefined;
  if (s.done >= s.total) return shortDuration(0);
  return shortDuration(((s.total - s.done) * s.elapsedMs) / s.done);
}

/**
 * The bar as one line that stops short of the edge with room for a Ctrl-C's echo (terminal/fit-rows.ts:
 * a wrapped status line, or a wrapped echo, leaves the line behind on the screen). What
 * does not fit is dropped least useful first: the elapsed time, the rate, the bar itself, the
 * ETA; the counts and a back-off under way always stay.
 */
export function batchBar(s: BatchBarState, width: number): string {
  const room = liveRowRoom(width);
  if (room <= 0) return '';
  const counts = `${s.done}/${s.total}`;
  const backoff = (s.backoffMs ?? 0) > 0 ? `back-off ${shortDuration(s.backoffMs ?? 0)}` : undefined;
  const parts: { text: string; keep: number }[] = [
    { text: `${s.running} running`, keep: 5 },
    ...(s.notOk > 0 ? [{ text: `${s.notOk} not ok`, keep: 5 }] : []),
    ...(backoff === undefined ? [] : [{ text: backoff, keep: 5 }]),
    { text: `ETA ${eta(s) ?? '—'}`, keep: 3 },
    ...(rate(s.done, s.elapsedMs) === undefined ? [] : [{ text: rate(s.done, s.elapsedMs) ?? '', keep: 2 }]),
    { text: shortDuration(s.elapsedMs), keep: 1 },
  ];
  const join = (bar: string, ps: readonly { text: string }[]): string =>
    [bar === '' ? counts : `${bar} ${counts}`, ...ps.map((p) => p.text)].join(' · ');
  for (let drop = 0; drop <= 3; drop++) {
    const kept = parts.filter((p) => p.keep > drop);
    const line = join('', kept);
    // The bar gets what the words leave (and a space), when that is enough to read.
    const spare = room - line.length - 1;
    if (drop <= 2 && spare >= MIN_BAR) return join(drawBar(s, Math.min(MAX_BAR, spare)), kept);
    if (drop >= 2 && line.length <= room) return line;
  }
  const last = join(
    '',
    parts.filter((p) => p.keep > 3),
  );
  return last.length <= room ? last : `${last.slice(0, Math.max(0, room - 1))}…`;
}

function drawBar(s: BatchBarState, width: number): string {
  const inner = width - 2;
  const share = s.total === 0 ? 1 : Math.min(1, s.done / s.total);
  const full = Math.round(share * inner);
  return `[${'#'.repeat(full)}${'-'.repeat(inner - full)}]`;
}
