import { randomBytes } from 'node:crypto';
import type { ChatCompletionChunk, ChatMessage } from '../../protocol/wire.js';
import { tokens } from '../metering.js';
import type { AnswerTokens } from '../usage.js';

/** One Responses API stream event (its `type` is also the SSE event name). */
export type ResponseEvent = { type: string } & Record<string, unknown>;
type Item = Record<string, unknown> & { id: string; type: string };

const itemId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

export interface ResponseHead {
  id: string;
  model: string;
  createdAt: number;
  previousResponseId: string | null;
  instructions: string | null;
  tools: unknown[];
  /** The text of the input, for a plausible usage block. */
  inputText: string;
  /**
   * What the council used for this answer (the default profile's `usage`), read when the
   * response ends; absent, `usage` counts the input and the output as if one model answered.
   */
  metered?: () => AnswerTokens;
  /** Request fields the response object echoes (store, temperature, max_output_tokens, text, …). */
  echo: Record<string, unknown>;
  /** The request asked for reasoning (`reasoning`, or `include` naming it): progress becomes a reasoning item. */
  reasoning: boolean;
  /** `max_output_tokens`: past it the response ends `incomplete`. */
  maxOutputTokens: number | null;
}

/** What OpenAI's response object carries when the request leaves a field out. */
const DEFAULTS: Record<string, unknown> = {
  background: false,
  max_output_tokens: null,
  max_tool_calls: null,
  parallel_tool_calls: true,
  prompt_cache_key: null,
  reasoning: { effort: null, summary: null },
  safety_identifier: null,
  service_tier: 'default',
  store: true,
  temperature: 1,
  text: { format: { type: 'text' }, verbosity: 'medium' },
  tool_choice: 'auto',
  top_logprobs: 0,
  top_p: 1,
  truncation: 'disabled',
  user: null,
  metadata: {},
};

/**
 * Turns a job's chat chunks into a Responses API response, item by item, in the event
 * sequence OpenAI's clients parse: deliberation progress as one reasoning item (a summary
 * part per milestone) when the request asked for reasoning, the answer as a message item, a
 * tool call as a `function_call` item. `usage` is null until the response ends, as OpenAI's is.
 */
export class ResponseBuilder {
  private readonly output: Item[] = [];
  private open: Item | undefined;
  private text = '';
  private reasoningText = '';
  /** Characters of output so far, against `max_output_tokens` (about four a token). */
  private spent = 0;
  private seq = 0;
  status: 'in_progress' | 'completed' | 'failed' | 'incomplete' = 'in_progress';
  /** Set once `max_output_tokens` is used up: the caller finishes the response there. */
  exhausted = false;
  private error: { code: string; message: string } | null = null;

  constructor(private readonly head: ResponseHead) {}

  /** `response.created` and `response.in_progress`. */
  start(): ResponseEvent[] {
    return [
      this.event('response.created', { response: this.snapshot() }),
      this.event('response.in_progress', { response: this.snapshot() }),
    ];
  }

  /** The events one chat chunk stands for (none for NSED-only fields). */
  onChunk(chunk: ChatCompletionChunk): ResponseEvent[] {
    const delta = chunk.choices[0]?.delta;
    if (delta === undefined || this.exhausted) return [];
    const out: ResponseEvent[] = [];
    const r = delta.reasoning_content;
    if (this.head.reasoning && typeof r === 'string' && r !== '' && this.spend(r.length, true) === r.length)
      out.push(...this.reasoning(r));
    const c = delta.content;
    if (typeof c === 'string' && c !== '') {
      const fits = this.spend(c.length, false);
      if (fits > 0) out.push(...this.content(c.slice(0, fits)));
    }
    for (const call of delta.tool_calls ?? []) {
      const size = (call.function?.arguments ?? '').length;
      if (this.spend(size, true) < size) break;
      out.push(...this.close());
      const item: Item = {
        id: itemId('fc'),
        type: 'function_call',
        status: 'in_progress',
        call_id: call.id ?? '',
        name: call.function?.name ?? '',
        arguments: '',
      };
      out.push(this.added(item));
      const args = call.function?.arguments ?? '';
      out.push(
        this.event('response.function_call_arguments.delta', {
          item_id: item.id,
          output_index: this.indexOf(item),
          delta: args,
        }),
      );
      out.push(
        this.event('response.function_call_arguments.done', {
          item_id: item.id,
          output_index: this.indexOf(item),
          name: item.name,
          arguments: args,
        }),
      );
      item.arguments = args;
      out.push(...this.close());
    }
    return out;
  }

  /**
   * Takes `n` characters from the `max_output_tokens` budget: how many fit (all or nothing when
   * `whole`); once it runs out the response is over.
   */
  private spend(n: number, whole: boolean): number {
    const max = this.head.maxOutputTokens;
    if (max === null) return n;
    const left = Math.max(0, max * 4 - this.spent);
    const fits = n <= left ? n : whole ? 0 : left;
    this.spent += fits;
    if (fits < n) this.exhausted = true;
    return fits;
  }

  /** The last events: the open item closed, then `response.completed`, `response.incomplete` or `response.failed`. */
  finish(failure?: string): ResponseEvent[] {
    const out = this.close();
    if (failure === undefined && this.exhausted) {
      this.status = 'incomplete';
      out.push(this.event('response.incomplete', { response: this.snapshot() }));
    } else if (failure === undefined) {
      this.status = 'completed';
      out.push(this.event('response.completed', { response: this.snapshot() }));
    } else {
      this.status = 'failed';
      this.error = { code: 'server_error', message: `deliberation failed: ${failure}` };
      out.push(this.event('response.failed', { response: this.snapshot() }));
    }
    return out;
  }

