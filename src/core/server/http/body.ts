/**
 * Reads a request body up to a limit. A declared Content-Length over the limit is refused before
 * a byte is read; a chunked body is refused as soon as it passes the limit, so an oversized body is
 * never buffered whole. Memory follows the bytes that arrive, never the declared length, and every
 * byte held counts against the front end's BodyBudget (503 when all connections together hold too
 * much).
 *
 * The core is callback-based and reads the few headers it needs from `rawHeaders`: the infer route
 * runs it on every request, and Node's lazily built `req.headers` object and a chain of promises
 * cost measurably more than the body itself.
 */
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import { inflightBodyMessage, type BodyBudget } from '../limits.js';
import { ProtocolError } from '../protocol-error.js';

export class BodyTooLargeError extends ProtocolError {
  constructor(limit: number, declared?: number) {
    super(
      declared !== undefined
        ? `request body of ${declared} bytes exceeds the limit of ${limit} bytes (raise it with --http-max-body)`
        : `request body exceeds the limit of ${limit} bytes (raise it with --http-max-body)`,
      413,
    );
  }
}

/** The request headers the body readers and the infer route look at. */
export interface BodyHeaders {
  contentLength?: string;
  contentEncoding?: string;
  inferenceHeaderContentLength?: string;
}

/**
 * Picks the headers of BodyHeaders out of `rawHeaders` with Node's rules for duplicates:
 * Content-Length keeps the first (llhttp already refuses conflicting ones), the others are
 * joined with ", " (which the callers then refuse as malformed).
 */
export function bodyHeaders(req: IncomingMessage): BodyHeaders {
  const raw = req.rawHeaders;
  const out: BodyHeaders = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    // Only names of the right lengths are lower-cased and compared.
    if (name.length === 14) {
      if (out.contentLength === undefined && name.toLowerCase() === 'content-length') out.contentLength = raw[i + 1]!;
    } else if (name.length === 16) {
      if (name.toLowerCase() === 'content-encoding') out.contentEncoding = join(out.contentEncoding, raw[i + 1]!);
    } else if (name.length === 31) {
      if (name.toLowerCase() === 'inference-header-content-length') {
        out.inferenceHeaderContentLength = join(out.inferenceHeaderContentLength, raw[i + 1]!);
      }
    }
  }
  return out;
}

function join(previous: string | undefined, value: string): string {
  return previous === undefined ? value : `${previous}, ${value}`;
}

export type BodyCallback = (err: Error | undefined, body?: Buffer) => void;

/**
 * Reads the body and undoes `Content-Encoding: gzip|deflate` (tritonclient's request compression);
 * the decompressed size is held to the same limit. `done` is called exactly once.
 */
export function collectBody(req: IncomingMessage, headers: BodyHeaders, limit: number, budget: BodyBudget, done: BodyCallback): void {
  const encoding = (headers.contentEncoding ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'deflate') {
    done(new ProtocolError(`unsupported Content-Encoding '${encoding}'; send the body as is, or with gzip or deflate`, 400));
    return;
  }
  if (encoding === 'identity') {
    readRawBody(req, headers.contentLength, limit, budget, done);
    return;
  }
  readRawBody(req, headers.contentLength, limit, budget, (err, raw) => {
    if (err) {
      done(err);
      return;
    }
    const inflate = encoding === 'gzip' ? zlib.gunzip : zlib.inflate;
    inflate(raw!, { maxOutputLength: limit }, (e, out) => {
      if (!e) done(undefined, out);
      else if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') done(new BodyTooLargeError(limit));
      else done(ProtocolError.badRequest(`request body is not valid ${encoding} data: ${e.message}`));
    });
  });
}

/** The promise form, for routes that are not on the hot path. */
export function readBody(req: IncomingMessage, limit: number, budget: BodyBudget): Promise<Buffer> {
  return new Promise((resolve, reject) => collectBody(req, bodyHeaders(req), limit, budget, (err, body) => (err ? reject(err) : resolve(body!))));
}

function readRawBody(req: IncomingMessage, declaredHeader: string | undefined, limit: number, budget: BodyBudget, done: BodyCallback): void {
  const declared = declaredHeader !== undefined ? Number(declaredHeader) : undefined;
  if (declared !== undefined && declared > limit) {
    done(new BodyTooLargeError(limit, declared));
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
