/** The export formats, in their own module so the command can declare them without loading any. */
export const EXPORT_FORMATS = [
  'json',
  'markdown',
  'messages',
  'ndjson',
  'thread',
  'summary',
  'junit',
  'html',
  'jsonl',
] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Each format in a few words, for the command's description (`nsed sessions export --help`); a
 * format added above must be named here, and in docs/topics.ts for the man page.
 */
export const EXPORT_FORMAT_LABELS: Record<ExportFormat, string> = {
  json: 'json',
  markdown: 'markdown',
  messages: 'messages (OpenAI)',
  ndjson: 'ndjson (the live event schema)',
  thread: 'thread (reference TUI)',
  summary: 'summary (its last answer as a CI summary, GitHub markdown)',
  junit: 'junit (its last answer as JUnit XML)',
  html: 'html (one self-contained page: verdict, charts, every round)',
  jsonl: 'jsonl (one line per turn, for bulk readers)',
};
