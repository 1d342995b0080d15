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

/** Responses up to this size go out as one string chunk with the headers (see sendInferResponse). */
const ONE_WRITE_BYTES = 16 * 1024;

export function sendInferResponse(res: ServerResponse, encoded: EncodedHttpResponse): void {
  const { json, jsonBytes, binaries, contentLength, headerLength } = encoded;
  res.writeHead(200, headerLength !== undefined
    ? { 'Content-Type': 'application/octet-stream', 'Content-Length': contentLength, 'Inference-Header-Content-Length': headerLength }
    : { 'Content-Type': 'application/json', 'Content-Length': contentLength });
  // With a string body Node joins the status line, the headers and the body into one chunk; a
  // Buffer body would travel as chunks of its own through the socket's writev path, which
  // profiles slower for the small responses of typical models. Binary outputs ride along as
  // latin1 (one char per byte) when the JSON is ASCII, so latin1 writes them unchanged; large
  // outputs are not copied.
  if (binaries.length === 0) {
    res.end(json, 'utf8');
    return;
  }
  if (contentLength <= ONE_WRITE_BYTES && jsonBytes === json.length) {
    let text = json;
    for (const b of binaries) text += Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
    res.end(text, 'latin1');
    return;
  }
  res.cork();
  res.write(json, 'utf8');
  for (const b of binaries) res.write(b);
  res.end();
  res.uncork();
}
