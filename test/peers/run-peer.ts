// A program nobody here wrote (promptfoo, the MCP Inspector, the conformance suite), run to its
// end as a process: its exit code and output, bounded by a backstop against a hang (never a
// measure of speed). Installed by bench/lib/peer-install.mjs; a test whose peer cannot be
// installed (no registry) is skipped, saying why.
import { spawn } from 'node:child_process';
import { ensurePeers } from '../../bench/lib/peer-install.mjs';

export interface PeerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node args` with exactly `env`, in `cwd`. */
export function runPeer(
  node: string,
  args: string[],
  opts: { env: Record<string, string | undefined>; cwd?: string; timeoutMs: number },
): Promise<PeerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Says once, on one line of stderr, why a peer's tests are skipped: a skip in vitest's summary
 * alone does not say that the registry (or the install) was the reason.
 */
export function sayWhySkipped(reason: string): string {
  process.stderr.write(`peer tests skipped: ${reason.replace(/\s+/g, ' ')}\n`);
  return reason;
}

/** The install's `{ node, dir }`, or why it could not be had (the tests then skip, saying so). */
export async function peersOrReason(
  opts: Omit<Parameters<typeof ensurePeers>[0], 'log'>,
): Promise<{ node: string; dir: string } | { missing: string }> {
  try {
    return await ensurePeers({ ...opts, log: () => undefined });
  } catch (err) {
    return {
      missing: sayWhySkipped(
        `${opts.packages.join(', ')} could not be installed: ${String((err as Error).message ?? err).slice(0, 300)}`,
      ),
    };
  }
}

/** The environment a peer runs in: the machine's basics only (no proxies, no NSED_*), plus `extra`. */
export function peerEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'TMPDIR', 'LANG', 'SYSTEMROOT']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}
