/**
 * Encodes an infer response for HTTP: plain JSON, or (when any output travels binary) a JSON header
 * followed by the raw output bytes.
 */
import type { InferResponse } from '../../executor/types.js';
import { isBinaryOnly } from '../datatypes.js';
import type { OutputEncoding } from './decoded-http-infer.js';
import { bytesToJsonText } from './json-tensor.js';
import { writeSharedOutput } from './shared-memory-params.js';

export interface EncodedHttpResponse {
  /** The JSON (all of a JSON response, or the header before binary data). */
  json: string;
  /** Its length in UTF-8 bytes. */
  jsonBytes: number;
  /** Raw output bytes that follow the JSON, in order. */
  binaries: Uint8Array[];
  contentLength: number;
  /** Set when binary data follows the JSON header. */
  headerLength?: number;
}

export function encodeHttpInferResponse(response: InferResponse, encoding: OutputEncoding): EncodedHttpResponse {
  const parts: string[] = [];
  const binaries: Uint8Array[] = [];
  for (const out of response.outputs) {
    const binary = encoding.binary.get(out.name) ?? (encoding.binaryByDefault || isBinaryOnly(out.datatype));
    const head = `{"name":${JSON.stringify(out.name)},"datatype":"${out.datatype}","shape":[${out.shape.join(',')}]`;
    const shared = encoding.shared.get(out.name);
    if (shared) {
      writeSharedOutput(out.name, out.data, shared);
      parts.push(`${head},"parameters":{"shared_memory_region":${JSON.stringify(shared.place.region)},"shared_memory_byte_size":${out.data.byteLength}}}`);
    } else if (binary) {
      parts.push(`${head},"parameters":{"binary_data_size":${out.data.byteLength}}}`);
      binaries.push(out.data);
    } else {
      parts.push(`${head},"data":${bytesToJsonText(out.datatype, out.data, out.name)}}`);
    }
  }
  const id = response.id !== undefined ? `,"id":${JSON.stringify(response.id)}` : '';
  const parameters = response.parameters ? `,"parameters":${JSON.stringify(response.parameters)}` : '';
  const json = `{"model_name":${JSON.stringify(response.modelName)},"model_version":${JSON.stringify(response.modelVersion)}${id}${parameters},"outputs":[${parts.join(',')}]}`;
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  let contentLength = jsonBytes;
  for (const b of binaries) contentLength += b.byteLength;
  return { json, jsonBytes, binaries, contentLength, headerLength: binaries.length > 0 ? jsonBytes : undefined };
}
