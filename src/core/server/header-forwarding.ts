/**
 * Triton's --http-header-forward-pattern and --grpc-header-forward-pattern: the request headers (gRPC
 * metadata) whose names match the pattern go to the model as string request parameters, which a
 * Python model reads with request.parameters(). The patterns match anywhere in a name, as Triton's
 * RE2 PartialMatch does; names are lower-case (HTTP/2 and Node's HTTP/1 parser make them so). The
 * parameters gebe reads itself (priority, timeout, sequence_*) are never taken from headers.
 *
 * The native infer routes, which answer only models with a native handle, do not forward: those
 * models never read request parameters, so the answer is the same.
 */
import type { InferRequest } from '../executor/types.js';
import { addModelParameter } from '../kserve/codec/http-infer-request.js';

export function forwardHeaders(request: InferRequest, pattern: RegExp | undefined, headers: Iterable<[string, string]>): void {
  if (!pattern) return;
  for (const [name, value] of headers) {
    if (pattern.test(name)) addModelParameter(request, name, value);
  }
}

/**
 * The client's W3C trace context (`traceparent`, OpenTelemetry's propagation header) onto the
 * request, for the trace extension to continue the client's trace (checked natively).
 */
export function takeTraceContext(request: InferRequest, headers: Iterable<[string, string | string[] | undefined]>): void {
  for (const [name, value] of headers) {
    if (name === 'traceparent' && typeof value === 'string') request.traceparent = value;
  }
}
