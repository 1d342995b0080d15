/** The executor part of the native addon, typed (see native/src/executor/). */
import { GebeError } from '../../errors.js';
import type { NativeModelOptions } from './load-options.js';
import { loadNativeAddon } from './native.js';

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

/** One finished request: [token, 0, [bytes, shape, ...per output]] or [token, status, message, reason]. */
export type NativeResult =
  | [number, 0, Array<Uint8Array | number[] | null>]
  | [number, 400 | 500 | 503, string, 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER'];

export interface NativeModel {
  metadata(): NativeMetadata;
  /** undefined when queued; [status, message, reason] when rejected at once. */
  infer(token: number, datas: Uint8Array[], shapes: number[][], outputMask: number, priority: number, timeoutUs: number,
    sequenceId?: number | bigint | string, sequenceFlags?: number):
    | undefined
    | [400 | 500 | 503, string, 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER'];
  stats(): NativeStats;
  pendingCount(): number;
  compile(shapes: Array<{ name: string; shape: number[] }>): Promise<{ compileMs: number; arenaBytes: number; cached: boolean }>;
  runDirect(datas: Uint8Array[], shapes: number[][]): Array<Uint8Array | number[]>;
  unload(): void;
  /** The input shapes clients must send (config dims, -1 for the batch dimension), in the engine's input order, for native request checks. */
  /** Input shapes clients must send and (optional) output shapes answers must have, config dims with -1 for the batch. */
  setClientShapes(shapes: number[][], outputShapes?: number[][]): void;
}

export interface NativeExecutor {
  /** onComplete gets one array per finished batch, and null once the model is unloaded. */
  loadModel(path: string, options: NativeModelOptions, onComplete: (results: NativeResult[] | null) => void): Promise<NativeModel>;
  engines(): Array<{ name: string; extensions: string[] }>;
}

export function nativeExecutor(): NativeExecutor {
  const addon = loadNativeAddon();
  const executor = addon.executor as NativeExecutor | undefined;
  if (!executor) {
    throw new GebeError('the native addon was built without the executor', {
      hint: 'rebuild it from this checkout with `npm run build:native`',
    });
  }
  return executor;
}