  /** The response object as it stands (the non-streaming answer, once finished). */
  snapshot(): Record<string, unknown> {
    const h = this.head;
    const ended = this.status !== 'in_progress';
    return {
      id: h.id,
      object: 'response',
      created_at: h.createdAt,
      status: this.status,
      error: this.error,
      incomplete_details: this.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
      instructions: h.instructions,
      model: h.model,
      output: this.output.map((i) => structuredClone(i)),
      previous_response_id: h.previousResponseId,
      tools: h.tools,
      ...DEFAULTS,
      ...h.echo,
      usage: ended ? this.usage() : null,
    };
  }

  /**
   * The usage block of an ended response, in OpenAI's shape (codex reads `cache_write_tokens`
   * too; nothing is cached here). Counted by the council, everything it wrote beyond the visible
   * output is reasoning, as a reasoning model's hidden tokens are.
   */
  private usage(): Record<string, unknown> {
    const visible = Math.ceil(this.outputChars() / 4);
    const metered = this.head.metered?.();
    const input = metered?.input ?? tokens(this.head.inputText);
    // `max_output_tokens` bounds reasoning and visible output together, as OpenAI's does.
    const output = Math.min(metered?.output ?? visible, this.head.maxOutputTokens ?? Infinity);
    const reasoning =
      metered === undefined ? tokens(this.reasoningText) : Math.max(0, output - Math.ceil(this.visibleChars() / 4));
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: reasoning },
      total_tokens: input + output,
    };
  }

  /** Output characters a client shows: the message text and the call arguments. */
  private visibleChars(): number {
    return this.outputChars() - this.reasoningText.length;
  }

  /** Output characters: the message text, the reasoning shown and the call arguments. */
  private outputChars(): number {
    const args = this.output.reduce((n, i) => n + (i.type === 'function_call' ? String(i.arguments).length : 0), 0);
    return this.text.length + this.reasoningText.length + args;
  }

  /** The output as chat messages, to extend the server-held thread. */
  outputMessages(): ChatMessage[] {
    const calls = this.output.filter((i) => i.type === 'function_call');
    if (calls.length > 0) {
      return [
        {
          role: 'assistant',
          content: null,
          tool_calls: calls.map((c) => ({
            id: String(c.call_id),
            type: 'function',
            function: { name: String(c.name), arguments: String(c.arguments) },
          })),
        },
      ];
    }
    return this.text === '' ? [] : [{ role: 'assistant', content: this.text }];
  }

  items(): Array<Record<string, unknown>> {
    return this.output;
  }

  private reasoning(text: string): ResponseEvent[] {
    const out: ResponseEvent[] = [];
    let item = this.open;
    if (item?.type !== 'reasoning') {
      out.push(...this.close());
      item = { id: itemId('rs'), type: 'reasoning', summary: [] };
      out.push(this.added(item));
    }
    const summary = item.summary as Array<{ type: string; text: string }>;
    const at = { item_id: item.id, output_index: this.indexOf(item), summary_index: summary.length };
    out.push(this.event('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } }));
    out.push(this.event('response.reasoning_summary_text.delta', { ...at, delta: text }));
    out.push(this.event('response.reasoning_summary_text.done', { ...at, text }));
    summary.push({ type: 'summary_text', text });
    this.reasoningText += text;
    out.push(this.event('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text } }));
    return out;
  }

  private content(text: string): ResponseEvent[] {
    const out: ResponseEvent[] = [];
    let item = this.open;
    if (item?.type !== 'message') {
      out.push(...this.close());
      item = { id: itemId('msg'), type: 'message', status: 'in_progress', role: 'assistant', content: [] };
      out.push(this.added(item));
      out.push(
        this.event('response.content_part.added', {
          item_id: item.id,
          output_index: this.indexOf(item),
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        }),
      );
    }
    this.text += text;
    out.push(
      this.event('response.output_text.delta', {
        item_id: item.id,
        output_index: this.indexOf(item),
        content_index: 0,
        delta: text,
        logprobs: [],
      }),
    );
    return out;
  }

  private added(item: Item): ResponseEvent {
    this.output.push(item);
    this.open = item;
    return this.event('response.output_item.added', { output_index: this.indexOf(item), item: structuredClone(item) });
  }

  private close(): ResponseEvent[] {
    const item = this.open;
    if (item === undefined) return [];
    this.open = undefined;
    const out: ResponseEvent[] = [];
    const at = { item_id: item.id, output_index: this.indexOf(item) };
    if (item.type === 'message') {
      // OpenAI's spec: an output_text part carries `annotations` and `logprobs`, empty here.
      const part = { type: 'output_text', text: this.text, annotations: [], logprobs: [] };
      out.push(this.event('response.output_text.done', { ...at, content_index: 0, text: this.text, logprobs: [] }));
      out.push(this.event('response.content_part.done', { ...at, content_index: 0, part }));
      item.content = [part];
    }
    if (item.type !== 'reasoning') item.status = 'completed';
    out.push(
      this.event('response.output_item.done', { output_index: this.indexOf(item), item: structuredClone(item) }),
    );
    return out;
  }

  private indexOf(item: Item): number {
    return this.output.indexOf(item);
  }

  private event(type: string, body: Record<string, unknown>): ResponseEvent {
    return { type, sequence_number: this.seq++, ...body };
  }
}
