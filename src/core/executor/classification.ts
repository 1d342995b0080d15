/**
 * Triton's classification extension for the outputs JS answers (ensembles, Python and sequence
 * models): the native core's one implementation (native/src/executor/classification.cc, which the
 * native HTTP and gRPC routes call too), reached through the addon, so every path prints the
 * same classes in the same way.
 */
import { failureOf } from './failure-reasons.js';
import { loadNativeAddon } from './native.js';
import { InferError, type InferTensor } from './types.js';

/** One output's labels, held natively: made once at load, shared with the native routes by publication. */
export type ClassLabels = object & { readonly __classLabels?: never };

interface NativeClassification {
  labels(lines: readonly string[]): ClassLabels;
  classify(
    name: string, datatype: string, shape: number[], data: Uint8Array, k: number, batched: boolean, labels: ClassLabels | null,
  ): { shape: number[]; data: Uint8Array } | { reason: number; message: string };
}

let native: NativeClassification | undefined;
const addon = (): NativeClassification => (native ??= loadNativeAddon().classification as NativeClassification);

/** The labels of one output (index → label; an empty line is no label), as the classification reads them. */
export function classLabels(lines: readonly string[]): ClassLabels {
  return addon().labels(lines);
}

/**
 * The classification of one output tensor: BYTES, per batch entry (`batched`: its first
 * dimension is the batch) the k largest values, "value:index" or "value:index:label". Throws the
 * InferError Triton words for a type it has no class results for.
 */
export function classify(tensor: InferTensor, k: number, labels: ClassLabels | undefined, batched: boolean): InferTensor {
  const result = addon().classify(tensor.name, tensor.datatype, tensor.shape, tensor.data, k, batched, labels ?? null);
  if ('reason' in result) throw new InferError(result.message, failureOf(result.reason).name);
  return { name: tensor.name, datatype: 'BYTES', shape: result.shape, data: result.data };
}
