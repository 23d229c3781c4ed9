import MarkdownIt from 'markdown-it';

/**
 * Text for HTML: every character that could open a tag, an entity or leave an attribute value
 * is replaced. Everything a session holds is untrusted (the answer, proposals, claims, reasons,
 * tool output, even agent names), so nothing reaches the page without passing through here or
 * through `markdownHtml`.
 */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

let renderer: ReturnType<typeof MarkdownIt> | undefined;

/**
 * Markdown rendered with raw HTML off (a `<script>` or an `onerror=` in the text stays text) and
 * markdown-it's own link check (no `javascript:`, `vbscript:`, `file:` or non-image `data:`
 * URL becomes a link). Images are off too: one would be a request when the page is opened, and
 * the report fetches nothing (docs/ci.md "Reports").
 */
export function markdownHtml(text: string): string {
  renderer ??= new MarkdownIt('default', { html: false, linkify: false, typographer: false }).disable('image');
  return renderer.render(text);
}
