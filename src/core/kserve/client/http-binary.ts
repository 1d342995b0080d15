/**
 * KServe v2 binary tensor extension: a JSON header followed by the raw tensor bytes, with
 * `Inference-Header-Content-Length` giving the header's length. Bodies are built once per request
 * payload and reused for every send, as perf_analyzer does.
 */
import type { SequenceStep } from './types.js';
import type { RequestInputs, RequestParameters, SharedMemoryLayout } from './types.js';
import type { SharedMemoryPlace } from '../codec/shared-memory-params.js';
import { bytesToJsonText } from '../codec/json-tensor.js';

export interface EncodedHttpRequest {
  body: Buffer;
  headerLength: number;
}

/** `parameters`: request parameters every send carries (perf's --request-parameter). */
export function encodeBinaryInferRequest(inputs: RequestInputs, outputNames: string[], shm?: SharedMemoryLayout, parameters?: RequestParameters): EncodedHttpRequest {
  if (shm) return encodeSharedMemoryRequest(inputs, outputNames, shm, parameters);
  return encodeHttpInferRequest(inputs, outputNames, { input: 'binary', output: 'binary' }, parameters);
}

/**
 * Every header this module writes opens with the request's parameters when it has any, so that
 * withSequenceParameters can add a step's to them: a JSON object with `parameters` twice would
 * keep only one of them.
 */
const PARAMETERS_PREFIX = '{"parameters":{';

/** The header's opening: `{`, with the request parameters first when there are any. */
function headerOpening(parameters: RequestParameters | undefined): string {
  const entries = Object.entries(parameters ?? {});
  if (entries.length === 0) return '{';
  return `${PARAMETERS_PREFIX}${entries.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`).join(',')}},`;
}

/**
 * A request with its inputs as JSON `data` or in the binary part, and its outputs asked for as
 * JSON or binary (perf_analyzer's --input-tensor-format / --output-tensor-format). A request with
 * no binary part is plain JSON: its header length is the whole body.
 */
export function encodeHttpInferRequest(inputs: RequestInputs, outputNames: string[], format: { input: 'binary' | 'json'; output: 'binary' | 'json' }, parameters?: RequestParameters): EncodedHttpRequest {
  const jsonInputs = format.input === 'json';
  const inputsText = inputs.map((t) => {
    const head = `{"name":${JSON.stringify(t.name)},"shape":${JSON.stringify(t.shape)},"datatype":${JSON.stringify(t.datatype)},`;
    return jsonInputs ? `${head}"data":${bytesToJsonText(t.datatype, t.data, t.name)}}` : `${head}"parameters":{"binary_data_size":${t.data.byteLength}}}`;
  });
  const outputsText = outputNames.map((name) => `{"name":${JSON.stringify(name)},"parameters":{"binary_data":${format.output === 'binary'}}}`);
  const json = Buffer.from(`${headerOpening(parameters)}"inputs":[${inputsText.join(',')}],"outputs":[${outputsText.join(',')}]}`, 'utf8');
  if (jsonInputs) return { body: json, headerLength: json.byteLength };
  const body = Buffer.concat([json, ...inputs.map((t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))]);
  return { body, headerLength: json.byteLength };
}

/** The parameters naming a tensor's place in shared memory (Triton's system shared-memory extension). */
const placed = (place: SharedMemoryPlace) => ({
  shared_memory_region: place.region, shared_memory_byte_size: place.byteSize, shared_memory_offset: place.offset,
});

/** A request whose tensors all lie in shared memory: a header with nothing after it. */
function encodeSharedMemoryRequest(inputs: RequestInputs, outputNames: string[], shm: SharedMemoryLayout, parameters: RequestParameters | undefined): EncodedHttpRequest {
  const tensors = JSON.stringify({
    inputs: inputs.map((t, k) => ({ name: t.name, shape: t.shape, datatype: t.datatype, parameters: placed(shm.inputs[k]!) })),
    outputs: outputNames.map((name) => ({ name, parameters: placed(shm.outputs.get(name)!) })),
  });
  const body = Buffer.from(headerOpening(parameters) + tensors.slice(1), 'utf8');
  return { body, headerLength: body.byteLength };
}

/**
 * The request with a sequence step's parameters (sequence_id, sequence_start, sequence_end) in its
 * JSON header: a copy of the header with them spliced in first among its parameters, or as its
 * parameters after its opening brace when it has none.
 */
export function withSequenceParameters(encoded: EncodedHttpRequest, step: SequenceStep): EncodedHttpRequest {
  const entries = `"sequence_id":${step.id},"sequence_start":${step.start},"sequence_end":${step.end}`;
  const prefix = Buffer.from(PARAMETERS_PREFIX, 'utf8');
  const hasParameters = encoded.body.subarray(0, prefix.byteLength).equals(prefix);
  // headerOpening writes `parameters` only with entries, so the spliced-in ones are followed by a comma.
  const params = Buffer.from(hasParameters ? `${PARAMETERS_PREFIX}${entries},` : `${PARAMETERS_PREFIX}${entries}},`, 'utf8');
  const kept = encoded.body.subarray(hasParameters ? prefix.byteLength : 1);
  const body = Buffer.concat([params, kept]);
  return { body, headerLength: encoded.headerLength - (encoded.body.byteLength - kept.byteLength) + params.byteLength };
}
