/**
 * Checks an inference request against the model before it crosses into native code, with the
 * messages users know from Triton. Works on shapes and byte lengths only (no per-element work,
 * except counting BYTES elements, whose sizes live in the data).
 */
import { formatShape } from './format-shape.js';
import { elementSize } from './datatypes.js';
import type { InferRequest, TensorMetadata } from './types.js';
import { InferError } from './types.js';

export interface RequestContract {
  name: string;
  /** Config max_batch_size; > 0 means shapes start with the batch dimension. */
  maxBatchSize: number;
  /** The largest batch one request may carry (max_batch_size capped by the largest gear). */
  maxRequestBatch: number;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  /** Inputs that may be omitted (config `optional: true`). */
  optionalInputs: ReadonlySet<string>;
}

export interface ValidatedRequest {
  /** In the model's input order. */
  datas: Uint8Array[];
  shapes: number[][];
  outputMask: number;
  /** Indexes of the outputs to return. */
  outputIndexes: number[];
  priority: number;
  timeoutUs: number;
}

const fmt = formatShape;
const list = (names: string[]): string => `[${names.map((n) => `'${n}'`).join(',')}]`;

const batchNote =
  ' NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be prepended to each ' +
  'input shape. If you want to specify the full shape including the batch dim in your input dims config, try setting ' +
  'max_batch_size to zero. See the model configuration docs for more info on max_batch_size.';

function shapeMatches(expected: readonly number[], got: readonly number[]): boolean {
  if (expected.length !== got.length) return false;
  return expected.every((d, i) => Number.isInteger(got[i]) && got[i]! >= 0 && (d === -1 || d === got[i]));
}

/** Elements in a KServe BYTES tensor (4-byte little-endian length + bytes each), or -1 if malformed. */
function countStrings(data: Uint8Array): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = 0;
  let count = 0;
  while (offset < data.byteLength) {
    if (offset + 4 > data.byteLength) return -1;
    offset += 4 + view.getUint32(offset, true);
    if (offset > data.byteLength) return -1;
    count += 1;
  }
  return count;
}

const inputIndexes = new WeakMap<RequestContract, Map<string, number>>();

export function validateRequest(model: RequestContract, request: InferRequest): ValidatedRequest {
  const m = model.name;
  if (!request || !Array.isArray(request.inputs)) throw new InferError(`inference request for model '${m}' has no inputs array`);
  let index = inputIndexes.get(model);
  if (!index) {
    index = new Map(model.inputs.map((t, i) => [t.name, i]));
    inputIndexes.set(model, index);
  }
  const datas: Uint8Array[] = new Array(model.inputs.length);
  const shapes: number[][] = new Array(model.inputs.length);
  let batch = -1;
  for (const input of request.inputs) {
    const i = index.get(input?.name);
    if (i === undefined) {
      throw new InferError(`unexpected inference input '${input?.name}' for model '${m}'; its inputs are ${list(model.inputs.map((t) => t.name))}`);
    }
    if (datas[i] !== undefined) throw new InferError(`input '${input.name}' appears more than once in the request for model '${m}'`);
    const meta = model.inputs[i]!;
    if (input.datatype !== meta.datatype) {
      throw new InferError(`inference input '${input.name}' data-type is '${input.datatype}', but model '${m}' expects '${meta.datatype}'`);
    }
    if (!Array.isArray(input.shape) || !shapeMatches(meta.shape, input.shape)) {
      const note = model.maxBatchSize > 0 && Array.isArray(input.shape) && input.shape.length === meta.shape.length - 1 ? batchNote : '';
      throw new InferError(
        `unexpected shape for input '${input.name}' for model '${m}'. Expected ${fmt(meta.shape)}, got ${fmt(input.shape ?? [])}.${note}`,
      );
    }
    if (!(input.data instanceof Uint8Array)) {
      throw new InferError(`Expected a Uint8Array for the data of input '${input.name}' of model '${m}'`, 500);
    }
    if (model.maxBatchSize > 0) {
      const rows = input.shape[0]!;
      if (batch === -1) batch = rows;
      else if (rows !== batch) throw new InferError(`input '${input.name}' batch size does not match other inputs for '${m}'`);
    }
    const elements = input.shape.reduce((a, b) => a * b, 1);
    const size = elementSize(meta.datatype);
    if (size > 0) {
      if (input.data.byteLength !== elements * size) {
        throw new InferError(
          `input byte size mismatch for input '${input.name}' for model '${m}'. Expected ${elements * size}, got ${input.data.byteLength}`,
        );
      }
    } else {
      const strings = countStrings(input.data);
      if (strings !== elements) {
        throw new InferError(
          strings < 0
            ? `input '${input.name}' for model '${m}' is not valid BYTES data: each element needs a 4-byte little-endian length, then its bytes`
            : `unexpected number of string elements for input '${input.name}' for model '${m}'. Expected ${elements}, got ${strings}`,
        );
      }
    }
    datas[i] = input.data;
    shapes[i] = input.shape;
  }
  const missing = model.inputs.filter((t, i) => datas[i] === undefined && !model.optionalInputs.has(t.name)).map((t) => t.name);
  if (missing.length > 0) {
    const got = request.inputs.map((t) => t.name);
    throw new InferError(
      `expected ${model.inputs.length} inputs but got ${request.inputs.length} inputs for model '${m}'. ` +
        `Got input(s) ${list(got)}, but missing required input(s) ${list(missing)}. Please provide all required input(s).`,
    );
  }
  if (model.maxBatchSize > 0 && (batch < 1 || batch > model.maxRequestBatch)) {
    throw new InferError(
      batch < 1
        ? `inference request batch-size must be >= 1 for '${m}'`
        : `inference request batch-size must be <= ${model.maxRequestBatch} for '${m}'`,
    );
  }
  // Optional inputs the client left out still need a tensor for the engine: an empty one.
  for (let i = 0; i < datas.length; i += 1) {
    if (datas[i] === undefined) {
      datas[i] = new Uint8Array(0);
      shapes[i] = model.inputs[i]!.shape.map((d, k) => (k === 0 && model.maxBatchSize > 0 ? Math.max(batch, 1) : 0));
    }
  }

  let outputMask = 0;
  let outputIndexes: number[];
  if (request.outputs === undefined) {
    outputIndexes = model.outputs.map((_, i) => i);
    outputMask = -1;
  } else {
    outputIndexes = request.outputs.map((name) => {
      const i = model.outputs.findIndex((t) => t.name === name);
      if (i < 0) throw new InferError(`unexpected inference output '${name}' for model '${m}'`);
      return i;
    });
    // Bit i asks for output i; -1 (all bits) when an index does not fit a 31-bit mask.
    outputMask = outputIndexes.some((i) => i >= 31) ? -1 : outputIndexes.reduce((mask, i) => mask | (1 << i), 0);
  }

  const priority = request.priority ?? 0;
  if (!Number.isSafeInteger(priority) || priority < 0 || priority > 0xffffffff) {
    throw new InferError(`Expected a non-negative integer for the priority of a request to '${m}' but received ${priority}`);
  }
  const timeoutUs = request.timeoutUs ?? 0;
  if (!Number.isSafeInteger(timeoutUs) || timeoutUs < 0) {
    throw new InferError(`Expected a non-negative integer for the timeout (µs) of a request to '${m}' but received ${timeoutUs}`);
  }
  return { datas, shapes, outputMask, outputIndexes, priority, timeoutUs };
}
