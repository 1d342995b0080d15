/**
 * Decodes a KServe v2 HTTP infer request body: JSON alone, or a JSON header of
 * `Inference-Header-Content-Length` bytes followed by binary tensor data. Binary inputs become
 * views over the received body (no copies, no per-element work).
 */
import type { Datatype, InferRequest, InferTensor } from '../../executor/types.js';
import { parseJsonAllowingNonFinite } from '../../json/nan-json.js';
import { isDatatype } from '../datatypes.js';
import { ProtocolError } from '../protocol-error.js';
import { fromTemplate, rememberTemplate } from './header-templates.js';
import type { DecodedHttpInfer, OutputEncoding } from './decoded-http-infer.js';

import { jsonDataToBytes } from './json-tensor.js';
import { carriesDataToo, NO_SHARED_MEMORY, sharedMemoryPlace, type SharedMemoryLookup } from './shared-memory-params.js';
import { describe, elementCount, parseShape } from './shape.js';

type Json = Record<string, unknown>;

/**
 * `headerLength` is the parsed Inference-Header-Content-Length, or undefined for a JSON-only body;
 * `shm` finds the shared-memory regions tensors may name (none without it).
 */
export function decodeHttpInferRequest(body: Buffer, headerLength: number | undefined, shm: SharedMemoryLookup = NO_SHARED_MEMORY): DecodedHttpInfer {
  const jsonEnd = headerLength ?? body.byteLength;
  if (jsonEnd > body.byteLength) {
    throw ProtocolError.badRequest(`Inference-Header-Content-Length is ${jsonEnd} but the body has only ${body.byteLength} bytes`);
  }
  const text = body.toString('utf8', 0, jsonEnd);
  if (headerLength === undefined) return decodeHeader(text, body, jsonEnd, shm).decoded;
  const known = fromTemplate(text, body, jsonEnd);
  if (known) return known;
  const { decoded, allBinary } = decodeHeader(text, body, jsonEnd, shm);
  rememberTemplate(text, decoded, allBinary);
  return decoded;
}

function decodeHeader(text: string, body: Buffer, jsonEnd: number, shm: SharedMemoryLookup): { decoded: DecodedHttpInfer; allBinary: boolean } {
  const header = parseJsonObject(text);
  const params = optionalObject(header.parameters, 'parameters');
  const request: InferRequest = { inputs: [] };
  if (header.id !== undefined) {
    if (typeof header.id !== 'string') throw ProtocolError.badRequest(`request 'id' must be a string, got ${describe(header.id)}`);
    request.id = header.id;
  }
  if (params) applyRequestParameters(params, request);

  if (!Array.isArray(header.inputs) || header.inputs.length === 0) {
    throw ProtocolError.badRequest(`request must have a non-empty 'inputs' array, got ${describe(header.inputs)}`);
  }
  let offset = jsonEnd;
  let allBinary = true;
  for (const [i, raw] of header.inputs.entries()) {
    const { tensor, consumed, binary } = decodeInput(raw, i, body, offset, shm);
    request.inputs.push(tensor);
    offset += consumed;
    allBinary &&= binary;
  }
  if (offset !== body.byteLength) {
    throw ProtocolError.badRequest(`unexpected ${body.byteLength - offset} bytes of binary data after the last input; 'binary_data_size' of the inputs adds up to ${offset - jsonEnd}`);
  }
  const encoding: OutputEncoding = { binary: new Map(), binaryByDefault: params?.binary_data_output === true, classes: new Map(), shared: new Map() };
  if (header.outputs !== undefined) {
    if (!Array.isArray(header.outputs)) throw ProtocolError.badRequest(`'outputs' must be an array, got ${describe(header.outputs)}`);
    request.outputs = header.outputs.map((o, i) => decodeRequestedOutput(o, i, encoding, shm));
  }
  return { decoded: { request, encoding }, allBinary };
}

