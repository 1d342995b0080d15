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
  /**
   * A streamed answer (Server-Sent Events): `body` is its first part, written with the head (no
   * Content-Length: chunked), and the rest come through `stream` until it ends.
   */
  stream?: AnswerStream;
}

/**
 * The parts after the first of a streamed answer: queued until the front end that writes the
 * answer attaches, then handed on as they come. `end()` is called exactly once (the front end then
 * ends the body), whatever happened: the native server holds the request until then.
 */
export class AnswerStream {
  private sink?: { send(chunk: Buffer): void; end(): void };
  private queued: Buffer[] = [];
  private ended = false;

  push(chunk: Buffer): void {
    if (this.ended) return;
    if (this.sink) this.sink.send(chunk);
    else this.queued.push(chunk);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.sink?.end();
  }

  attach(sink: { send(chunk: Buffer): void; end(): void }): void {
    this.sink = sink;
    for (const chunk of this.queued.splice(0)) sink.send(chunk);
    if (this.ended) sink.end();
  }
}

export const EMPTY = Buffer.alloc(0);
export const JSON_HEADERS = { 'Content-Type': 'application/json' };

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
