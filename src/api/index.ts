// The face of api/: what the layers above may use. The rest of api/ (transport, SSE parsing, the
// stream processors' insides) is private to it, and lint keeps it so (scripts/layers.mjs, FACES).
export * from './client.js';
export { DOCUMENTED_FINISH, isUsableCall } from './decode-chunk.js';
export { proxyDisplay, proxySettings } from './dispatcher.js';
export { eofError } from './sse-processor.js';
export type { DetailsHistory } from './parse-details.js';
export { toolCallEventOf } from './tool-call-events.js';
