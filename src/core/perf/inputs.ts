/**
 * Builds the request tensors for one batch size from the model's description, --shape and
 * --input-data (zero, random, a perf_analyzer-style JSON file, or a directory of per-input
 * sample files). Bad input is a one-line error.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Datatype, InferTensor, TensorMetadata } from '../executor/types.js';
import { UsageError } from '../../errors.js';
import type { ModelDescription, RequestInputs } from '../kserve/client/types.js';
import { elementSize } from '../kserve/datatypes.js';
import { joinBytesElements } from '../kserve/codec/bytes-elements.js';
import { stringSample, type GeneratedStrings } from './generated-strings.js';
import { readDataDirectory } from './input-data-directory.js';

/** Generated data (zero or random; `strings`: what BYTES inputs get) or a JSON file's. */
export type InputDataSpec = { kind: 'zero' | 'random'; strings?: GeneratedStrings } | { kind: 'file'; path: string };

/** One sample's dims (no batch dimension) for every input, with dynamic dims filled from --shape. */
export function resolveSampleDims(model: ModelDescription, shapes: Record<string, number[]>): Record<string, number[]> {
  const known = new Set(model.inputs.map((i) => i.name));
  for (const name of Object.keys(shapes)) {
    if (!known.has(name)) {
      throw new UsageError(`--shape names input "${name}", which model "${model.name}" does not have; its inputs are ${[...known].map((n) => `"${n}"`).join(', ')}`);
    }
  }
  const dims: Record<string, number[]> = {};
  const missing: string[] = [];
  for (const input of model.inputs) {
    const declared = model.maxBatchSize > 0 ? input.shape.slice(1) : input.shape;
    const given = shapes[input.name];
    if (given) {
      const fits = given.length === declared.length && declared.every((d, i) => d < 0 || d === given[i]);
      if (!fits) {
        throw new UsageError(`--shape ${input.name}:${given.join(',')} does not fit input "${input.name}" declared as [${declared.join(',')}] (without the batch dimension); give ${declared.length} dims that keep the fixed ones`);
      }
      dims[input.name] = given;
    } else if (declared.some((d) => d < 0)) {
      missing.push(`${input.name} [${declared.join(',')}]`);
    } else {
      dims[input.name] = declared;
    }
  }
  if (missing.length > 0) {
    const example = model.inputs.filter((i) => !dims[i.name]).map((i) => {
      const declared = model.maxBatchSize > 0 ? i.shape.slice(1) : i.shape;
      return `--shape ${i.name}:${declared.map((d) => (d < 0 ? 1 : d)).join(',')}`;
    }).join(' ');
    throw new UsageError(`model "${model.name}" has dynamic dims in ${missing.join(', ')}; pass the shape to send for each, e.g. ${example}`);
  }
  return dims;
}

/** Refuses batch sizes the model cannot take, before any request is sent. */
export function checkBatchSize(model: ModelDescription, batchSize: number): void {
  if (model.maxBatchSize === 0 && batchSize > 1) {
    throw new UsageError(`-b ${batchSize}: model "${model.name}" does not batch (max_batch_size 0); use -b 1, or set max_batch_size in its config.pbtxt`);
  }
  if (model.maxBatchSize > 0 && batchSize > model.maxBatchSize) {
    throw new UsageError(`-b ${batchSize}: batch size is above max_batch_size ${model.maxBatchSize} of model "${model.name}"; use -b ${model.maxBatchSize} or less, or raise max_batch_size in its config.pbtxt`);
  }
}

