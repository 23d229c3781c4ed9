// The CLI's commands as the MCP tools run them: each tool's arguments become the words the
// command's own parse reads (so a bad value is refused with the same message), and its run goes
// against the server's Context. No shell, no second copy of a command's logic.
import type { Context } from '../run/context.js';
import type { CommandDef, ParsedArgv } from '../commands/command.js';
import { parseCommandLine } from '../commands/parse-step.js';
import { ask } from '../commands/ask.js';
import { cancel } from '../commands/cancel.js';
import { continueCommand } from '../commands/continue.js';
import { fork } from '../commands/fork.js';
import { inject } from '../commands/inject.js';
import { resume } from '../commands/resume.js';
import { ls } from '../commands/sessions/ls.js';
import { toolResult } from '../commands/tool-result.js';
import { watch } from '../commands/watch.js';

type Run = (ctx: Context) => Promise<number>;

/**
 * Parses now (a usage error is the tool call's), runs later. The call's arguments are its
 * command line's flags, parsed as the CLI parses them (parseCommandLine): a setting flag among
 * them is read once, into settings whose other layers are left out here (no environment, no
 * config file), as the parse step takes only what a flag gave; the run has the server's settings,
 * in its Context.
 */
function prepared<O>(def: CommandDef<O>, argv: ParsedArgv): Run {
  const { options } = parseCommandLine(def, argv);
  return (ctx) => def.run(options, ctx);
}

export const runAsk = (argv: ParsedArgv): Run => prepared(ask, argv);
export const runContinue = (argv: ParsedArgv): Run => prepared(continueCommand, argv);
export const runFork = (argv: ParsedArgv): Run => prepared(fork, argv);
export const runWatch = (session: string): Run => prepared(watch, { session });
export const runResume = (session: string): Run => prepared(resume, { session });
export const runInject = (session: string, message: string): Run =>
  prepared(inject, { session, message: [message], wait: false });
export const runCancel = (session: string): Run => prepared(cancel, { session });
export const runToolResult = (session: string, callId: string, value: string): Run =>
  prepared(toolResult, { session, 'call-id': callId, value: [value], wait: false });
/** `continue --tool-result ID=-`: the answer to a call the turn stopped at, read from stdin. */
export const runContinueWithResult = (session: string, callId: string): Run =>
  prepared(continueCommand, { session, 'tool-result': [`${callId}=-`] });
export const runSessionsLs = (argv: ParsedArgv): Run => prepared(ls, argv);
