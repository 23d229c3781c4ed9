import type { NsedRound } from '../../protocol/wire.js';
import type { RecordedToolCall, Session } from '../../session/index.js';
import { totalWords, usageWords } from '../usage-words.js';
import { gateSummary, verdictSummary } from '../verdict-line.js';
import { sessionDocument, type TurnDocument } from './json.js';

/** Text that must stay on one line (a heading, a list item): whitespace runs become one space. */
const flat = (text: string): string => text.replace(/\s+/g, ' ').trim();
/** Backticks inside inline code would end it early; ids and policies never hold any, titles might. */
const code = (text: string): string => `\`${flat(text).replaceAll('`', "'")}\``;

/**
 * `export --format markdown`: a readable transcript, one `##` heading per turn carrying role,
 * policy, job and time, the content as written (answers are markdown already), and a short
 * summary of each recorded round.
 */
export function markdownExport(s: Session): string {
  const doc = sessionDocument(s);
  const out: string[] = [`# ${flat(doc.title) || doc.id}`, ''];
  out.push(
    `- Session: ${code(doc.id)}`,
    doc.policy === null ? `- Policy: none (the council is chosen with --agents)` : `- Policy: ${code(doc.policy)}`,
    `- Created: ${doc.created}`,
    `- Updated: ${doc.updated}`,
    `- State: ${doc.state}`,
  );
  if (doc.usage.turns > 0) out.push(`- Cost: ${totalWords(doc.usage)}`);
  if (doc.forked_from !== null) {
    const at = doc.forked_from.turn === null ? '' : ` at turn ${code(doc.forked_from.turn)}`;
    out.push(`- Forked from: ${code(doc.forked_from.session)}${at}`);
  }
  if (doc.council !== null) {
    const parts = [
      doc.council.agents === null ? '' : doc.council.agents.join(', '),
      doc.council.rounds === null ? '' : `${doc.council.rounds} rounds`,
    ];
    out.push(`- Council: ${flat(parts.filter((p) => p !== '').join(' · '))}`);
  }
  if (doc.system !== null && doc.system.trim() !== '') out.push('', '> System: ' + flat(doc.system));
  doc.turns.forEach((t, i) => {
    out.push('', ...(i === 0 ? [] : ['---', '']), `## ${i + 1}. ${heading(t)}`, '');
    if (t.rounds.length > 0) {
      for (const r of t.rounds) out.push(`- ${roundSummary(r)}`);
      out.push('');
    }
    if (t.tool_calls.length > 0) {
      for (const c of t.tool_calls) out.push(`- ${toolCallItem(c)}`);
      out.push('');
    }
    if (t.attachments.length > 0) {
      for (const a of t.attachments) out.push(`- File ${code(a.path)} (${a.size} bytes, sha256 ${code(a.sha256)})`);
      out.push('');
    }
    out.push(t.content.trim() === '' ? '_(no content)_' : t.content.replace(/\s+$/, ''));
    if (t.error !== null && t.status !== 'complete') out.push('', `_${t.status}: ${flat(t.error)}_`);
    if (t.verdict !== null && (t.verdict.rounds.completed !== null || t.verdict.chosen !== null))
      out.push('', `- ${flat(verdictSummary(t.verdict))}`);
    if (t.gate !== null) out.push(`- ${flat(gateSummary(t.gate))}`);
    if (t.role === 'assistant' && t.kind === 'message')
      out.push(`- ${t.usage === null ? 'cost not recorded' : usageWords(t.usage)}`);
  });
  return `${out.join('\n')}\n`;
}

function heading(t: TurnDocument): string {
  const parts: string[] = [];
  if (t.kind === 'injection') {
    const where = [
      t.injection?.round == null ? '' : `round ${t.injection.round}`,
      t.injection?.sequence == null ? '' : `#${t.injection.sequence}`,
    ]
      .filter((p) => p !== '')
      .join(', ');
    parts.push(where === '' ? 'Injection' : `Injection (${where})`);
  } else {
    parts.push(t.role === 'user' ? 'User' : 'Assistant');
  }
  if (t.policy !== null) parts.push(code(t.policy));
  if (t.agents !== null) parts.push(`agents ${t.agents.map(code).join(', ')}`);
  if (t.job_id !== null) parts.push(`job ${code(t.job_id)}`);
  if (t.ts !== '') parts.push(t.ts);
  if (t.status !== 'complete') parts.push(`**${t.status}**`);
  // The live replay differed from what was shown: readers must not take the text as the stream's.
  if (t.diverged) parts.push('**replay differed**');
  return parts.join(' · ');
}

function toolCallItem(c: RecordedToolCall): string {
  const call = `Tool ${code(c.name)} called with ${code(c.arguments)}`;
  if (c.status === undefined) return `${call}: waiting for a result (${code(c.id)})`;
  if (c.status === 'expired') return `${call}: expired unanswered`;
  const exit = c.exit_code == null ? '' : `, exit ${c.exit_code}`;
  return `${call} → ${code(c.result ?? '')} (${c.status}${exit})`;
}

function roundSummary(r: NsedRound): string {
  const ranked = [...r.candidates].sort((a, b) => b.score - a.score);
  const scores = ranked.map((c) => `${flat(c.agent_id)} ${c.score.toFixed(2)}`).join(', ');
  return `Round ${r.round}/${r.total_rounds}: ${scores === '' ? 'no candidates' : scores}`;
}
