/**
 * What a warmup runs for one model (`gebe warmup`; `gebe serve` at load, for model_warmup): the
 * config's model_warmup entries (Triton semantics: inputs given per sample and repeated to
 * batch_size; zero_data, random_data or input_data_file from <model>/warmup/; count executions, at
 * least one), or, without entries, one zero-data warmup per gear / preferred batch size /
 * max_batch_size.
 */
import { outsideMessage, resolveInside } from '../repository/inside.js';
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { ModelConfig, ModelWarmupConfig } from '../config/model-config.js';
import type { Datatype, InferTensor } from '../executor/types.js';
import type { ModelDescription } from '../kserve/client/types.js';
import { DATATYPE_SIZE, datatypeFromConfig } from '../kserve/datatypes.js';

export interface WarmupStep {
  name: string;
  batchSize: number;
  /** Executions the warmup itself asks for (Triton's count, at least 1). */
  count: number;
  /** Full request tensors (batch dimension included when the model batches). */
  inputs: InferTensor[];
}

export interface WarmupPlan {
  source: 'model_warmup' | 'default';
  steps: WarmupStep[];
}

/** Batch sizes to warm when the config has no model_warmup: gears, else preferred ∪ max, else 1. */
export function defaultBatchSizes(config: ModelConfig, gears: number[]): number[] {
  if (gears.length > 0) return [...gears].sort((a, b) => a - b);
  const max = config.max_batch_size ?? 0;
  if (max <= 0) return [1];
  const preferred = (config.dynamic_batching?.preferred_batch_size ?? []).filter((s) => s > 0 && s <= max);
  return [...new Set([...preferred, max])].sort((a, b) => a - b);
}

export function planWarmup(config: ModelConfig, model: ModelDescription, gears: number[], modelDir: string | undefined, configFile: string): WarmupPlan {
  const entries = config.model_warmup ?? [];
  if (entries.length > 0) {
    return { source: 'model_warmup', steps: entries.map((e, i) => stepFromEntry(e, i, config, modelDir, configFile)) };
  }
  const batched = model.maxBatchSize > 0;
  const steps = defaultBatchSizes(config, gears).map((batchSize) => ({
    name: `zeros_batch_${batchSize}`,
    batchSize,
    count: 1,
    inputs: model.inputs.map((input) => {
      const dims = (batched ? input.shape.slice(1) : input.shape).map((d) => (d < 0 ? 1 : d));
      return tensor(input.name, input.datatype, batched ? [batchSize, ...dims] : dims, zeros(input.datatype, count(dims)), batched ? batchSize : 1);
    }),
  }));
  return { source: 'default', steps };
}

/** model_warmup entries for batch sizes, zero data with the config's input dims: what --write adds. */
export function warmupEntries(config: ModelConfig, batchSizes: number[]): ModelWarmupConfig[] {
  return batchSizes.map((batchSize) => ({
    name: `zeros_batch_${batchSize}`,
    batch_size: batchSize,
    inputs: Object.fromEntries((config.input ?? []).map((t) => [t.name, {
      data_type: t.data_type,
      dims: t.dims.map((d) => (d < 0 ? 1 : d)),
      zero_data: true,
    }])),
  }));
}

function stepFromEntry(entry: ModelWarmupConfig, index: number, config: ModelConfig, modelDir: string | undefined, configFile: string): WarmupStep {
  const where = `${configFile}: model_warmup[${index}] "${entry.name}"`;
  const batched = (config.max_batch_size ?? 0) > 0;
  const batchSize = entry.batch_size ?? 1;
  if (batchSize < 1) throw new GebeError(`${where} has batch_size ${batchSize}; it must be at least 1`);
  if (!batched && batchSize !== 1) throw new GebeError(`${where} has batch_size ${batchSize} but the model does not batch (max_batch_size 0); use batch_size 1`);
  const inputs = Object.entries(entry.inputs ?? {}).map(([name, spec]) => {
    const datatype = datatypeFromConfig(spec.data_type);
    if (!datatype) throw new GebeError(`${where}: input "${name}" has data_type ${spec.data_type}, which cannot be sent`);
    const dims = spec.dims ?? [];
    const n = count(dims);
    let sample: Uint8Array;
    if (spec.input_data_file !== undefined) {
      sample = readWarmupFile(modelDir, spec.input_data_file, datatype, n, `${where}: input "${name}"`);
    } else if (spec.random_data) {
      sample = random(datatype, n);
    } else {
      sample = zeros(datatype, n);
    }
    return tensor(name, datatype, batched ? [batchSize, ...dims] : dims, sample, batched ? batchSize : 1);
  });
  return { name: entry.name, batchSize, count: Math.max(1, entry.count ?? 0), inputs };
}

function readWarmupFile(modelDir: string | undefined, file: string, datatype: Datatype, n: number, where: string): Uint8Array {
  if (!modelDir) throw new GebeError(`${where} reads input_data_file "${file}", which needs the model directory`, { hint: 'pass the repository so warmup/ can be read' });
  const full = path.join(modelDir, 'warmup', file);
  const inside = resolveInside(modelDir, path.join(modelDir, 'warmup'), file);
  if (!inside.ok && inside.reason === 'outside') {
    throw new GebeError(`${where}: ${outsideMessage('input_data_file', file)}`, { hint: `put the file in ${path.join(modelDir, 'warmup')}/ and name it relative to that folder` });
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(full);
  } catch {
    throw new GebeError(`${where}: input_data_file ${path.join('warmup', file)} cannot be read`, { hint: `put the raw little-endian tensor bytes in ${full}` });
  }
  const want = n * DATATYPE_SIZE[datatype];
  if (datatype !== 'BYTES' && bytes.byteLength !== want) {
    throw new GebeError(`${where}: input_data_file ${path.join('warmup', file)} has ${bytes.byteLength} bytes, but ${n} ${datatype} values need ${want}`, {
      hint: 'write exactly one sample (dims, without the batch) as raw little-endian bytes',
    });
  }
  return new Uint8Array(bytes);
}

function tensor(name: string, datatype: Datatype, shape: number[], sample: Uint8Array, copies: number): InferTensor {
  const data = new Uint8Array(sample.byteLength * copies);
  for (let i = 0; i < copies; i++) data.set(sample, i * sample.byteLength);
  return { name, datatype, shape, data };
}

function count(dims: number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

function zeros(datatype: Datatype, n: number): Uint8Array {
  // A BYTES zero element is an empty string: a 4-byte zero length.
  return new Uint8Array(datatype === 'BYTES' ? n * 4 : n * DATATYPE_SIZE[datatype]);
}

function random(datatype: Datatype, n: number): Uint8Array {
  if (datatype === 'FP32') return new Uint8Array(Float32Array.from({ length: n }, () => Math.random()).buffer);
  if (datatype === 'FP64') return new Uint8Array(Float64Array.from({ length: n }, () => Math.random()).buffer);
  if (datatype === 'BYTES') return zeros(datatype, n);
  if (datatype === 'BOOL') return Uint8Array.from({ length: n }, () => (Math.random() < 0.5 ? 1 : 0));
  // Integers and half floats: random bytes, kept small so half floats stay finite and indices stay low.
  return Uint8Array.from({ length: n * DATATYPE_SIZE[datatype] }, (_, i) => ((i % DATATYPE_SIZE[datatype]) === 0 ? Math.floor(Math.random() * 4) : 0));
}
