/**
 * HTTP answers as values: a status, header fields and a body. The front end that received the
 * request (the native server, or node:https for TLS) writes them; Content-Length, Date and
 * Connection are the writer's.
 */
import type { EncodedHttpResponse } from '../../kserve/codec/http-infer-response.js';
import { toProtocolError } from '../../kserve/protocol-error.js';

export interface HttpAnswer {
  status: number;
  /** Header fields other than Content-Length, Date and Connection. */
  headers: Record<string, string | number>;
  body: Buffer;
  /** Close the connection after this answer. */
  close?: boolean;
}

const EMPTY = Buffer.alloc(0);
const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function jsonAnswer(status: number, body: unknown): HttpAnswer {
  return { status, headers: JSON_HEADERS, body: Buffer.from(JSON.stringify(body), 'utf8') };
}

export function emptyAnswer(status: number): HttpAnswer {
  return { status, headers: {}, body: EMPTY };
}

/** Every error becomes `{"error": "..."}` with Triton's status code; 413 also closes the connection. */
export function errorAnswer(err: unknown): HttpAnswer {
  const error = toProtocolError(err);
  const answer = jsonAnswer(error.httpStatus, { error: error.message });
  if (error.httpStatus === 413) answer.close = true;
  return answer;
}

export function inferAnswer(encoded: EncodedHttpResponse): HttpAnswer {
  const { json, binaries, headerLength } = encoded;
  if (headerLength === undefined) return { status: 200, headers: JSON_HEADERS, body: Buffer.from(json, 'utf8') };
  const parts = [Buffer.from(json, 'utf8'), ...binaries.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength))];
  return {
    status: 200,
    headers: { 'Content-Type': 'application/octet-stream', 'Inference-Header-Content-Length': headerLength },
    body: Buffer.concat(parts, encoded.contentLength),
  };
}
