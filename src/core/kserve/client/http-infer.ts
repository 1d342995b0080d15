/**
 * One KServe v2 inference over HTTP with the binary tensor extension both ways, so every datatype
 * (FP16 included) travels exactly. Used by `gebe infer -u` and `gebe warmup -u`.
 */
import http from 'node:http';
import https from 'node:https';
import { GebeError } from '../../../errors.js';
import type { Datatype, InferTensor } from '../../executor/types.js';
import { parseJsonAllowingNonFinite } from '../../json/nan-json.js';
import { encodeBinaryInferRequest } from './http-binary.js';
import { normalizeBaseUrl } from './base-url.js';
import { httpHeaderObject } from './request-headers.js';
import { isHttps, tlsOptions, type RemoteConnection } from './connection.js';
import { errorText, inferenceRefused, unreachable } from './server-errors.js';

interface ResponseHeader {
  outputs?: Array<{ name: string; datatype: Datatype; shape: number[]; parameters?: { binary_data_size?: number }; data?: unknown[] }>;
  error?: string;
}

/** `connection`: TLS for an https:// URL, and the user's headers (-H). */
export async function httpInfer(url: string, inferPath: string, inputs: InferTensor[], outputNames: string[], connection?: RemoteConnection): Promise<InferTensor[]> {
  const base = normalizeBaseUrl(url);
  const target = new URL(`${base}${inferPath}`);
  const payload = encodeBinaryInferRequest(inputs, outputNames);
  const { status, headers, body } = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = (isHttps(base) ? https : http).request(target, {
      method: 'POST',
      ...(isHttps(base) ? tlsOptions(connection) : {}),
      headers: {
        ...httpHeaderObject(connection?.headers),
        'Content-Type': 'application/octet-stream',
        'Content-Length': payload.body.byteLength,
        'Inference-Header-Content-Length': payload.headerLength,
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (err: NodeJS.ErrnoException) => reject(unreachable(base, err.code ?? err.message)));
    req.end(payload.body);
  });
  const lengthHeader = headers['inference-header-content-length'];
  const headerLength = lengthHeader !== undefined ? Number(lengthHeader) : body.byteLength;
  let header: ResponseHeader;
  try {
    header = parseJsonAllowingNonFinite(body.subarray(0, headerLength).toString('utf8')) as ResponseHeader;
  } catch {
    throw new GebeError(`the server at ${base} answered HTTP ${status} with a body that is not KServe v2 JSON: ${body.subarray(0, 200).toString('utf8')}`);
  }
  if (status !== 200) throw inferenceRefused(base, { http: status }, errorText(header));
  let offset = headerLength;
  return (header.outputs ?? []).map((o) => {
    const size = o.parameters?.binary_data_size;
    if (size === undefined) {
      throw new GebeError(`the server at ${base} sent output "${o.name}" as JSON although binary data was requested`);
    }
    if (!Number.isInteger(size) || size < 0 || offset + size > body.byteLength) {
      throw new GebeError(`the server at ${base} sent output "${o.name}" with binary_data_size ${size}, beyond the ${body.byteLength}-byte response`);
    }
    const data = new Uint8Array(body.buffer, body.byteOffset + offset, size);
    offset += size;
    return { name: o.name, datatype: o.datatype, shape: o.shape.map(Number), data: Uint8Array.prototype.slice.call(data) };
  });
}
