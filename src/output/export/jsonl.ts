import type { Session } from '../../session/index.js';
import { toJsonLine } from '../ndjson.js';
import { SESSION_DOCUMENT_VERSION, turnDocument, type TurnDocument } from './json.js';

/** A line of `export --format jsonl`: one turn as the json export documents it, and where it belongs. */
export type TurnLine = { v: number; session: string; position: number } & TurnDocument;

/**
 * `export --format jsonl`: one line per turn, for readers that take a store in bulk (a data
 * pipeline, `jq -c`, a spreadsheet import) and want a turn per record rather than one document
 * to hold whole. Each line is the json export's turn (the same keys, rounds and verdict
 * included, docs/history.md), with the session's id and the turn's 1-based position; `v` is the
 * json export's document version.
 */
export function jsonlExport(s: Session): string {
  return s.turns
    .map((t, i) => toJsonLine({ v: SESSION_DOCUMENT_VERSION, session: s.id, position: i + 1, ...turnDocument(t) }))
    .join('');
}
