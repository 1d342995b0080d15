/** The addon's half of the trace extension (native/src/trace/): sampling and the finished traces. */
import { GebeError } from '../../errors.js';
import { loadNativeAddon } from './native.js';
import type { FrontEndArrival } from './types.js';

/** What a trace setting tells the native samplers (server/trace-settings.ts decides it). */
export interface NativeTraceValues {
  /** trace_level includes TIMESTAMPS. */
  on: boolean;
  /** trace_rate: every rate-th request is traced. */
  rate: number;
  /** trace_count: traces left to take (-1: no limit); left out, a setting that exists keeps what it has left. */
  count?: number;
}

/** One finished trace; `ns` has one entry per timestamp (TRACE_STAMPS' order), 0n where not reached. */
export interface NativeRequestTrace {
  id: number;
  /** An ensemble step's: the ensemble request's trace (0: none). */
  parentId: number;
  model: string;
  version: string;
  /** '' for a request queued from JS (no protocol timestamps). */
  protocol: '' | 'http' | 'grpc';
  /** This request used up its setting's trace_count. */
  last: boolean;
  ns: bigint[];
}

export interface NativeTrace {
  /** Sets the global setting (model null) or a model's own (values null: the model follows the global one again). */
  setSetting(model: string | null, values: NativeTraceValues | null): void;
  /** Traces the setting that governs `model` (null: the global one) may still take; -1 without limit. */
  countLeft(model: string | null): number;
  /** The traces finished since the last call, and how many were dropped waiting. */
  take(): { traces: NativeRequestTrace[]; dropped: number };
  /** For a request JS runs itself (a Python model, an ensemble): whether `model`'s setting traces it. */
  sample(model: string, version: string): { id: number; last: boolean } | null;
  /** The trace id of a step of a traced ensemble request that JS runs (a Python model's). */
  child(parentId: number): number;
  /** Such a request is done: its trace (its timestamps in TRACE_STAMPS' order, 0n where not reached) joins the others. */
  finish(trace: NativeRequestTrace): void;
}

/** The native TraceStamp order: RECV_START, RECV_END, REQUEST_START, ..., REQUEST_END (8), SEND_START, SEND_END. */
const RECV_START = 0;
const RECV_END = 1;
const REQUEST_START = 2;
const REQUEST_END = 8;
const STAMP_COUNT = 11;

/**
 * A request JS runs (a Python model, an ensemble) while its trace is open: `end` closes it when
 * the request settles. Executor models' requests are traced natively.
 */
export function traceJsRequest(trace: NativeTrace, sampled: { id: number; parentId: number; last: boolean }, model: string, version: string,
  received?: FrontEndArrival): (done: Promise<unknown>) => void {
  const ns = new Array<bigint>(STAMP_COUNT).fill(0n);
  ns[REQUEST_START] = process.hrtime.bigint();  // CLOCK_MONOTONIC, as the native timestamps
  if (received) [ns[RECV_START], ns[RECV_END]] = [received.startNs, received.endNs];
  return (done) => {
    // JS hands the answer to the front end: the send is not timed (no SEND timestamps).
    const end = () => {
      ns[REQUEST_END] = process.hrtime.bigint();
      trace.finish({ ...sampled, model, version, protocol: received?.protocol ?? '', ns });
    };
    done.then(end, end);
  };
}

export function nativeTrace(): NativeTrace {
  const trace = loadNativeAddon().trace as NativeTrace | undefined;
  if (!trace) {
    throw new GebeError('the native addon was built without the trace extension (native/src/trace)', {
      hint: 'rebuild it from this checkout with `npm run build:native`',
    });
  }
  return trace;
}
