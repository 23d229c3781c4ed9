// The tables of the Action's inputs and outputs in docs/ci.md, written from action.yml (the file
// GitHub reads), so an input added there reaches the manual by `npm run docs` and a test holds
// them equal.
import { parse } from 'yaml';

const cell = (text) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .replaceAll('|', '\\|');

/** The inputs and outputs of action.yml's text as two Markdown tables. */
export function actionTables(actionYml) {
  const action = parse(actionYml);
  const inputs = Object.entries(action.inputs ?? {}).map(
    ([name, i]) =>
      `| \`${name}\` | ${i.default === undefined || i.default === '' ? '' : `\`${cell(i.default)}\``} | ${cell(i.description)} |`,
  );
  const outputs = Object.entries(action.outputs ?? {}).map(([name, o]) => `| \`${name}\` | ${cell(o.description)} |`);
  return {
    inputs: ['| input | default | meaning |', '|---|---|---|', ...inputs].join('\n'),
    outputs: ['| output | meaning |', '|---|---|', ...outputs].join('\n'),
  };
}

/** The page that holds the Action's tables. */
export const ACTION_PAGE = 'docs/ci.md';

/** `markdown` with its `<!-- action: inputs -->` and `<!-- action: outputs -->` regions rewritten. */
export function withActionTables(markdown, actionYml) {
  const tables = actionTables(actionYml);
  let text = markdown;
  for (const which of ['inputs', 'outputs']) {
    const start = `<!-- action: ${which} -->\n`;
    const end = '\n<!-- /action -->';
    const i = text.indexOf(start);
    const j = text.indexOf(end, i);
    if (i < 0 || j < 0) throw new Error(`${ACTION_PAGE} has no <!-- action: ${which} --> region`);
    text = `${text.slice(0, i + start.length)}${tables[which]}${text.slice(j)}`;
  }
  return text;
}
