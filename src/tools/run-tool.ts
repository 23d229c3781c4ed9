import { spawn } from 'node:child_process';
import type { ToolCommand } from './declared.js';

export type ToolRunStatus = 'ok' | 'error' | 'timeout' | 'capped';

/** What one run of a tool gave: the text the council sees, and how the program ended. */
export interface ToolRun {
  status: ToolRunStatus;
  /** stdout on success; otherwise a one-paragraph error the council can read. */
  content: string;
  /** The program's exit code; null when it was killed or never started. */
  exitCode: number | null;
  durationMs: number;
}

export interface ToolInvocation {
  name: string;
  callId: string;
  /** The call's arguments, a JSON string (what goes on stdin and in NSED_TOOL_ARGS). */
  args: string;
}

/** Environment variables a tool never inherits: the bearer token is not the tool's business. */
const WITHHELD = ['NSED_TOKEN', 'NSED_SIM_TOKEN'];
const STDERR_TAIL = 2000;

/**
 * Runs a declared tool: argv exactly as declared (no shell, so nothing in the model's arguments
 * is ever interpreted), the arguments as JSON on stdin and in the environment, stdout as the
 * result. Bounded in time (the process group is killed) and in output (the process is killed
 * once it passes the cap). Never throws: every failure is a result the council can read.
 */
export function runTool(
  cmd: ToolCommand,
  call: ToolInvocation,
  env: Readonly<Record<string, string | undefined>>,
  now: () => number = Date.now,
): Promise<ToolRun> {
  const started = now();
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !WITHHELD.includes(k)) childEnv[k] = v;
  Object.assign(childEnv, { NSED_TOOL_ARGS: call.args, NSED_TOOL_NAME: call.name, NSED_TOOL_CALL_ID: call.callId });
  return new Promise((resolve) => {
    const [file = '', ...args] = cmd.argv;
    const child = spawn(file, args, {
      env: childEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      detached: process.platform !== 'win32',
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let errText = '';
    let capped = false;
    let timedOut = false;
    let settled = false;
    const kill = (): void => {
      try {
        // The whole group: a tool that forked a helper must not outlive its time limit.
        if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, cmd.timeoutMs);
    const finish = (run: Omit<ToolRun, 'durationMs'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...run, durationMs: Math.max(0, now() - started) });
    };
    child.stdout.on('data', (b: Buffer) => {
      if (capped) return;
      const room = cmd.maxOutputBytes - outBytes;
      if (b.length > room) {
        out.push(b.subarray(0, Math.max(0, room)));
        outBytes = cmd.maxOutputBytes;
        capped = true;
        kill();
        return;
      }
      out.push(b);
      outBytes += b.length;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      errText = (errText + s).slice(-STDERR_TAIL);
    });
    // A tool that never reads its stdin closes the pipe; that is not an error of the tool.
    child.stdin.on('error', () => undefined);
    child.stdin.end(call.args);
    child.on('error', (err: NodeJS.ErrnoException) => {
      finish({
        status: 'error',
        exitCode: null,
        content: `error: tool ${call.name} could not be started (${err.code ?? err.message}): ${file}`,
      });
    });
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      if (timedOut) {
        return finish({
          status: 'timeout',
          exitCode: null,
          content: `error: tool ${call.name} did not finish within ${cmd.timeoutMs / 1000} s and was stopped`,
        });
      }
      if (capped) {
        const note = `\n[nsed: the output of tool ${call.name} was cut at ${cmd.maxOutputBytes} bytes and the tool stopped]`;
        return finish({ status: 'capped', exitCode: null, content: stdout + note });
      }
      if (code !== 0) {
        const why = code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with status ${code}`;
        const detail = (errText.trim() || stdout.trim()).slice(-STDERR_TAIL);
        return finish({
          status: 'error',
          exitCode: code,
          content: `error: tool ${call.name} ${why}${detail === '' ? '' : `: ${detail}`}`,
        });
      }
      finish({ status: 'ok', exitCode: 0, content: stdout.replace(/\r?\n$/, '') });
    });
  });
}
