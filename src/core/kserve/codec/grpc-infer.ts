/**
 * ModelInferRequest / ModelInferResponse ↔ the executor's InferRequest / InferResponse.
 * raw_input_contents entries are views over the received message; typed `contents` are converted
 * element by element (that is the client's choice of encoding); responses always carry
 * raw_output_contents, as Triton's do.
 */
import type { Datatype, InferRequest, InferResponse, InferTensor } from '../../executor/types.js';
import { allocTyped, bytesOf, isDatatype } from '../datatypes.js';
import { toBigInt, toNumber } from '../grpc-proto.js';
import { ProtocolError } from '../protocol-error.js';
import { joinBytesElements } from './bytes-elements.js';
import { addModelParameter, classCount } from './http-infer-request.js';
import { elementCount, parseShape } from './shape.js';
import { carriesDataToo, NO_SHARED_MEMORY, sharedMemoryPlace, writeSharedOutput, type SharedMemoryLookup, type SharedMemoryPlace, type SharedOutput } from './shared-memory-params.js';

/** The decoded protobuf message as protobufjs gives it (keepCase field names). */
export interface GrpcInferRequestMessage {
  model_name: string;
  model_version: string;
  id: string;
  parameters?: Record<string, GrpcInferParameter>;
  inputs: Array<{ name: string; datatype: string; shape: unknown[]; parameters?: Record<string, GrpcInferParameter>; contents?: Record<string, unknown[]> | null }>;
  outputs: Array<{ name: string; parameters?: Record<string, GrpcInferParameter> }>;
  raw_input_contents: Uint8Array[];
}

export interface GrpcInferParameter {
  parameter_choice?: string;
  bool_param?: boolean;
  int64_param?: unknown;
  string_param?: string;
  double_param?: number;
  uint64_param?: unknown;
}

const CONTENTS_FIELD: Record<Exclude<Datatype, 'FP16' | 'BF16'>, string> = {
  BOOL: 'bool_contents', INT8: 'int_contents', INT16: 'int_contents', INT32: 'int_contents', INT64: 'int64_contents',
  UINT8: 'uint_contents', UINT16: 'uint_contents', UINT32: 'uint_contents', UINT64: 'uint64_contents',
  FP32: 'fp32_contents', FP64: 'fp64_contents', BYTES: 'bytes_contents',
};
const ALL_CONTENTS_FIELDS = [...new Set(Object.values(CONTENTS_FIELD))];

const NARROW_RANGE: Partial<Record<Datatype, [number, number]>> = {
  INT8: [-128, 127], INT16: [-32768, 32767], UINT8: [0, 255], UINT16: [0, 65535],
};

/** Decoded messages carry defaults for every oneof member; `parameter_choice` names the one set. */
function parameterValue(p: GrpcInferParameter): unknown {
  switch (p.parameter_choice) {
    case 'bool_param': return p.bool_param;
    case 'int64_param': return toNumber(p.int64_param);
    case 'uint64_param': return toNumber(p.uint64_param);
    case 'double_param': return p.double_param;
    case 'string_param': return p.string_param;
    default: return undefined;
  }
}

/** A sequence parameter: int64/uint64 exactly (ids past 2^53 included), as the native gRPC route reads them. */
function sequenceParameterValue(p: GrpcInferParameter): unknown {
  if (p.parameter_choice === 'int64_param') return toBigInt(p.int64_param);
  if (p.parameter_choice === 'uint64_param') return toBigInt(p.uint64_param);
  return parameterValue(p);
}

/** A tensor's InferParameters as the plain values HTTP's JSON carries (for sharedMemoryPlace). */
function plainParameters(parameters: Record<string, GrpcInferParameter> | undefined): Record<string, unknown> | undefined {
  return parameters && Object.fromEntries(Object.entries(parameters).map(([key, p]) => [key, parameterValue(p)]));
}

