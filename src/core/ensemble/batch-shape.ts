/**
 * How an ensemble passes a tensor between a batching and a non-batching model (Triton's
 * EnsembleContext::ReshapeTensorDims): a tensor from a non-batching producer read by a batching
 * model gets a batch dimension of 1 when its shape is the model's dims; a batch-1 tensor read by a
 * non-batching model loses its batch dimension when its shape is not already the model's dims.
 * Otherwise the shape is passed as it is (and the composing model checks it).
 */
import { dimsCompatible } from './check.js';

/**
 * `configDims`: the reader's dims (without batch); `readerBatches`: its max_batch_size > 0;
 * `tensorBatch`: the batch size the tensor was produced with (0 when its producer does not batch).
 */
export function reshapeForReader(configDims: readonly number[], readerBatches: boolean, tensorBatch: number, shape: readonly number[]): number[] {
  if (readerBatches === (tensorBatch !== 0)) return [...shape];
  if (readerBatches) return dimsCompatible(configDims, shape) ? [1, ...shape] : [...shape];
  return !dimsCompatible(configDims, shape) && tensorBatch === 1 ? shape.slice(1) : [...shape];
}
