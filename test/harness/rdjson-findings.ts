// Findings written as the real CLI writes them: `nsed ask --schema review --rdjson FILE` (and
// --codequality) against a plain loopback server answering the review given, in a checkout of
// the test's files; what the Action's check-run and review steps read.
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { startPlainServer } from '../everyday/plain-server.js';
import { runCliInProcess } from './cli.js';

export interface ReviewFinding {
  file: string;
  line: number;
  end_line?: number;
  severity: 'error' | 'warning' | 'notice';
  message: string;
  title?: string;
  suggestion?: string;
}

/** The rdjsonl and Code Quality files nsed wrote for `findings`, and its stderr. */
export async function writeFindings(
  dir: string,
  workspace: string,
  findings: ReviewFinding[],
): Promise<{ rdjson: string; codequality: string; stderr: string }> {
  const server = await startPlainServer(JSON.stringify({ summary: 'A review.', verdict: 'comment', findings }));
  const out = await mkdtemp(join(dir, 'findings-'));
  const rdjson = join(out, 'findings.rdjsonl');
  const codequality = join(out, 'codequality.json');
  try {
    const r = await runCliInProcess(
      [
        'ask',
        '-m',
        'llama3.2',
        '--schema',
        'review',
        '--workspace',
        workspace,
        '--rdjson',
        rdjson,
        '--codequality',
        codequality,
        'Review the change',
      ],
      { env: { NSED_HOME: join(out, 'home'), NSED_URL: server.url, NO_COLOR: '1' } },
    );
    if (r.code !== 0) throw new Error(`nsed ask failed: ${r.stderr}`);
    return { rdjson, codequality, stderr: r.stderr };
  } finally {
    await server.close();
  }
}