/** `shm` finds the shared-memory regions tensors may name (none without it). */
export function decodeGrpcInferRequest(msg: GrpcInferRequestMessage, shm: SharedMemoryLookup = NO_SHARED_MEMORY): InferRequest {
  const request: InferRequest = { inputs: [] };
  if (msg.id) request.id = msg.id;
  for (const [key, p] of Object.entries(msg.parameters ?? {})) {
    // As sent; the native core's Normalize judges the value (sequence ones included, for every model).
    if (key === 'priority') request.priority = parameterValue(p) as number;
    else if (key === 'timeout') request.timeoutUs = parameterValue(p) as number;
    else if (key === 'sequence_id') request.sequenceId = sequenceParameterValue(p) as InferRequest['sequenceId'];
    else if (key === 'sequence_start') request.sequenceStart = sequenceParameterValue(p) as boolean;
    else if (key === 'sequence_end') request.sequenceEnd = sequenceParameterValue(p) as boolean;
    else addModelParameter(request, key, parameterValue(p));
  }
  if (!msg.inputs || msg.inputs.length === 0) throw ProtocolError.badRequest('request must have at least one input in `inputs`');
  const raw = msg.raw_input_contents ?? [];
  // Inputs in shared memory have no entry in raw_input_contents (as in Triton): the others take theirs in order.
  const places = msg.inputs.map((input) => sharedMemoryPlace(plainParameters(input.parameters), `input '${input.name}'`));
  const carried = places.filter((p) => p === undefined).length;
  if (raw.length > 0 && raw.length !== carried) {
    const inShm = carried < msg.inputs.length ? ` (${msg.inputs.length - carried} of its ${msg.inputs.length} in shared memory)` : '';
    throw ProtocolError.badRequest(`raw_input_contents has ${raw.length} entries but the request has ${carried} inputs${inShm}; send one entry per input, in order`);
  }
  let next = 0;
  msg.inputs.forEach((input, i) => {
    const place = places[i];
    request.inputs.push(decodeInput(input, place ? shm.view(place) : raw.length > 0 ? raw[next++] : undefined, place));
  });
  if (msg.outputs && msg.outputs.length > 0) request.outputs = msg.outputs.map((o) => o.name);
  return request;
}

/** The requested outputs that go to shared-memory regions, by name (resolved now, as Triton does). */
export function grpcSharedOutputs(msg: GrpcInferRequestMessage, shm: SharedMemoryLookup = NO_SHARED_MEMORY): Map<string, SharedOutput> {
  const shared = new Map<string, SharedOutput>();
  for (const o of msg.outputs ?? []) {
    const place = sharedMemoryPlace(plainParameters(o.parameters), `output '${o.name}'`);
    if (place) shared.set(o.name, { place, bytes: shm.view(place) });
  }
  return shared;
}

/** `raw`: the input's bytes from raw_input_contents, or from its shared-memory window (`place`). */
function decodeInput(input: GrpcInferRequestMessage['inputs'][number], raw: Uint8Array | undefined, place?: SharedMemoryPlace): InferTensor {
  const name = input.name;
  if (!name) throw ProtocolError.badRequest('every input needs a name');
  if (!isDatatype(input.datatype)) {
    throw ProtocolError.badRequest(`input '${name}' has unknown datatype '${input.datatype}'; expected one of BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, BF16, FP32, FP64, BYTES`);
  }
  const datatype = input.datatype;
  const shape = parseShape((input.shape ?? []).map(toNumber), name);
  const contents = input.contents ?? undefined;
  const used = contents ? ALL_CONTENTS_FIELDS.filter((f) => Array.isArray(contents[f]) && contents[f]!.length > 0) : [];
  if (raw !== undefined) {
    if (used.length > 0 && place) throw carriesDataToo(name, place);
    if (used.length > 0) throw ProtocolError.badRequest(`input '${name}' sets contents.${used[0]} while the request uses raw_input_contents; use one or the other`);
    return { name, datatype, shape, data: raw };
  }
  if (datatype === 'FP16' || datatype === 'BF16') {
    throw ProtocolError.badRequest(`input '${name}' has datatype ${datatype}, which has no typed contents field; send it in raw_input_contents`);
  }
  const count = elementCount(shape, name);
  const field = CONTENTS_FIELD[datatype];
  const wrong = used.find((f) => f !== field);
  if (wrong) throw ProtocolError.badRequest(`input '${name}' of datatype ${datatype} sets contents.${wrong}; its data belongs in contents.${field}`);
  const values = (contents?.[field] ?? []) as unknown[];
  if (values.length !== count) {
    throw ProtocolError.badRequest(`unexpected number of elements ${values.length} in contents.${field} of input '${name}', its shape [${shape.join(',')}] needs ${count}`);
  }
  return { name, datatype, shape, data: typedContentsToBytes(datatype, values, name) };
}

function typedContentsToBytes(datatype: Exclude<Datatype, 'FP16' | 'BF16'>, values: unknown[], name: string): Uint8Array {
  if (datatype === 'BYTES') return joinBytesElements(values as Uint8Array[]);
  const out = allocTyped(datatype, values.length);
  if (datatype === 'INT64' || datatype === 'UINT64') {
    for (let i = 0; i < values.length; i++) (out as BigInt64Array)[i] = BigInt(String(values[i]));
    return bytesOf(out);
  }
  if (datatype === 'BOOL') {
    for (let i = 0; i < values.length; i++) out[i] = values[i] ? 1 : 0;
    return bytesOf(out);
  }
  const range = NARROW_RANGE[datatype];
  if (range) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (v < range[0] || v > range[1]) throw ProtocolError.badRequest(`element ${i} of input '${name}' is ${v}, outside the range of ${datatype} [${range[0]}, ${range[1]}]`);
    }
  }
  (out as Float64Array).set(values as number[]);
  return bytesOf(out);
}

