import type { Session } from '../../session/index.js';
import type { ExportFormat } from './format-names.js';
import { htmlReport } from './html.js';
import { inertJson } from './inert-json.js';
import { jsonlExport } from './jsonl.js';
import { junitXml } from './junit.js';
import { sessionDocument } from './json.js';
import { markdownExport } from './markdown.js';
import { messagesExport } from './messages.js';
import { ndjsonExport } from './ndjson.js';
import { reportOf } from './report-turn.js';
import { summaryMarkdown } from './summary.js';
import { threadExport } from './thread.js';

export { EXPORT_FORMATS, type ExportFormat } from './format-names.js';

/** The whole export as text, ending in a newline; no secret is ever in it (the store holds none). */
export function renderExport(format: ExportFormat, s: Session): string {
  switch (format) {
    case 'json':
      return inertJson(sessionDocument(s));
    case 'markdown':
      return markdownExport(s);
    case 'messages':
      return inertJson(messagesExport(s));
    case 'ndjson':
      return ndjsonExport(s);
    case 'thread':
      return inertJson(threadExport(s));
    case 'summary': {
      const r = reportOf(s);
      return summaryMarkdown(r.turn, r.verdict, r.gate);
    }
    case 'junit': {
      const r = reportOf(s);
      return junitXml(r.turn, r.verdict, r.gate);
    }
    case 'html':
      return htmlReport(s);
    case 'jsonl':
      return jsonlExport(s);
  }
}
