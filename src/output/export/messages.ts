import { lineageWithTools, type ToolAwareMessage, type Session } from '../../session/index.js';

export type ExportedMessage = ToolAwareMessage | { role: 'system'; content: string };

/**
 * `export --format messages`: an OpenAI `messages` array, ready for any OpenAI-compatible
 * client. It is exactly what nsed itself would replay for the next turn (the lineage rule of
 * session/lineage.ts): system first if the session has one, user turns and injections as
 * `user`, and only complete assistant answers, since a partial answer is not what the
 * council said; an answer that used tools comes after its calls and their results.
 */
export function messagesExport(s: Session): ExportedMessage[] {
  const out: ExportedMessage[] = [];
  if (typeof s.system === 'string' && s.system !== '') out.push({ role: 'system', content: s.system });
  for (const m of lineageWithTools(s)) out.push(m);
  return out;
}
