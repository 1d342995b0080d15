/**
 * Request bodies: undoing Content-Encoding (for every front end), and reading a body up to a limit
 * for the node:https front end. There, a declared Content-Length over the limit is refused before
 * a byte is read; a chunked body is refused as soon as it passes the limit, so an oversized body is
 * never buffered whole. Memory follows the bytes that arrive, never the declared length, and every
 * byte held counts against the front end's BodyBudget (503 when all connections together hold too
 * much). The native server applies the same limits in native/src/http/http_connection.cc, with
 * the wording of server/limits.ts (NativeHttpFrontend hands it over).
 */
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { bodyTooLargeMessage, inflightBodyMessage, type BodyBudget } from '../limits.js';
import { ProtocolError } from '../../kserve/protocol-error.js';

export class BodyTooLargeError extends ProtocolError {
  constructor(limit: number) {
    super(bodyTooLargeMessage(limit), 413);
  }
}

/**
 * Undoes `Content-Encoding: gzip|deflate` (tritonclient's request compression); the decompressed
 * size is held to the body limit.
 */
export function decodeContentEncoding(raw: Buffer, header: string | undefined, limit: number): Promise<Buffer> {
  const encoding = (header ?? 'identity').toLowerCase();
  if (encoding === 'identity') return Promise.resolve(raw);
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    return Promise.reject(new ProtocolError(`unsupported Content-Encoding '${encoding}'; send the body as is, or with gzip or deflate`, 400));
  }
  const inflate = encoding === 'gzip' ? zlib.gunzip : zlib.inflate;
  return new Promise((resolve, reject) => inflate(raw, { maxOutputLength: limit }, (e, out) => {
    if (!e) resolve(out);
    else if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') reject(new BodyTooLargeError(limit));
    else reject(ProtocolError.badRequest(`request body is not valid ${encoding} data: ${e.message}`));
  }));
}

export type BodyCallback = (err: Error | undefined, body?: Buffer) => void;

/** The node:https front end's body reader (the native server reads bodies itself). */
export function readRawBody(req: IncomingMessage, limit: number, budget: BodyBudget): Promise<Buffer> {
  return new Promise((resolve, reject) => collectRawBody(req, req.headers['content-length'], limit, budget, (err, body) => (err ? reject(err) : resolve(body!))));
}

function collectRawBody(req: IncomingMessage, declaredHeader: string | undefined, limit: number, budget: BodyBudget, done: BodyCallback): void {
  const declared = declaredHeader !== undefined ? Number(declaredHeader) : undefined;
  if (declared !== undefined && declared > limit) {
    done(new BodyTooLargeError(limit));
    return;
  }
  const known = declared !== undefined && Number.isSafeInteger(declared);
  const max = known ? declared : limit;
  // A body that arrives in one chunk (the usual case for small requests) is used as it is;
  // several are joined once at the end. Node's chunks are what arrived, so memory follows bytes.
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let received = 0;
  let held = 0;  // charged to the budget; given back when the body is handed on or dropped
  const onData = (chunk: Buffer): void => {
    if (received + chunk.byteLength > max) {
      cleanup();
      req.resume();
      done(known ? ProtocolError.badRequest('request body is longer than its Content-Length') : new BodyTooLargeError(limit));
      return;
    }
    if (!budget.charge(chunk.byteLength)) {
      cleanup();
      req.resume();
      done(ProtocolError.unavailable(inflightBodyMessage(budget.limit)));
      return;
    }
    held += chunk.byteLength;
    if (received === 0) {
      first = chunk;
    } else {
      chunks ??= [first!];
      chunks.push(chunk);
    }
    received += chunk.byteLength;
  };
  const onEnd = (): void => {
    cleanup();
    if (known && received !== declared) {
      done(ProtocolError.badRequest(`request body has ${received} bytes but Content-Length says ${declared}`));
    } else if (received === 0) {
      done(undefined, Buffer.alloc(0));
    } else {
      done(undefined, chunks ? Buffer.concat(chunks, received) : first!);
    }
  };
  const onError = (err: Error): void => {
    cleanup();
    done(ProtocolError.badRequest(`request body could not be read: ${err.message}`));
  };
  const onAborted = (): void => onError(new Error('the client closed the connection'));
  const cleanup = (): void => {
    budget.release(held);
    held = 0;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('aborted', onAborted);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('aborted', onAborted);
}
