// How a GitHub Actions runner reads the files a step writes: `$GITHUB_OUTPUT` (and `$GITHUB_ENV`)
// hold `name=value` lines and `name<<DELIMITER` blocks (docs.github.com, "Workflow commands for
// GitHub Actions", "Multiline strings"). The runner refuses a block whose delimiter never comes;
// later values of a name replace earlier ones.

/** Parses an outputs file as the runner does; throws where the runner would fail the step. */
export function parseGithubFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    const block = /^([^=<]+)<<(.+)$/.exec(line);
    const eq = line.indexOf('=');
    if (block !== null && (eq === -1 || eq > line.indexOf('<<'))) {
      const [, name = '', delim = ''] = block;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i] ?? '');
      if (i >= lines.length) throw new Error(`Matching delimiter not found '${delim}'`);
      out.set(name, value.join('\n'));
      continue;
    }
    if (eq <= 0) throw new Error(`Invalid format '${line}'`);
    out.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return out;
}
