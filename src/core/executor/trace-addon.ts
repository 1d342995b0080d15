/** The addon's half of the trace extension (native/src/trace/): sampling and the finished traces. */
import { nativeModule } from './native.js';
import { TRACE_STAMPS } from './trace-record.js';
import { startOtelIds } from './otel-ids.js';
import type { FrontEndArrival, InferRequest, InferTensor, LoadedModel, NativeRequestTrace, TraceLink, TracedTensor } from './types.js';

export type { NativeRequestTrace, TracedTensor } from './types.js';

/** What a trace setting tells the native samplers (server/trace-settings.ts decides it). */
export interface NativeTraceValues {
  /** trace_level includes TIMESTAMPS / TENSORS (neither: the setting traces nothing). */
  timestamps: boolean;
  tensors: boolean;
  /** trace_rate: every rate-th request is traced. */
  rate: number;
  /** trace_count: traces left to take (-1: no limit); left out, a setting that exists keeps what it has left. */
  count?: number;
}

export interface NativeTrace {
  /** Sets the global setting (model null) or a model's own (values null: the model follows the global one again). */
  setSetting(model: string | null, values: NativeTraceValues | null): void;
  /** Traces the setting that governs `model` (null: the global one) may still take; -1 without limit. */
  countLeft(model: string | null): number;
  /** The traces finished since the last call, and how many were dropped waiting. */
  take(): { traces: NativeRequestTrace[]; dropped: number };
  /**
   * For a request JS runs itself (a Python model, an ensemble): whether `model`'s setting traces it
   * (or, with propagation on, its client's `traceparent` asks for it), and at which levels.
   */
  sample(model: string, version: string, traceparent?: string): (TraceLink & { last: boolean; context: string }) | null;
  /** The trace id of a step of a traced ensemble request that JS runs (a Python model's). */
  child(parentId: number): number;
  /** Such a request is done: its trace joins the others (the native side bounds its tensors' bytes). */
  finish(trace: NativeRequestTrace): void;
  /** OpenTelemetry context propagation: requests with a valid traceparent are traced whatever the rate and count. */
  setPropagation(on: boolean): void;
}

const RECV_START = TRACE_STAMPS.indexOf('RECV_START');
const RECV_END = TRACE_STAMPS.indexOf('RECV_END');
const REQUEST_START = TRACE_STAMPS.indexOf('REQUEST_START');
const REQUEST_END = TRACE_STAMPS.indexOf('REQUEST_END');
const INFER_RESPONSE_COMPLETE = TRACE_STAMPS.indexOf('INFER_RESPONSE_COMPLETE');

const traced = (output: boolean) => (t: InferTensor): TracedTensor => ({ output, name: t.name, datatype: t.datatype, shape: t.shape, data: t.data });

/**
 * A request JS runs (a Python model, an ensemble) while its trace is open: the returned call closes
 * it when the request settles (with its outputs at level TENSORS, when it answers an InferResponse),
 * and hands it to the native front end that received the request, if one did, or collects it.
 * Executor models' requests are traced natively.
 */
export function traceJsRequest(trace: NativeTrace, sampled: TraceLink & { parentId: number; last: boolean; context?: string }, model: string, version: string,
  request: InferRequest): (done: Promise<unknown>) => void {
  const ns = new Array<bigint>(TRACE_STAMPS.length).fill(0n);
  ns[REQUEST_START] = process.hrtime.bigint();  // CLOCK_MONOTONIC, as the native timestamps
  const received: FrontEndArrival | undefined = request.received;
  if (received) [ns[RECV_START], ns[RECV_END]] = [received.startNs, received.endNs];
  const tensors = sampled.tensors ? request.inputs.map(traced(false)) : [];
  return (done) => {
    const end = (result?: unknown) => {
      ns[REQUEST_END] = process.hrtime.bigint();
      ns[INFER_RESPONSE_COMPLETE] = ns[REQUEST_END]!;  // the result is JS's as the request settles
      const outputs = (result as { outputs?: InferTensor[] } | undefined)?.outputs;
      if (sampled.tensors && Array.isArray(outputs)) tensors.push(...outputs.map(traced(true)));
      const finished: NativeRequestTrace = { id: sampled.id, parentId: sampled.parentId, model, version, protocol: received?.protocol ?? '',
        last: sampled.last, timestamps: sampled.timestamps, ns, tensors, context: sampled.context, requestId: request.id ?? '' };
      // A request a native front end received: the trace goes back with the answer, and the front
      // end times the send (it settles before the answer is made, so the front end finds it).
      if (received) received.trace = finished;
      else trace.finish(finished);
    };
    done.then(end, () => end());
  };
}

/**
 * A child request of a traced request on a model JS runs (an ensemble's step, a Python model's BLS
 * request, on a Python model or an inner ensemble) is traced as the parent's child from now until
 * the promise given to the returned call settles; on an executor model it is traced natively
 * (undefined here: the native core makes the child trace from `parentTrace`).
 */
export function traceJsStep(model: LoadedModel, request: InferRequest): ((done: Promise<unknown>) => void) | undefined {
  const parent = request.parentTrace;
  if (parent === undefined || model.nativeModel?.()) return undefined;
  const trace = nativeTrace();
  const id = trace.child(parent.id);
  // A parent without ids (not in mode opentelemetry) gives its child none either: the builder places it.
  const link: TraceLink = { ...parent, id, otel: parent.otel && startOtelIds(id, parent.otel) };
  request.trace = link;  // an inner ensemble's steps are this step's children
  return traceJsRequest(trace, { ...link, parentId: parent.id, last: false }, model.name, model.version, request);
}

export function nativeTrace(): NativeTrace {
  return nativeModule<NativeTrace>('trace', 'the trace extension (native/src/trace)');
}
