/**
 * The executor facade's contract: what `serve`, `perf`, `warmup` and `infer` program against.
 * Implemented in src/core/executor over the native addon (scheduler + engines).
 */
import type { HistogramReading } from './first-response-histogram.js';
import type { LatencySummaries } from './latency-summaries.js';
import { traitsOf, type FailureName, type MetricReason } from './failure-reasons.js';
import type { NativeModel } from './executor-addon.js';

import type { Datatype } from '../kserve/datatypes.js';
import type { NativeRequestTrace } from './trace-record.js';
import type { OtelIds } from './otel-ids.js';

export type { NativeRequestTrace, TracedTensor } from './trace-record.js';

export type { Datatype };

/** A tensor's declaration: shape includes the batch dimension (-1) when max_batch_size > 0. */
export interface TensorMetadata {
  name: string;
  datatype: Datatype;
  shape: number[];
}

/**
 * One tensor of a request or response. `data` holds the raw little-endian bytes (a view over the
 * caller's buffer, never copied element by element). BYTES tensors use KServe's binary layout:
 * each element is a 4-byte little-endian length followed by its bytes.
 */
export interface InferTensor {
  name: string;
  datatype: Datatype;
  shape: number[];
  data: Uint8Array;
}

export interface InferRequest {
  id?: string;
  inputs: InferTensor[];
  /** Names of the outputs to return; all outputs when absent. */
  outputs?: string[];
  /** 1 is the highest priority; 0 or absent = the model's default_priority_level. */
  priority?: number;
  /** Queue timeout in microseconds (honoured when the queue policy allows overrides). */
  timeoutUs?: number;
  /**
   * Sequence models (sequence_batching): the sequence (Triton's correlation id: an unsigned
   * 64-bit number or a string; 0 and '' mean none) and its START/END flags. Ignored by others,
   * once the native core has checked them for every model (the KServe codecs pass what the
   * client sent, whatever its type: a bad value is refused there, in one wording).
   */
  sequenceId?: number | bigint | string;
  sequenceStart?: boolean;
  sequenceEnd?: boolean;
  /**
   * Aborted when the client went away (server/cancellation.ts): the models JS runs drop the
   * request if they still queue it; the native executor drops it from its queue, or stops its run
   * once every request of the batch is cancelled (CPU engine).
   */
  signal?: AbortSignal;
  /**
   * The request's other parameters, as sent (string, number or boolean values): Triton hands them to
   * the model (a Python model's request.parameters()); the engines do not read them.
   */
  parameters?: Record<string, string | number | boolean>;
  /**
   * The trace extension (server/trace-settings.ts): `trace` is set on a traced request that JS
   * runs (an ensemble's), and its steps carry it as `parentTrace`, so each step is traced as its
   * child at the same levels, whatever the step's model's own setting (as Triton traces an
   * ensemble's steps).
   */
  trace?: TraceLink;
  parentTrace?: TraceLink;
  /** While tracing: when the front end received the request (a trace of a request JS runs starts there). */
  received?: FrontEndArrival;
  /**
   * The W3C trace context the client sent (its `traceparent` header or metadata): in OpenTelemetry
   * trace mode the request is traced as a span of the client's trace (native/src/trace/request_trace.h).
   */
  traceparent?: string;
}

/** A traced request's trace id and the levels it traces. */
export interface TraceLink {
  id: number;
  timestamps: boolean;
  tensors: boolean;
  /** In mode opentelemetry, a JS-run request's span ids, given as it starts (otel-ids.ts). */
  otel?: OtelIds;
}

/**
 * When a request reached a native front end: its first byte (gRPC: the call began waiting for it)
 * and its last, steady-clock ns. A trace JS makes of the request is left in `trace` when the request
 * settles, for the front end to hand over with the answer (it times the send).
 */
export interface FrontEndArrival {
  protocol: 'http' | 'grpc';
  startNs: bigint;
  endNs: bigint;
  trace?: NativeRequestTrace;
}

export interface InferResponse {
  id?: string;
  modelName: string;
  modelVersion: string;
  outputs: InferTensor[];
  /** The response's parameters, as a model set them (a Python model's InferenceResponse(parameters=...)). */
  parameters?: Record<string, string | number | boolean>;
}

/**
 * One response of a decoupled model (model_transaction_policy { decoupled: true }), which sends
 * any number of responses for a request: its outputs, or the error of this response (the request
 * goes on), and whether it is the request's last. A request's last may carry neither (Triton's
 * final flag sent alone).
 */
export interface DecoupledResponse {
  response?: InferResponse;
  error?: InferError;
  final: boolean;
}