/** `shared`: outputs written to shared-memory regions instead (no raw_output_contents entry, as in Triton). */
export function encodeGrpcInferResponse(response: InferResponse, shared?: Map<string, SharedOutput>): Record<string, unknown> {
  const encoded = {
    model_name: response.modelName,
    model_version: response.modelVersion,
    id: response.id ?? '',
    ...(response.parameters ? { parameters: grpcParameters(response.parameters) } : {}),
    outputs: response.outputs.map((o) => ({ name: o.name, datatype: o.datatype, shape: o.shape })) as Array<Record<string, unknown>>,
    raw_output_contents: response.outputs.map((o) => o.data),
  };
  if (!shared || shared.size === 0) return encoded;
  encoded.raw_output_contents = [];
  response.outputs.forEach((o, i) => {
    const target = shared.get(o.name);
    if (!target) return void encoded.raw_output_contents.push(o.data);
    writeSharedOutput(o.name, o.data, target);
    encoded.outputs[i]!.parameters = { shared_memory_region: { string_param: target.place.region }, shared_memory_byte_size: { int64_param: o.data.byteLength } };
  });
  return encoded;
}

/** Parameters (a response's, or a client's request parameters) as InferParameter messages: booleans, strings, integers as int64, other numbers as double. */
export function grpcParameters(parameters: NonNullable<InferResponse['parameters']>): Record<string, GrpcInferParameter> {
  const out: Record<string, GrpcInferParameter> = {};
  for (const [key, value] of Object.entries(parameters)) {
    if (typeof value === 'boolean') out[key] = { bool_param: value };
    else if (typeof value === 'string') out[key] = { string_param: value };
    else if (Number.isSafeInteger(value)) out[key] = { int64_param: value };
    else out[key] = { double_param: value };
  }
  return out;
}

/** The request parameter with which a streaming client asks for the final flag even when it comes without a response. */
export const EMPTY_FINAL_PARAMETER = 'triton_enable_empty_final_response';
/** The response parameter marking whether a stream response is its request's last (Triton sets it on every one). */
const FINAL_PARAMETER = 'triton_final_response';

/** Whether a ModelStreamInfer request asked for an empty response when its last comes with no outputs. */
export function wantsEmptyFinalResponse(msg: GrpcInferRequestMessage): boolean {
  const p = msg.parameters?.[EMPTY_FINAL_PARAMETER];
  return p !== undefined && parameterValue(p) === true;
}

/** Whether a (decoded) stream response is its request's last: its `triton_final_response` parameter. */
export function isFinalStreamResponse(inferResponse: { parameters?: Record<string, { bool_param?: boolean }> } | undefined): boolean {
  return inferResponse?.parameters?.[FINAL_PARAMETER]?.bool_param === true;
}

/**
 * One ModelStreamInferResponse, as Triton writes them: the response's outputs, or (with `error`) an
 * error in band with the request's identity and no outputs, or (neither) the identity alone; each
 * with `triton_final_response`.
 */
export function encodeGrpcStreamResponse(
  request: Partial<Pick<GrpcInferRequestMessage, 'id' | 'model_name' | 'model_version'>>, final: boolean, response?: InferResponse, error?: string,
  shared?: Map<string, SharedOutput>,
): Record<string, unknown> {
  const parameters = { [FINAL_PARAMETER]: { bool_param: final } };
  if (response && error === undefined) {
    const encoded = encodeGrpcInferResponse(response, shared);
    return { error_message: '', infer_response: { ...encoded, parameters: { ...(encoded.parameters as object | undefined), ...parameters } } };
  }
  const identity = { id: request.id ?? '', model_name: request.model_name ?? '', model_version: request.model_version ?? '' };
  return { error_message: error ?? '', infer_response: { ...identity, parameters } };
}

/**
 * The classification extension over gRPC: a requested output's `classification` parameter (as
 * Triton's gRPC front end reads it; `class_count`, the older name, too) → name → k.
 */
export function grpcClassCounts(msg: GrpcInferRequestMessage): Map<string, number> {
  const classes = new Map<string, number>();
  for (const o of msg.outputs ?? []) {
    for (const key of ['classification', 'class_count']) {
      const p = o.parameters?.[key];
      if (p) classes.set(o.name, classCount(parameterValue(p), `parameter '${key}' of output '${o.name}'`));
    }
  }
  return classes;
}
