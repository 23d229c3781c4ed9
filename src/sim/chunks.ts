import type { ChatCompletionChunk, ChunkDelta, FinishReason } from '../protocol/wire.js';

/** Identity stamped on every chunk of one job, so a replay is byte-identical to the first stream. */
export interface ChunkStamp {
  id: string;
  created: number;
  model: string;
}

export function chunk(stamp: ChunkStamp, delta: ChunkDelta, finish: FinishReason | null = null): ChatCompletionChunk {
  return {
    id: stamp.id,
    object: 'chat.completion.chunk',
    created: stamp.created,
    model: stamp.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
}

/** A failure inside the stream: no choices, an OpenAI-style error object (docs/reliability.md #19). */
export function errorChunk(stamp: ChunkStamp, message: string): ChatCompletionChunk {
  // OpenAI's error object carries `param` too (null: no request field is at fault).
  const error = { message, type: 'server_error', param: null, code: 'deliberation_failed' };
  return {
    id: stamp.id,
    object: 'chat.completion.chunk',
    created: stamp.created,
    model: stamp.model,
    choices: [],
    error,
  };
}