/** What a model observes of its requests' latencies (Triton's --metrics-config). */
export interface LatencyRecording {
  /** summary_latencies: the latency summaries. */
  summaries: boolean;
  /** histogram_latencies, for a decoupled model: the first-response histogram's buckets (ms). */
  firstResponseBucketsMs?: readonly number[];
}

/** A model's latency metrics, off until enabled. */
export interface LatencyMetrics {
  /**
   * Starts the latency metrics Triton's --metrics-config asks for: from now on each request is
   * observed. The model manager calls it once the model has loaded.
   */
  enable(which: LatencyRecording): void;
  /** The summaries' readings at `quantiles` ([0, 1]); undefined until enabled, or once unloaded. */
  readSummaries(quantiles: readonly number[]): LatencySummaries | undefined;
  /** A decoupled model's time to first response; undefined unless enabled (models that answer once have none). */
  readFirstResponse?(): HistogramReading | undefined;
}

/** {count, ns} as in Triton's statistics extension. */
export interface StatDuration {
  count: number;
  ns: number;
}

/** One model's statistics, shaped like Triton's /v2/models/{m}/stats entries. */
export interface ModelStatistics {
  name: string;
  version: string;
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: {
    success: StatDuration;
    fail: StatDuration;
    queue: StatDuration;
    compute_input: StatDuration;
    compute_infer: StatDuration;
    compute_output: StatDuration;
    /**
     * The response cache's (server/cached-model.ts): hits and their lookup time, misses and their
     * lookup and insertion time. Every model's statistics answer them, zero where absent (as Triton's).
     */
    cache_hit?: StatDuration;
    cache_miss?: StatDuration;
  };
  batch_stats: Array<{
    batch_size: number;
    compute_input: StatDuration;
    compute_infer: StatDuration;
    compute_output: StatDuration;
  }>;
}

export interface CompileReport {
  /** Input shapes compiled (with the batch dimension). */
  shapes: Record<string, number[]>;
  compileMs: number;
  arenaBytes: number;
  cached: boolean;
}

export type EngineName = 'cpu' | 'ascend' | 'ensemble' | 'python';

export interface LoadedModel {
  readonly name: string;
  readonly version: string;
  readonly engine: EngineName;
  readonly maxBatchSize: number;
  readonly inputs: TensorMetadata[];
  readonly outputs: TensorMetadata[];
  /** Inputs a request may leave out (config `optional: true`); none when absent. */
  readonly optionalInputs?: ReadonlySet<string>;
  /** Batch sizes the engine runs natively (gears); empty when any size runs. */
  readonly gears: number[];
  readonly instanceCount: number;
  infer(request: InferRequest): Promise<InferResponse>;
  /**
   * Set for a decoupled model: infer() refuses its requests, and inferDecoupled runs them,
   * calling `onResponse` for each response the model sends; it settles once the last one was sent
   * (rejecting when the request failed as a whole: refused, cancelled, its process gone).
   */
  readonly decoupled?: boolean;
  inferDecoupled?(request: InferRequest, onResponse: (r: DecoupledResponse) => void): Promise<void>;
  /**
   * A decoupled model whose responses can wait at their source: stops taking them until the
   * returned function is called (an ensemble's max_inflight_requests backpressure, as Triton
   * blocks the model's response sender).
   */
  holdResponses?(): () => void;
  stats(): ModelStatistics;
  /** The model's latency metrics (Triton's --metrics-config); absent where a model keeps none. */
  latencyMetrics?(): LatencyMetrics;
  /** Requests queued or running right now (nv_inference_pending_request_count). */
  pendingCount(): number;
  compile(shapes: Record<string, number[]>): Promise<CompileReport>;
  /** Waits for in-flight requests, rejects queued ones, frees everything. */
  unload(): Promise<void>;
  /**
   * The seam for native front ends: the model's native handle while it is loaded and not
   * unloading, which the native HTTP server's infer route runs requests on without JS. Models the
   * native executor does not run have none (their requests go through infer()).
   */
  nativeModel?(): NativeModel | undefined;
}

/**
 * An error an inference request caused, with its typed reason (the native core's failure table
 * gives its HTTP status, gRPC code and nv_inference_request_failure label).
 */
export class InferError extends Error {
  readonly failure: FailureName;
  constructor(message: string, failure: FailureName = 'INVALID_ARGUMENT') {
    super(message);
    this.name = 'InferError';
    this.failure = failure;
  }
  /** Triton's HTTP status for this failure: 400 bad request, 503 unavailable / queue full, 500 internal... */
  get status(): number {
    return traitsOf(this.failure).httpStatus;
  }
  /** Label for nv_inference_request_failure{reason}: REJECTED, CANCELED, BACKEND, OTHER. */
  get reason(): MetricReason {
    return traitsOf(this.failure).metricReason;
  }
}
