/**
 * KServe v2 binary tensor extension: a JSON header followed by the raw tensor bytes, with
 * `Inference-Header-Content-Length` giving the header's length. Bodies are built once per request
 * payload and reused for every send, as perf_analyzer does.
 */
import type { SequenceStep } from './types.js';
import type { RequestInputs, SharedMemoryLayout } from './types.js';
import type { SharedMemoryPlace } from '../codec/shared-memory-params.js';

export interface EncodedHttpRequest {
  body: Buffer;
  headerLength: number;
}

export function encodeBinaryInferRequest(inputs: RequestInputs, outputNames: string[], shm?: SharedMemoryLayout): EncodedHttpRequest {
  if (shm) return encodeSharedMemoryRequest(inputs, outputNames, shm);
  const header = {
    inputs: inputs.map((t) => ({
      name: t.name,
      shape: t.shape,
      datatype: t.datatype,
      parameters: { binary_data_size: t.data.byteLength },
    })),
    outputs: outputNames.map((name) => ({ name, parameters: { binary_data: true } })),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const body = Buffer.concat([json, ...inputs.map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))]);
  return { body, headerLength: json.byteLength };
}

/** The parameters naming a tensor's place in shared memory (Triton's system shared-memory extension). */
const placed = (place: SharedMemoryPlace) => ({
  shared_memory_region: place.region, shared_memory_byte_size: place.byteSize, shared_memory_offset: place.offset,
});

/** A request whose tensors all lie in shared memory: a header with nothing after it. */
function encodeSharedMemoryRequest(inputs: RequestInputs, outputNames: string[], shm: SharedMemoryLayout): EncodedHttpRequest {
  const body = Buffer.from(JSON.stringify({
    inputs: inputs.map((t, k) => ({ name: t.name, shape: t.shape, datatype: t.datatype, parameters: placed(shm.inputs[k]!) })),
    outputs: outputNames.map((name) => ({ name, parameters: placed(shm.outputs.get(name)!) })),
  }), 'utf8');
  return { body, headerLength: body.byteLength };
}

/**
 * The request with a sequence step's parameters (sequence_id, sequence_start, sequence_end) in its
 * JSON header: a copy of the header with the parameters spliced in after its opening brace.
 */
export function withSequenceParameters(encoded: EncodedHttpRequest, step: SequenceStep): EncodedHttpRequest {
  const params = Buffer.from(`{"parameters":{"sequence_id":${step.id},"sequence_start":${step.start},"sequence_end":${step.end}},`, 'utf8');
  const body = Buffer.concat([params, encoded.body.subarray(1)]);
  return { body, headerLength: encoded.headerLength - 1 + params.byteLength };
}
