/**
 * A finished (or JS-made) trace of the trace extension, as the addon hands it to JS and takes it
 * back (native/src/trace/trace_js.h). A leaf: the executor's types, its addon facade and the trace
 * facade all name it.
 */

/** A trace's timestamps, in the native TraceStamp order (request_trace.h): a trace's `ns` follows it. */
export const TRACE_STAMPS = [
  'RECV_START', 'RECV_END', 'REQUEST_START', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END',
  'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END', 'INFER_RESPONSE_COMPLETE', 'SEND_START', 'SEND_END',
] as const;
export type TraceStampName = (typeof TRACE_STAMPS)[number];

/** The protocol's names of the RECV and SEND timestamps (the others are TRACE_STAMPS' as they are). */
const PROTOCOL_NAMES: Record<string, Partial<Record<TraceStampName, string>>> = {
  http: { RECV_START: 'HTTP_RECV_START', RECV_END: 'HTTP_RECV_END', SEND_START: 'HTTP_SEND_START', SEND_END: 'HTTP_SEND_END' },
  grpc: { RECV_START: 'GRPC_WAITREAD_START', RECV_END: 'GRPC_WAITREAD_END', SEND_START: 'GRPC_SEND_START', SEND_END: 'GRPC_SEND_END' },
};

/** A timestamp's name as Triton writes it for a request that came over `protocol` ('' for none). */
export function stampName(protocol: string, stamp: TraceStampName): string {
  return PROTOCOL_NAMES[protocol]?.[stamp] ?? stamp;
}

/** A tensor of a trace at level TENSORS: an input as queued, or an output as the model gave it. */
export interface TracedTensor {
  output: boolean;
  name: string;
  datatype: string;
  shape: number[];
  data: Uint8Array;
}

/** One trace; `ns` has one entry per TRACE_STAMPS entry, 0n where not reached. */
export interface NativeRequestTrace {
  id: number;
  /** An ensemble step's: the ensemble request's trace (0: none). */
  parentId: number;
  model: string;
  version: string;
  /** '' for a request without protocol timestamps. */
  protocol: '' | 'http' | 'grpc';
  /** This request used up its setting's trace_count. */
  last: boolean;
  /** Its setting traces TIMESTAMPS (else only the tensors are written). */
  timestamps: boolean;
  ns: bigint[];
  tensors: TracedTensor[];
  /** Some tensor passed the bytes one trace keeps, and was left out. */
  tensorsLeftOut?: boolean;
  /** The client's W3C traceparent this request's trace continues ('' or absent: none). */
  context?: string;
  /** The request's id (Triton's request_id; '' or absent: none), its first 256 bytes. */
  requestId?: string;
}
