/**
 * KServe v2 binary tensor extension: a JSON header followed by the raw tensor bytes, with
 * `Inference-Header-Content-Length` giving the header's length. Bodies are built once per request
 * payload and reused for every send, as perf_analyzer does.
 */
import type { SequenceStep } from './types.js';
import type { RequestInputs } from './types.js';

export interface EncodedHttpRequest {
  body: Buffer;
  headerLength: number;
}

export function encodeBinaryInferRequest(inputs: RequestInputs, outputNames: string[]): EncodedHttpRequest {
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

/**
 * The request with a sequence step's parameters (sequence_id, sequence_start, sequence_end) in its
 * JSON header: a copy of the header with the parameters spliced in after its opening brace.
 */
export function withSequenceParameters(encoded: EncodedHttpRequest, step: SequenceStep): EncodedHttpRequest {
  const params = Buffer.from(`{"parameters":{"sequence_id":${step.id},"sequence_start":${step.start},"sequence_end":${step.end}},`, 'utf8');
  const body = Buffer.concat([params, encoded.body.subarray(1)]);
  return { body, headerLength: encoded.headerLength - 1 + params.byteLength };
}
