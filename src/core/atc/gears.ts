/**
 * The batch sizes ("gears") an NPU graph is compiled for. A graph compiled with gears runs only
 * those batch sizes, so the executor pads a merged batch up to the next gear.
 */
import type { ModelConfig } from '../config/model-config.js';

export interface Gears {
  /** Each gear: one value per -1 in the input shape (one value for a plain batch gear). */
  values: number[][];
  /** Where they came from, for messages. */
  source: 'graph.ge.dynamicDims' | 'dynamic_batching' | 'max_batch_size' | 'none';
}

export const DYNAMIC_DIMS_KEY = 'graph.ge.dynamicDims';
export const INPUT_SHAPE_KEY = 'graph.ge.inputShape';

export function parameter(config: ModelConfig, key: string): string | undefined {
  return config.parameters?.[key]?.string_value;
}

/**
 * `graph.ge.dynamicDims` when the config sets it (the GE backend compiles exactly those), otherwise
 * preferred_batch_size ∪ max_batch_size for a batching model, otherwise none (a static graph).
 */
export function gearsFromConfig(config: ModelConfig): Gears {
  const dims = parameter(config, DYNAMIC_DIMS_KEY);
  if (dims !== undefined) return { values: parseDynamicDims(dims), source: 'graph.ge.dynamicDims' };
  const max = config.max_batch_size ?? 0;
  if (max <= 0) return { values: [], source: 'none' };
  const preferred = config.dynamic_batching?.preferred_batch_size ?? [];
  const sizes = [...new Set([...preferred.filter((s) => s > 0 && s <= max), max])].sort((a, b) => a - b);
  return { values: sizes.map((s) => [s]), source: preferred.length > 0 ? 'dynamic_batching' : 'max_batch_size' };
}

/** "1;2;4;8" → [[1],[2],[4],[8]]; "1,224;2,224" → [[1,224],[2,224]]. Throws with the bad piece. */
export function parseDynamicDims(text: string): number[][] {
  const gears = text.split(';').map((gear) =>
    gear.split(',').map((v) => {
      const n = Number(v.trim());
      if (v.trim() === '' || !Number.isInteger(n) || n < 1) {
        throw new Error(`"${gear}" in "${text}" is not a list of positive integers`);
      }
      return n;
    }),
  );
  return gears;
}

/** The batch sizes of batch-only gears ([[1],[2]] → [1, 2]); undefined when gears have several values. */
export function batchSizes(gears: Gears): number[] | undefined {
  return gears.values.every((g) => g.length === 1) ? gears.values.map((g) => g[0]!) : undefined;
}
