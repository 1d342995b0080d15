/**
 * The batch sizes ("gears") an NPU graph is compiled for. A graph compiled with gears runs only
 * those batch sizes, so the executor pads a merged batch up to the next gear.
 */
import type { ModelConfig } from '../config/model-config.js';
import { DYNAMIC_DIMS_KEY, INPUT_SHAPE_KEY, parseDynamicDims, type Parsed } from './ge-parameters.js';

export { DYNAMIC_DIMS_KEY, INPUT_SHAPE_KEY };

export interface Gears {
  /** Each gear: one value per -1 in the input shape (one value for a plain batch gear). */
  values: number[][];
  /** Where they came from, for messages. */
  source: 'graph.ge.dynamicDims' | 'dynamic_batching' | 'max_batch_size' | 'none';
}

export function parameter(config: ModelConfig, key: string): string | undefined {
  return config.parameters?.[key]?.string_value;
}

/**
 * `graph.ge.dynamicDims` when the config sets it (the GE backend compiles exactly those), otherwise
 * preferred_batch_size ∪ max_batch_size for a batching model, otherwise none (a static graph).
 */
export function gearsFromConfig(config: ModelConfig): Parsed<Gears> {
  const dims = parameter(config, DYNAMIC_DIMS_KEY);
  if (dims !== undefined) {
    const parsed = parseDynamicDims(dims);
    return parsed.ok ? { ok: true, value: { values: parsed.value, source: 'graph.ge.dynamicDims' } } : parsed;
  }
  const max = Number(config.max_batch_size ?? 0);
  if (max <= 0) return { ok: true, value: { values: [], source: 'none' } };
  const preferred = (config.dynamic_batching?.preferred_batch_size ?? []).map(Number);
  const sizes = [...new Set([...preferred.filter((s) => s > 0 && s <= max), max])].sort((a, b) => a - b);
  return { ok: true, value: { values: sizes.map((s) => [s]), source: preferred.length > 0 ? 'dynamic_batching' : 'max_batch_size' } };
}
