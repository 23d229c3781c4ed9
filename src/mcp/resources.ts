import type { Context } from '../context.js';
import { notFound } from '../errors.js';
import { renderExport } from '../output/export/formats.js';
import type { SessionStore } from '../session/index.js';
import { readTarget } from '../commands/shared/session-target.js';

const PREFIX = 'nsed://sessions/';
const ID = /^[A-Za-z0-9_-]{1,100}$/;

export const sessionUri = (id: string): string => `${PREFIX}${id}`;

/** The template a host fills in for any session id. */
export const SESSION_TEMPLATE = {
  uriTemplate: `${PREFIX}{id}`,
  name: 'session',
  title: 'An nsed session',
  description: 'the transcript as markdown and the session document as JSON (add /report.html for the HTML report)',
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
 * `nsed://sessions/ID`, the self-contained HTML report for `.../report.html`. Read through the
 * run's secrets, so a token an older file kept never leaves (docs/reliability.md #89).
 */
export async function readSessionResource(
  ctx: Context,
  uri: string,
): Promise<Array<{ uri: string; mimeType: string; text: string }>> {
  const rest = uri.startsWith(PREFIX) ? uri.slice(PREFIX.length) : '';
  const html = rest.endsWith('/report.html');
  const id = html ? rest.slice(0, -'/report.html'.length) : rest;
  if (!ID.test(id)) throw notFound(`no such resource: ${uri.slice(0, 200)}`, `resources look like ${PREFIX}SESSION_ID`);
  const session = await readTarget(ctx, { kind: 'id', id }, { shown: true, rounds: true });
  if (html) return [{ uri, mimeType: 'text/html', text: renderExport('html', session) }];
  return [
    { uri, mimeType: 'text/markdown', text: renderExport('markdown', session) },
    { uri, mimeType: 'application/json', text: renderExport('json', session) },
  ];
}
