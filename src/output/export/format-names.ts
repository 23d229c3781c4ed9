/** The export formats, in their own module so the command can declare them without loading any. */
export const EXPORT_FORMATS = ['json', 'markdown', 'messages', 'ndjson', 'thread', 'summary', 'junit', 'html'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