export function parseJsonObject(text: string): Json {
  let parsed: unknown;
  try {
    parsed = parseJsonAllowingNonFinite(text);
  } catch (err) {
    throw ProtocolError.badRequest(`failed to parse the request JSON buffer: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw ProtocolError.badRequest(`the request JSON must be an object, got ${describe(parsed)}`);
  }
  return parsed as Json;
}

export function optionalObject(value: unknown, what: string): Json | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw ProtocolError.badRequest(`'${what}' must be an object, got ${describe(value)}`);
  }
  return value as Json;
}

/** Request parameters gebe itself reads; the others go to the model as sent (InferRequest.parameters). */
export const RESERVED_PARAMETERS: ReadonlySet<string> = new Set(['priority', 'timeout', 'sequence_id', 'sequence_start', 'sequence_end', 'binary_data_output']);

/** Keeps a request parameter for the model (InferRequest.parameters): one gebe does not read itself, with a string, number or boolean value. */
export function addModelParameter(request: InferRequest, key: string, value: unknown): void {
  if (RESERVED_PARAMETERS.has(key) || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')) return;
  (request.parameters ??= {})[key] = value;
}

/**
 * `priority` and `timeout` (µs) go to the scheduler, `sequence_id`, `sequence_start` and
 * `sequence_end` to the sequence batcher, as sent: the native core's Normalize judges them
 * (native/src/executor/sequence_parameters.cc for the sequence ones), for every path and model.
 */
export function applyRequestParameters(params: Json, request: InferRequest): void {
  for (const [key, value] of Object.entries(params)) addModelParameter(request, key, value);
  if (params.priority !== undefined) request.priority = params.priority as number;
  if (params.timeout !== undefined) request.timeoutUs = params.timeout as number;
  if (params.sequence_id !== undefined) request.sequenceId = params.sequence_id as InferRequest['sequenceId'];
  if (params.sequence_start !== undefined) request.sequenceStart = params.sequence_start as boolean;
  if (params.sequence_end !== undefined) request.sequenceEnd = params.sequence_end as boolean;
  const bdo = params.binary_data_output;
  if (bdo !== undefined && typeof bdo !== 'boolean') {
    throw ProtocolError.badRequest(`request parameter 'binary_data_output' must be a boolean, got ${JSON.stringify(bdo)}`);
  }
}

function decodeInput(raw: unknown, index: number, body: Buffer, offset: number, shm: SharedMemoryLookup): { tensor: InferTensor; consumed: number; binary: boolean } {
  const input = optionalObject(raw, `inputs[${index}]`);
  if (!input) throw ProtocolError.badRequest(`inputs[${index}] must be an object`);
  if (typeof input.name !== 'string' || input.name === '') {
    throw ProtocolError.badRequest(`inputs[${index}] must have a 'name' string`);
  }
  const name = input.name;
  if (!isDatatype(input.datatype)) {
    throw ProtocolError.badRequest(`input '${name}' has unknown datatype ${JSON.stringify(input.datatype) ?? 'undefined'}; expected one of BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, BF16, FP32, FP64, BYTES`);
  }
  const datatype: Datatype = input.datatype;
  const shape = parseShape(input.shape, name);
  const params = optionalObject(input.parameters, `parameters of input '${name}'`);
  const place = sharedMemoryPlace(params, `input '${name}'`);
  if (place) {
    if (input.data !== undefined || params?.binary_data_size !== undefined) {
      throw carriesDataToo(name, place);
    }
    return { tensor: { name, datatype, shape, data: shm.view(place) }, consumed: 0, binary: false };
  }
  const binarySize = params?.binary_data_size;
  if (binarySize === undefined) {
    const count = elementCount(shape, name);
    // Each JSON element takes at least one byte, so a larger count cannot be honest: refuse before allocating.
    if (count > body.byteLength) {
      throw ProtocolError.badRequest(`unexpected number of elements in 'data' of input '${name}': its shape [${shape.join(',')}] needs ${count}, more than this ${body.byteLength}-byte request can carry`);
    }
    if (input.data === undefined) {
      throw ProtocolError.badRequest(`input '${name}' has neither 'data' nor the 'binary_data_size' parameter`);
    }
    return { tensor: { name, datatype, shape, data: jsonDataToBytes(input.data, datatype, count, name) }, consumed: 0, binary: false };
  }
  if (typeof binarySize !== 'number' || !Number.isSafeInteger(binarySize) || binarySize < 0) {
    throw ProtocolError.badRequest(`parameter 'binary_data_size' of input '${name}' must be a non-negative integer, got ${JSON.stringify(binarySize)}`);
  }
  if (input.data !== undefined) {
    throw ProtocolError.badRequest(`input '${name}' has both 'data' and 'binary_data_size'; send its elements one way`);
  }
  if (offset + binarySize > body.byteLength) {
    throw ProtocolError.badRequest(`input '${name}' declares binary_data_size ${binarySize} but only ${body.byteLength - offset} bytes of binary data remain in the body`);
  }
  // Sizes against the shape (and the BYTES layout) are the native core's to check, for every path.
  const data = body.subarray(offset, offset + binarySize);
  return { tensor: { name, datatype, shape, data }, consumed: binarySize, binary: true };
}

function decodeRequestedOutput(raw: unknown, index: number, encoding: OutputEncoding, shm: SharedMemoryLookup): string {
  const output = optionalObject(raw, `outputs[${index}]`);
  if (!output || typeof output.name !== 'string' || output.name === '') {
    throw ProtocolError.badRequest(`outputs[${index}] must be an object with a 'name' string`);
  }
  const params = optionalObject(output.parameters, `parameters of output '${output.name}'`);
  const place = sharedMemoryPlace(params, `output '${output.name}'`);
  if (place) encoding.shared.set(output.name, { place, bytes: shm.view(place) });
  if (params?.classification !== undefined) encoding.classes.set(output.name, classCount(params.classification, `parameter 'classification' of output '${output.name}'`));
  const binary = params?.binary_data;
  if (binary !== undefined && typeof binary !== 'boolean') {
    throw ProtocolError.badRequest(`parameter 'binary_data' of output '${output.name}' must be a boolean, got ${JSON.stringify(binary)}`);
  }
  if (binary !== undefined) encoding.binary.set(output.name, binary);
  return output.name;
}

/** The k of the classification extension: a positive integer (HTTP classification, gRPC class_count). */
export function classCount(value: unknown, what: string): number {
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw ProtocolError.badRequest(`${what} must be a positive integer, got ${JSON.stringify(typeof value === 'bigint' ? String(value) : value)}`);
  return n;
}
