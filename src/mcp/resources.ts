import type { Context } from '../run/context.js';
import { notFound } from '../errors.js';
import { renderExport } from '../output/export/formats.js';
import type { SessionStore } from '../session/index.js';
import { readTarget } from '../commands/shared/session-target.js';

const PREFIX = 'nsed://sessions/';
const ID = /^[A-Za-z0-9_-]{1,100}$/;

export const sessionUri = (id: string): string => `${PREFIX}${id}`;

/** The whole of a session's last answer: where a result that cut it links the rest (result-fit.ts). */
export const answerUri = (id: string): string => `${PREFIX}${id}/answer`;

/** The template a host fills in for any session id. */
export const SESSION_TEMPLATE = {
  uriTemplate: `${PREFIX}{id}`,
  name: 'session',
  title: 'An nsed session',
  description:
    'the transcript as markdown and the session document as JSON (add /report.html for the HTML report, /answer for the last answer whole)',
  mimeType: 'text/markdown',
};

/** Every stored session, newest activity first, as `sessions ls` lists them. */
export async function sessionResources(
  store: SessionStore,
): Promise<Array<{ uri: string; name: string; title: string; mimeType: string }>> {
  const { sessions } = await store.list();
  return sessions.map((s) => ({
    uri: sessionUri(s.id),
    name: s.id,
    title: s.title,
    mimeType: 'text/markdown',
  }));
}

/**
 * A session as the exports render it (`sessions export`): markdown and JSON for
 * `nsed://sessions/ID`, the self-contained HTML report for `.../report.html`; its last answer
 * whole for `.../answer`, the rest of an answer a tool result cut. Read through the
 * run's secrets, so a token an older file kept never leaves (docs/reliability.md #89).
 */
export async function readSessionResource(
  ctx: Context,
  uri: string,
): Promise<Array<{ uri: string; mimeType: string; text: string }>> {
  const rest = uri.startsWith(PREFIX) ? uri.slice(PREFIX.length) : '';
  const part = /\/(report\.html|answer)$/.exec(rest)?.[1];
  const id = part === undefined ? rest : rest.slice(0, -part.length - 1);
  if (!ID.test(id)) throw notFound(`no such resource: ${uri.slice(0, 200)}`, `resources look like ${PREFIX}SESSION_ID`);
  const session = await readTarget(ctx, { kind: 'id', id }, { shown: true, rounds: part !== 'answer' });
  if (part === 'report.html') return [{ uri, mimeType: 'text/html', text: renderExport('html', session) }];
  if (part === 'answer') {
    const turn = session.turns.findLast((t) => t.role === 'assistant');
    if (turn === undefined) throw notFound(`session ${id} has no answer yet`, 'wait for the deliberation to end');
    return [{ uri, mimeType: 'text/markdown', text: turn.content }];
  }
  return [
    { uri, mimeType: 'text/markdown', text: renderExport('markdown', session) },
    { uri, mimeType: 'application/json', text: renderExport('json', session) },
  ];
}
