/**
 * KServe v2 binary tensor extension: a JSON header followed by the raw tensor bytes, with
 * `Inference-Header-Content-Length` giving the header's length. Bodies are built once per request
 * payload and reused for every send, as perf_analyzer does.
 */
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
