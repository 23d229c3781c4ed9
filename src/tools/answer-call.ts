import type { EventOf } from '../events/events.js';
import type { IO } from '../terminal/io.js';
import { askPerson, askUserArgs, canAskPerson } from './ask-person.js';
import { ASK_USER, declaredNameOf, type DeclaredTools } from './declared.js';
import { runTool } from './run-tool.js';

export type ToolResultEvent = EventOf<'tool-result'>;

export interface CallToAnswer {
  id: string;
  name: string;
  arguments: string;
}

/** A call nsed can settle now (its result), or one that waits for an answer from elsewhere. */
export type CallAnswer = { kind: 'result'; event: ToolResultEvent } | { kind: 'pending'; why: string };

export interface AnswerDeps {
  io: IO;
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  now: () => number;
}

const refused = (call: CallToAnswer, content: string): CallAnswer => ({
  kind: 'result',
  event: {
    type: 'tool-result',
    id: call.id,
    name: call.name,
    content,
    exit_code: null,
    status: 'refused',
    duration_ms: null,
  },
});

/**
 * Settles one call. Only a declared tool ever runs, and only if it was declared with a command;
 * an undeclared name gets an error result the council can read (never a program run). A tool
 * without a command, or ask_user without a person at a terminal, waits for an answer from
 * elsewhere (`nsed continue --tool-result`, `nsed tool-result`).
 */
export async function answerCall(call: CallToAnswer, declared: DeclaredTools, deps: AnswerDeps): Promise<CallAnswer> {
  const name = declaredNameOf(declared, call.name);
  if (name === undefined) {
    return refused(call, `error: tool '${call.name}' was not declared, so nsed did not run anything; go on without it`);
  }
  if (name === ASK_USER && declared.askUser) {
    const args = askUserArgs(call.arguments);
    if (args === undefined) return refused(call, 'error: ask_user needs a "question"');
    if (!canAskPerson(deps.io)) return { kind: 'pending', why: 'no terminal to ask the person on' };
    const started = deps.now();
    const answer = await askPerson(deps.io, args, deps.signal);
    return {
      kind: 'result',
      event: {
        type: 'tool-result',
        id: call.id,
        name: call.name,
        content: answer,
        exit_code: null,
        status: 'answered',
        duration_ms: deps.now() - started,
      },
    };
  }
  const command = declared.tools.get(name)?.command;
  if (command === undefined) return { kind: 'pending', why: `tool '${name}' has no command to run` };
  const run = await runTool(command, { name, callId: call.id, args: call.arguments }, deps.env, deps.now);
  return {
    kind: 'result',
    event: {
      type: 'tool-result',
      id: call.id,
      name: call.name,
      content: run.content,
      exit_code: run.exitCode,
      status: run.status,
      duration_ms: run.durationMs,
    },
  };
}

/** The answer to a call past --max-tool-calls: refused, so the turn still ends. */
export function overLimit(call: CallToAnswer, max: number): CallAnswer {
  return refused(
    call,
    `error: nsed runs at most ${max} tool calls per turn (--max-tool-calls); answer without this one`,
  );
}
