/**
 * A finished (or JS-made) trace of the trace extension, as the addon hands it to JS and takes it
 * back (native/src/trace/trace_js.h). A leaf: the executor's types, its addon facade and the trace
 * facade all name it.
 */

/** A tensor of a trace at level TENSORS: an input as queued, or an output as the model gave it. */
export interface TracedTensor {
  output: boolean;
  name: string;
  datatype: string;
  shape: number[];
  data: Uint8Array;
}

/** One trace; `ns` has one entry per native TraceStamp, in its order, 0n where not reached. */
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
}
