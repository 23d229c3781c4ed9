import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../run/context.js';
import { NsedError, toNsedError } from '../errors.js';
import { redactDeep } from '../secrets.js';
import { VERSION } from '../version.js';
import { progressReporter } from './progress.js';
import { readSessionResource, SESSION_TEMPLATE, sessionResources, sessionUri } from './resources.js';
import type { LogLevel, Runner } from './runner.js';
import { listedTool, MCP_TOOLS, type McpToolDef } from './tool-defs.js';
import { inToolTerms } from './tool-terms.js';
import { CallAnswers } from './call-answers.js';
import { SessionTasks, startTask } from './tasks-store.js';
import { McpTools, type CallEnv, type OnCancel, type ToolAnswer } from './tools.js';
import { workspaceRoots } from './workspace.js';

/** The spec's JSON-RPC code for a resource that does not exist (MCP "Resources", error handling). */
const RESOURCE_NOT_FOUND = -32002;

/** nsed lists everything in one page and hands out no cursor: one a client sends is not ours. */
function refuseCursor(params: { cursor?: string | undefined } | undefined): void {
  if (params?.cursor !== undefined)
    throw new McpError(ErrorCode.InvalidParams, 'invalid cursor: nsed lists everything in one page, without a cursor');
}

/** How long a host has to answer `roots/list` before the working directory stands in for its roots. */
const ROOTS_BOUND_MS = 10_000;
/** How long the person has to answer a council question put through elicitation before wait shows it instead. */
const ELICIT_BOUND_MS = 10 * 60_000;

const INSTRUCTIONS =
  'nsed asks a council of models (an NSED deliberation) and returns its answer with a verdict. ' +
  'A deliberation takes minutes: call deliberate (it waits up to timeout_s), and while done is false call wait ' +
  'with the session and after=seq. Steer with inject, stop with cancel, answer the council with answer_tool_call. ' +
  'A host with MCP Tasks may call deliberate, continue and fork as a task instead of waiting.';

/**
 * The servers of one `nsed mcp` process (one over stdio; one per session over HTTP) share one
 * Runner, so a deliberation started by one host is the same session every host and terminal
 * sees. Logs and resource updates go to every server that is connected.
 */
export class McpHub {
  private readonly servers = new Set<Server>();
  private readonly subscribed = new Map<Server, Set<string>>();
  private readonly answers = new CallAnswers();
  readonly runner: Runner;

  constructor(
    private readonly ctx: Context,
    makeRunner: (log: (level: LogLevel, text: string) => void) => Runner,
    private readonly cwd: string,
    /** The tools listed and answered (`nsed mcp --tools`); a call to any other is an unknown tool. */
    private readonly served: readonly McpToolDef[] = MCP_TOOLS,
    private readonly onCancel: OnCancel = 'cancel',
  ) {
    this.runner = makeRunner((level, text) => this.log(level, text));
    // A subscribed session whose turn ended has a new turn in its resource.
    this.runner.observe((session, e) => {
      if (e.type !== 'finish' && e.type !== 'error') return;
      const uri = sessionUri(session);
      for (const [server, uris] of this.subscribed)
        if (uris.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => undefined);
    });
  }

  /** The MCP servers connected now: one per stdio host or HTTP session (a test counts them). */
  get connected(): number {
    return this.servers.size;
  }

  log(level: LogLevel, text: string): void {
    const data = this.ctx.secrets.redact(text);
    for (const s of this.servers) void s.sendLoggingMessage({ level, logger: 'nsed', data }).catch(() => undefined);
  }