function elementCount(dims: number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/** Zeros of a fixed-size datatype (BYTES inputs are generated-strings.ts's). */
function zeroSample(datatype: Datatype, count: number): Uint8Array {
  return new Uint8Array(count * elementSize(datatype));
}

/** Random values of a fixed-size datatype (BYTES inputs are generated-strings.ts's). */
function randomSample(datatype: Datatype, count: number): Uint8Array {
  switch (datatype) {
    case 'FP32': return bytesOf(Float32Array.from({ length: count }, () => Math.random()));
    case 'FP64': return bytesOf(Float64Array.from({ length: count }, () => Math.random()));
    // Half floats in [0.5, 1): exponent 0x3800 plus a random mantissa; never NaN or Inf.
    case 'FP16': return bytesOf(Uint16Array.from({ length: count }, () => 0x3800 | Math.floor(Math.random() * 1024)));
    case 'BF16': return bytesOf(Uint16Array.from({ length: count }, () => 0x3f00 | Math.floor(Math.random() * 128)));
    case 'BOOL': return Uint8Array.from({ length: count }, () => (Math.random() < 0.5 ? 0 : 1));
    default: {
      // Small non-negative integers: random bytes would send huge indices that many models reject.
      const size = elementSize(datatype);
      const out = new Uint8Array(count * size);
      for (let i = 0; i < count; i++) out[i * size] = Math.floor(Math.random() * 100);
      return out;
    }
  }
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function repeat(sample: Uint8Array, times: number): Uint8Array {
  const out = new Uint8Array(sample.byteLength * times);
  for (let i = 0; i < times; i++) out.set(sample, i * sample.byteLength);
  return out;
}

function fullShape(model: ModelDescription, batchSize: number, dims: number[]): number[] {
  return model.maxBatchSize > 0 ? [batchSize, ...dims] : dims;
}

/**
 * The request(s) to send at one batch size: one for zero/random data, one per entry of a JSON
 * file, one for a directory of per-input sample files (perf_analyzer's two data formats).
 */
export function buildRequests(
  model: ModelDescription,
  batchSize: number,
  sampleDims: Record<string, number[]>,
  data: InputDataSpec,
): RequestInputs[] {
  if (data.kind === 'file') {
    if (isDirectory(data.path)) {
      return readDataDirectory(data.path, model, batchSize, sampleDims, (dims) => fullShape(model, batchSize, dims), repeat);
    }
    return readDataFile(data.path, model, batchSize, sampleDims);
  }
  const make = data.kind === 'zero' ? zeroSample : randomSample;
  return [model.inputs.map((input): InferTensor => {
    const dims = sampleDims[input.name]!;
    const count = elementCount(dims);
    const sample = input.datatype === 'BYTES' ? stringSample(input.name, data.kind, count, batchSize, data.strings) : make(input.datatype, count);
    return {
      name: input.name,
      datatype: input.datatype,
      shape: fullShape(model, batchSize, dims),
      data: repeat(sample, batchSize),
    };
  })];
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;  // readDataFile names what is wrong with it
  }
}

function encodeValues(datatype: Datatype, values: unknown[], where: string): Uint8Array {
  const nums = () => values.map((v) => {
    if (typeof v !== 'number' && typeof v !== 'boolean') throw new UsageError(`${where}: expected numbers for a ${datatype} input, found ${JSON.stringify(v)}`);
    return Number(v);
  });
  switch (datatype) {
    case 'FP32': return bytesOf(Float32Array.from(nums()));
    case 'FP64': return bytesOf(Float64Array.from(nums()));
    case 'INT8': return bytesOf(Int8Array.from(nums()));
    case 'UINT8': return bytesOf(Uint8Array.from(nums()));
    case 'INT16': return bytesOf(Int16Array.from(nums()));
    case 'UINT16': return bytesOf(Uint16Array.from(nums()));
    case 'INT32': return bytesOf(Int32Array.from(nums()));
    case 'UINT32': return bytesOf(Uint32Array.from(nums()));
    case 'INT64': return bytesOf(BigInt64Array.from(nums().map((n) => BigInt(Math.trunc(n)))));
    case 'UINT64': return bytesOf(BigUint64Array.from(nums().map((n) => BigInt(Math.trunc(n)))));
    case 'BOOL': return Uint8Array.from(nums().map((n) => (n ? 1 : 0)));
    case 'BYTES': {
      const enc = new TextEncoder();
      return joinBytesElements(values.map((v) => enc.encode(String(v))));
    }
    case 'FP16': case 'BF16':
      throw new UsageError(`${where}: ${datatype} values must be given as {"b64": "..."} (raw little-endian bytes)`);
  }
}

function readDataFile(path: string, model: ModelDescription, batchSize: number, sampleDims: Record<string, number[]>): RequestInputs[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new UsageError(`--input-data ${path}: ${why}; give zero, random, a JSON file {"data": [{"<input>": [values]}]}, or a directory with one file per input`);
  }
  const entries = (parsed as { data?: unknown }).data;
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new UsageError(`--input-data ${path}: expected {"data": [ {"<input name>": [values], ...}, ... ]} with at least one entry`);
  }
  const names = model.inputs.map((i) => i.name);
  return entries.map((entry, index) => {
    const where = `--input-data ${path}: data[${index}]`;
    if (typeof entry !== 'object' || entry === null) throw new UsageError(`${where} is not an object of input name → values`);
    for (const key of Object.keys(entry)) {
      if (!names.includes(key)) throw new UsageError(`${where} names input "${key}", which model "${model.name}" does not have; its inputs are ${names.map((n) => `"${n}"`).join(', ')}`);
    }
    return model.inputs.map((input: TensorMetadata): InferTensor => {
      const raw = (entry as Record<string, unknown>)[input.name];
      if (raw === undefined) throw new UsageError(`${where} has no values for input "${input.name}"; add "${input.name}": [...]`);
      let dims = sampleDims[input.name]!;
      let bytes: Uint8Array;
      if (Array.isArray(raw)) {
        bytes = encodeValues(input.datatype, raw.flat(Infinity), `${where}.${input.name}`);
        const n = raw.flat(Infinity).length;
        if (n !== elementCount(dims)) {
          throw new UsageError(`${where}.${input.name} has ${n} values but one sample of shape [${dims.join(',')}] needs ${elementCount(dims)}; fix the data or pass --shape ${input.name}:...`);
        }
      } else if (raw && typeof raw === 'object' && ('content' in raw || 'b64' in raw)) {
        const obj = raw as { content?: unknown[]; b64?: string; shape?: number[] };
        if (obj.shape) dims = obj.shape;
        bytes = obj.b64 !== undefined ? new Uint8Array(Buffer.from(obj.b64, 'base64')) : encodeValues(input.datatype, (obj.content ?? []).flat(Infinity), `${where}.${input.name}`);
        if (input.datatype !== 'BYTES' && bytes.byteLength !== elementCount(dims) * elementSize(input.datatype)) {
          throw new UsageError(`${where}.${input.name} holds ${bytes.byteLength} bytes but shape [${dims.join(',')}] of ${input.datatype} needs ${elementCount(dims) * elementSize(input.datatype)}; fix the data or its "shape"`);
        }
      } else {
        throw new UsageError(`${where}.${input.name} must be an array of values or {"content": [...], "shape": [...]}`);
      }
      return { name: input.name, datatype: input.datatype, shape: fullShape(model, batchSize, dims), data: repeat(bytes, batchSize) };
    });
  });
}
