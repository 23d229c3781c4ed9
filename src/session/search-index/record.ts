import type { Session } from '../model.js';
import { summarizeSession, type SessionSummary } from '../store.js';
import type { GateStatus } from '../../council/verdict.js';

/**
 * What the search index holds of one session: its listing summary (what `sessions ls` prints),
 * the figures `sessions stats` sums, and the text `sessions search` matches, nothing more. Every
 * field is derived from the session file, so the index can be dropped and rebuilt at any time.
 */
export interface IndexRecord extends SessionSummary {
  /** Hidden from `ls` and search (`sessions archive`); the session file says so (ARCHIVED_FIELD). */
  archived: boolean;
  /** The gate outcome of the last answer judged by gates, or null when none was. */
  gate: GateStatus | null;
  /** The last answer's final convergence (0-1), or null when the server reported none. */
  convergence: number | null;
  /** How many rounds of the last answer changed the leader, or null without a trajectory. */
  lead_changes: number | null;
  /** The first round whose convergence reached the final value, or null. */
  settled_round: number | null;
  /** The searchable text, normalised (searchText): the person's questions, the answers, the claims with their verdicts. */
  text: SearchText;
}

export interface SearchText {
  question: string;
  answer: string;
  claims: string;
}

/** The fields of the text, each with its weight in a match's score: the question counts over the answer. */
export const FIELD_WEIGHTS: Readonly<Record<keyof SearchText, number>> = { question: 3, claims: 2, answer: 1 };
export const FIELDS = ['question', 'claims', 'answer'] as const;

/** The gate outcomes as `--gate` names them, and what each is in a recorded gate result. */
export const GATE_WORDS = ['passed', 'failed', 'inconclusive'] as const;
export type GateWord = (typeof GATE_WORDS)[number];
export const GATE_OF_WORD: Readonly<Record<GateWord, GateStatus>> = {
  passed: 'pass',
  failed: 'fail',
  inconclusive: 'inconclusive',
};

/** The session file's key that archives it: the time it was archived (ISO-8601); absent when it is not. */
export const ARCHIVED_FIELD = 'archived';

/**
 * Text as the index keeps and matches it: lower case, accents dropped, every run of characters
 * that are neither letters nor digits one space, with a space at each end, so a word matches as
 * ` word ` and never inside another. Both index backends match this same text (search-sqlite.ts
 * hands it to FTS5 already split), which is what makes them give the same answers.
 */
export function searchText(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return words === '' ? ' ' : ` ${words} `;
}

/** The distinct words of a query, in the order given. */
export function queryTerms(query: string): string[] {
  return [
    ...new Set(
      searchText(query)
        .split(' ')
        .filter((w) => w !== ''),
    ),
  ];
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The index record of a session as read from its file. */
export function indexRecord(session: Session): IndexRecord {
  const answers = session.turns.filter((t) => t.role === 'assistant' && t.kind !== 'injection');
  const questions = session.turns.filter((t) => t.role === 'user' && t.kind !== 'injection');
  const last = answers.at(-1);
  const verdict = isObject(last?.verdict) ? last.verdict : undefined;
  const trajectory = isObject(verdict?.trajectory) ? verdict.trajectory : undefined;
  const gated = answers.findLast((t) => isObject(t.gate));
  const gate = gated?.gate?.status;
  const claims: string[] = [];
  for (const t of answers) {
    const chosen: unknown = isObject(t.verdict) && isObject(t.verdict.claims) ? t.verdict.claims.chosen : undefined;
    if (!isObject(chosen)) continue;
    for (const [verdictWord, list] of Object.entries(chosen)) {
      if (!Array.isArray(list)) continue;
      for (const c of list as unknown[])
        if (isObject(c) && typeof c.claim === 'string') claims.push(`${verdictWord} ${c.claim}`);
    }
  }
  return {
    ...summarizeSession(session),
    archived: typeof session[ARCHIVED_FIELD] === 'string',
    gate: gate === 'pass' || gate === 'fail' || gate === 'inconclusive' ? gate : null,
    convergence: num(verdict?.convergence?.final),
    lead_changes: Array.isArray(trajectory?.lead_changes) ? trajectory.lead_changes.length : null,
    settled_round: num(trajectory?.settled_round),
    text: {
      question: searchText(questions.map((t) => t.content).join('\n')),
      answer: searchText(answers.map((t) => t.content).join('\n')),
      claims: searchText(claims.join('\n')),
    },
  };
}
