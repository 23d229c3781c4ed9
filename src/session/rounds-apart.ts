import type { Ballots } from '../council/ballots.js';
import type { NsedRound } from '../protocol/wire.js';
import { readVerdict } from '../council/verdict.js';
import { isValidId } from './ids.js';
import type { RoundsApart, Turn } from './model.js';
import { randomHex } from './random-hex.js';

/**
 * A turn's rounds (their candidates, previews and claims) and its verdict's ballots, kept in a
 * file of their own beside the session's transcript (docs/history.md). They are most of a
 * session's bytes and are read only by what shows them, so `sessions show`, `continue` and every
 * write read and rewrite the transcript alone. The version of this file's shape, apart from the
 * transcript's (SESSION_VERSION).
 */
export const ROUNDS_FILE_VERSION = 1;

/** What `<id>.rounds/<file>` holds. */
export interface RoundsRecord {
  v: typeof ROUNDS_FILE_VERSION;
  /** The session and turn it belongs to, so a file moved by hand is not joined to another turn. */
  session: string;
  turn: string;
  rounds: NsedRound[];
  /** The verdict's ballots, or null when the turn's verdict has none. */
  ballots: Ballots | null;
}

/**
 * A rounds file's name: the turn's id and 16 random hex digits. Every write of a turn's rounds
 * gets a new name, so the transcript's rename alone decides which file it reads: a file written
 * by a write that died before that rename is never joined to the turn as it was. Random rather
 * than a hash of the text: a one-shot ask writes rounds, and node:crypto costs it more to load
 * than the whole store's writes (docs/performance.md); the ids' /dev/urandom pool serves these.
 */
const FILE_NAME = /^[A-Za-z0-9_-]{1,128}\.[0-9a-f]{16}\.json$/;

export function roundsFileName(turnId: string): string {
  return `${turnId}.${randomHex(8)}.json`;
}

/** True for a name a marker may give: one plain file in the rounds directory, never a path elsewhere. */
export const isRoundsFileName = (name: unknown): name is string => typeof name === 'string' && FILE_NAME.test(name);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What of a turn goes apart, or undefined when it stays whole: only an answer whose verdict is
 * recorded, as an answer of an older nsed derives its verdict from its rounds each time it is
 * shown, and only when it has rounds or ballots to move.
 */
export function roundsToPutApart(
  sessionId: string,
  turn: Turn,
): { record: RoundsRecord; ballots: boolean } | undefined {
  if (turn.role !== 'assistant' || turn.kind === 'injection' || !isValidId(String(turn.id))) return undefined;
  if (readVerdict(turn.verdict) === null) return undefined;
  const rounds = Array.isArray(turn.rounds) ? turn.rounds : [];
  const ballots =
    isObject(turn.verdict) && isObject(turn.verdict['ballots']) ? (turn.verdict.ballots as Ballots) : null;
  if (rounds.length === 0 && ballots === null) return undefined;
  return {
    record: { v: ROUNDS_FILE_VERSION, session: sessionId, turn: turn.id, rounds, ballots },
    ballots: ballots !== null,
  };
}

/** The turn as the transcript keeps it once its rounds are in `file`: the marker in their place. */
export function leaveMarker(turn: Turn, marker: RoundsApart): void {
  delete turn.rounds;
  if (marker.ballots && turn.verdict !== undefined) turn.verdict = { ...turn.verdict, ballots: null };
  turn.rounds_apart = marker;
}

/** The turn's marker when it names a file nsed may read; a hand-edited one naming anything else is no marker. */
export function markerOf(turn: Turn): RoundsApart | undefined {
  const m: unknown = turn.rounds_apart;
  return isObject(m) && isRoundsFileName(m['file']) ? (m as unknown as RoundsApart) : undefined;
}

/**
 * Accepts a rounds file's parsed JSON for this session's turn; anything else (another version, a
 * file of another turn) throws, and the turn is shown without rounds.
 */
export function validateRounds(value: unknown, sessionId: string, turnId: string): RoundsRecord {
  if (!isObject(value)) throw new Error('it does not hold a JSON object');
  if (value['v'] !== ROUNDS_FILE_VERSION) throw new Error(`it is of version ${String(value['v'])}, not 1`);
  if (value['turn'] !== turnId || value['session'] !== sessionId) throw new Error('it belongs to another turn');
  if (!Array.isArray(value['rounds'])) throw new Error("field 'rounds' is not a list");
  if (value['ballots'] !== null && !isObject(value['ballots'])) throw new Error("field 'ballots' is not an object");
  return value as unknown as RoundsRecord;
}

/** The turn with its rounds and ballots joined back, as it was before they were put apart. */
export function joinRounds(turn: Turn, record: RoundsRecord): void {
  // Rounds written in the turn itself (by an older nsed, after the marker) are the turn's own.
  if (!Array.isArray(turn.rounds) && record.rounds.length > 0) turn.rounds = record.rounds;
  if (record.ballots !== null && isObject(turn.verdict) && turn.verdict.ballots == null)
    turn.verdict = { ...turn.verdict, ballots: record.ballots };
}
