/** The executor part of the native addon, typed (see native/src/executor/). */
import type { LatencySummaries } from './latency-summaries.js';
import type { NativeModelOptions } from './load-options.js';
import { nativeModule } from './native.js';
import type { NativeRequestTrace } from './trace-record.js';

export interface NativeTensorDesc {
  name: string;
  dtype: number;
  dims: number[];
  dimNames: string[];
}

export interface NativeMetadata {
  engine: string;
  inputs: NativeTensorDesc[];
  outputs: NativeTensorDesc[];
  gears: number[];
  /** Largest batch one execution runs: max_batch_size capped by the largest gear. */
  maxBatch: number;
  instanceCount: number;
}

export interface NativeStats {
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: Record<'success' | 'fail' | 'queue' | 'compute_input' | 'compute_infer' | 'compute_output', { count: number; ns: number }>;
  batch_stats: Array<{ batch_size: number } & Record<'compute_input' | 'compute_infer' | 'compute_output', { count: number; ns: number }>>;
}

/**
 * One finished request: [token, 0, [bytes, shape, ...per engine output]] or [token, reason,
 * message], reason a native FailureReason value (failure-reasons.ts reads its row).
 */
/** [token, 0, outputs] or [token, reason, message]; a 4th entry: the trace of a request a native front end received (it times the send). */
export type NativeResult = [number, 0, Array<Uint8Array | number[] | null>, NativeRequestTrace?] | [number, number, string, NativeRequestTrace?];

/** An opaque native value naming one queued request, for cancel(). */
export type CancelHandle = object & { readonly __cancelHandle?: never };

export interface NativeModel {
  metadata(): NativeMetadata;
  /**
   * One request, as the client sent it (the native core's Normalize checks it, as it checks
   * every front end's). undefined when queued (with `cancellable`, a handle for cancel());
   * [reason, message] when refused at once.
   */
  infer(
    token: number,
    names: string[],
    datatypes: string[],
    shapes: number[][],
    datas: Uint8Array[],
    outputs: string[] | null,
    priority: unknown,
    timeoutUs: unknown,
    sequenceId?: number | bigint | string,
    sequenceStart?: boolean,
    sequenceEnd?: boolean,
    cancellable?: boolean,
    /** [trace id, TIMESTAMPS, TENSORS] of the ensemble request this is a step of: traced as its child, at its levels. */
    parentTrace?: [number, boolean, boolean],
    /** When a native front end received the request (steady-clock ns), for its trace. */
    received?: [bigint, bigint, 'http' | 'grpc'],
    /** The client's W3C traceparent (OpenTelemetry context propagation). */
    traceparent?: string,
    /** The request's id, for its trace (Triton's request_id). */
    requestId?: string,
  ): undefined | [number, string] | CancelHandle;
  /** The request's caller went away: if it still waits in the queue, it fails with `reason`. */
  cancel(handle: CancelHandle, reason: number): void;
  stats(): NativeStats;
  /** Latency summaries (scheduler/latency_summary.h): observed from this call on. */
  enableLatencySummaries(): void;
  /** Their readings at `quantiles`; undefined before enableLatencySummaries() and once unloaded. */
  latencySummaries(quantiles: readonly number[]): LatencySummaries | undefined;
  pendingCount(): number;
  compile(shapes: Array<{ name: string; shape: number[] }>): Promise<{ compileMs: number; arenaBytes: number; cached: boolean }>;
  unload(): void;
  /**
   * What clients may send, in the engine's tensor order: config dims with -1 for the batch
   * dimension, which inputs may be left out, and the version responses name. Requests are
   * normalized against it; answers whose outputs break the output shapes fail.
   */
  setContract(version: string, inputShapes: number[][], outputShapes: number[][], optionalInputs: boolean[]): void;
}

export interface NativeExecutor {
  /** onComplete gets one array per finished batch, and null once the model is unloaded. */
  loadModel(path: string, options: NativeModelOptions, onComplete: (results: NativeResult[] | null) => void): Promise<NativeModel>;
  engines(): Array<{ name: string; extensions: string[] }>;
}

export function nativeExecutor(): NativeExecutor {
  return nativeModule<NativeExecutor>('executor', 'the executor');
}
