/** Writing HTTP responses: JSON bodies, `{"error": ...}` bodies, and chunked binary infer responses. */
import type { ServerResponse } from 'node:http';
import type { EncodedHttpResponse } from '../codec/http-infer-response.js';
import { toProtocolError } from '../protocol-error.js';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': text.byteLength });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'Content-Length': 0 });
  res.end();
}

/** Every error becomes `{"error": "..."}` with Triton's status code; 413 also closes the connection. */
export function sendError(res: ServerResponse, err: unknown): void {
  const error = toProtocolError(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error.httpStatus === 413) res.setHeader('Connection', 'close');
  sendJson(res, error.httpStatus, { error: error.message });
}

export function sendInferResponse(res: ServerResponse, encoded: EncodedHttpResponse): void {
  const headers: Record<string, string | number> = {
    'Content-Type': encoded.headerLength !== undefined ? 'application/octet-stream' : 'application/json',
    'Content-Length': encoded.contentLength,
  };
  if (encoded.headerLength !== undefined) headers['Inference-Header-Content-Length'] = encoded.headerLength;
  res.writeHead(200, headers);
  // Small responses go out as one buffer: Node then sends headers and body in one write, which
  // profiles cheaper than a corked writev of separate chunks. Large outputs are not copied.
  if (encoded.chunks.length === 1 || encoded.contentLength <= 64 * 1024) {
    res.end(encoded.chunks.length === 1 ? encoded.chunks[0] : Buffer.concat(encoded.chunks, encoded.contentLength));
    return;
  }
  res.cork();
  for (const chunk of encoded.chunks) res.write(chunk);
  res.end();
  res.uncork();
}
