import { EXIT_CODES } from './topics.js';

/** The manual's table of exit codes (docs/reference.md), between `<!-- exit-codes -->` and `<!-- /exit-codes -->`. */
const REGION = /(<!-- exit-codes -->\n)[\s\S]*?(<!-- \/exit-codes -->)/;

/**
 * A page of the manual with its exit-code table written from EXIT_CODES, the one source the man
 * page and `--help` read too, so a code added in src/errors.ts reaches the manual by
 * `npm run docs`. Commands and flags in a meaning are set as code, as the prose around the table
 * sets them.
 */
export function withExitCodeTable(markdown: string): string {
  return markdown.replace(REGION, (_all, open: string, close: string) => `${open}${table()}\n${close}`);
}

function table(): string {
  const rows = EXIT_CODES.map(
    (e) =>
      `| ${e.code} | ${e.meaning.replace(/(?<![\w`-])(nsed [a-z][a-z-]*(?: --[a-z][a-z-]*)?|--?[a-z][a-z-]*)/g, '`$1`').replaceAll('|', '\\|')} |`,
  );
  return ['| code | meaning |', '|---|---|', ...rows].join('\n');
}