  /** A new MCP server for one connection; `closed` is called when its transport closes. */
  server(): Server {
    const redact = (t: string): string => this.ctx.secrets.redact(t);
    // Made before its server: the tools reach the server only when a call runs.
    const tools: McpTools = new McpTools(
      this.ctx,
      this.runner,
      (question, options) => this.elicit(server, question, options),
      this.onCancel,
      this.answers,
    );
    const taskDeps = { ctx: this.ctx, runner: this.runner, tools, result: (a: ToolAnswer) => callResult(a, redact) };
    const tasks = new SessionTasks(taskDeps);
    const server = new Server(
      { name: 'nsed', version: VERSION },
      {
        capabilities: {
          tools: {},
          logging: {},
          resources: { subscribe: true, listChanged: false },
          // MCP Tasks (2025-11-25): the SDK answers tasks/* from the store's tasks (tasks-store.ts).
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        instructions: INSTRUCTIONS,
        taskStore: tasks,
      },
    );
    const uris = new Set<string>();
    this.subscribed.set(server, uris);
    this.servers.add(server);
    server.onclose = () => {
      this.servers.delete(server);
      this.subscribed.delete(server);
    };

    server.setRequestHandler(ListToolsRequestSchema, (req) => {
      refuseCursor(req.params);
      return { tools: this.served.map(listedTool) };
    });

    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      // A tool that does not exist is the request's error, not the tool's (MCP "Tools", error handling).
      // Unknown here includes a tool `nsed mcp --tools` does not serve.
      if (!this.served.some((t) => t.name === req.params.name))
        throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${req.params.name.slice(0, 60)}`);
      const env: CallEnv = {
        signal: extra.signal,
        // The SDK aborts the signal for notifications/cancelled and when the connection closes;
        // closing, it lets go of its transport in the same turn, before the call sees the abort.
        cancelledByHost: () => server.transport !== undefined,
        roots: () => this.roots(server),
      };
      // Run as a task: answered at once with the task; the host polls it (tasks-store.ts).
      const taskStore = extra.taskStore;
      if (req.params.task !== undefined && taskStore !== undefined)
        return startTask(taskDeps, req.params.name, req.params.arguments ?? {}, env, (p) => taskStore.createTask(p));
      const token = extra._meta?.progressToken;
      try {
        const a = await tools.call(req.params.name, req.params.arguments ?? {}, {
          ...env,
          ...(token === undefined
            ? {}
            : {
                watch: progressReporter(this.ctx.clock, (progress, total, message) =>
                  extra.sendNotification({
                    method: 'notifications/progress',
                    params: {
                      progressToken: token,
                      progress,
                      ...(total === undefined ? {} : { total }),
                      message: this.ctx.secrets.redact(message),
                    },
                  }),
                ),
              }),
        });
        return callResult(a, redact);
      } catch (err) {
        return toolError(err, redact);
      }
    });

    server.setRequestHandler(ListResourcesRequestSchema, async (req) => {
      refuseCursor(req.params);
      return { resources: await sessionResources(await this.ctx.store()) };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => {
      refuseCursor(req.params);
      return { resourceTemplates: [SESSION_TEMPLATE] };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
      try {
        return { contents: await readSessionResource(this.ctx, req.params.uri) };
      } catch (err) {
        const e = toNsedError(err);
        if (e.code !== 'not_found') throw err;
        throw new McpError(RESOURCE_NOT_FOUND, this.ctx.secrets.redact(e.message), {
          uri: req.params.uri.slice(0, 200),
        });
      }
    });
    server.setRequestHandler(SubscribeRequestSchema, (req) => {
      uris.add(req.params.uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
      uris.delete(req.params.uri);
      return {};
    });
    return server;
  }

  /** The host's declared roots (asked each time: they may change), else the working directory. */
  private async roots(server: Server): Promise<string[]> {
    let declared: string[] | undefined;
    if (server.getClientCapabilities()?.roots !== undefined) {
      try {
        const got = await server.listRoots(undefined, { timeout: ROOTS_BOUND_MS });
        declared = got.roots.map((r) => r.uri);
      } catch {
        declared = undefined;
      }
    }
    return workspaceRoots(declared, this.cwd);
  }

  private async elicit(server: Server, question: string, options: readonly string[]): Promise<string | undefined> {
    if (server.getClientCapabilities()?.elicitation === undefined) return undefined;
    // The choices are suggestions, as on a terminal (tools/ask-person.ts): any words are an answer.
    const answer = {
      type: 'string' as const,
      title: 'Answer',
      ...(options.length === 0 ? {} : { description: `for example: ${options.join(' / ')}` }),
    };
    const got = await server.elicitInput(
      {
        message: `The council asks: ${question}`,
        requestedSchema: { type: 'object', properties: { answer }, required: ['answer'] },
      },
      { timeout: ELICIT_BOUND_MS },
    );
    const value = got.content?.['answer'];
    return got.action === 'accept' && typeof value === 'string' ? value : undefined;
  }

  async close(): Promise<void> {
    await this.runner.close();
    await Promise.allSettled([...this.servers].map((s) => s.close()));
  }
}

/** A tool's answer as the call's result: its text (and the session's links beside it) and structured content, redacted. */
function callResult(a: ToolAnswer, redact: (t: string) => string): CallToolResult {
  return {
    content: [
      { type: 'text', text: redact(a.text) },
      ...(a.session === undefined ? [] : sessionLinks(a.session)),
      ...(a.rest === undefined ? [] : [restLink(a.rest)]),
    ],
    structuredContent: redactDeep(a.structured, redact),
    ...(a.isError === true ? { isError: true } : {}),
  };
}

/** The session's resources beside a tool's text: its transcript and its HTML report. */
function sessionLinks(session: string): CallToolResult['content'] {
  return [
    {
      type: 'resource_link',
      uri: sessionUri(session),
      name: `session ${session}`,
      mimeType: 'text/markdown',
    },
    {
      type: 'resource_link',
      uri: `${sessionUri(session)}/report.html`,
      name: `session ${session} report`,
      mimeType: 'text/html',
    },
  ];
}

/** The whole of an answer the result cut (result-fit.ts), beside its head. */
function restLink(uri: string): CallToolResult['content'][number] {
  return { type: 'resource_link', uri, name: 'the whole answer', mimeType: 'text/markdown' };
}

/** An MCP tool error: nsed's error code, exit code, message and hint; the server goes on. */
export function toolError(err: unknown, redact: (t: string) => string): CallToolResult {
  const e = err instanceof NsedError ? err : toNsedError(err);
  const hint = e.hint === undefined ? '' : `\nhint: ${inToolTerms(e.hint)}`;
  return {
    isError: true,
    content: [{ type: 'text', text: redact(`${e.code} (exit ${e.exitCode}): ${inToolTerms(e.message)}${hint}`) }],
  };
}
