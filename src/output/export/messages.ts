import { lineageMessages } from '../../session/lineage.js';
import type { Session } from '../../session/model.js';

export interface ExportedMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * `export --format messages`: an OpenAI `messages` array, ready for any OpenAI-compatible
 * client. It is exactly what nsed itself would replay for the next turn (the lineage rule of
 * session/lineage.ts): system first if the session has one, user turns and injections as
 * `user`, and only complete assistant answers, since a partial answer is not what the
 * council said.
 */
export function messagesExport(s: Session): ExportedMessage[] {
  const out: ExportedMessage[] = [];
  if (typeof s.system === 'string' && s.system !== '') out.push({ role: 'system', content: s.system });
  for (const m of lineageMessages(s)) out.push({ role: m.role, content: m.content });
  return out;
}
