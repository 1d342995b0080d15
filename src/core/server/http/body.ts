/**
 * Reads a request body up to a limit. A declared Content-Length over the limit is refused before
 * a byte is read; a chunked body is refused as soon as it passes the limit, so an oversized body is
 * never buffered whole.
 */
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ProtocolError } from '../protocol-error.js';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);

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

/**
 * Reads the body and undoes `Content-Encoding: gzip|deflate` (tritonclient's request compression);
 * the decompressed size is held to the same limit.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'deflate') {
    throw new ProtocolError(`unsupported Content-Encoding '${encoding}'; send the body as is, or with gzip or deflate`, 400);
  }
  const raw = await readRawBody(req, limit);
  if (encoding === 'identity') return raw;
  try {
    return await (encoding === 'gzip' ? gunzip : inflate)(raw, { maxOutputLength: limit });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE') throw new BodyTooLargeError(limit);
    throw ProtocolError.badRequest(`request body is not valid ${encoding} data: ${e.message}`);
  }
}

function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declaredHeader = req.headers['content-length'];
  const declared = declaredHeader !== undefined ? Number(declaredHeader) : undefined;
  if (declared !== undefined && declared > limit) return Promise.reject(new BodyTooLargeError(limit, declared));
  return new Promise((resolve, reject) => {
    // With a known length the chunks are copied once into one buffer; otherwise they are joined at the end.
    const exact = declared !== undefined && Number.isSafeInteger(declared) ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      if (received + chunk.byteLength > (exact ? exact.byteLength : limit)) {
        cleanup();
        req.resume();
        reject(exact ? ProtocolError.badRequest('request body is longer than its Content-Length') : new BodyTooLargeError(limit));
        return;
      }
      if (exact) chunk.copy(exact, received);
      else chunks.push(chunk);
      received += chunk.byteLength;
    };
    const onEnd = (): void => {
      cleanup();
      if (exact) {
        if (received !== exact.byteLength) reject(ProtocolError.badRequest(`request body has ${received} bytes but Content-Length says ${exact.byteLength}`));
        else resolve(exact);
      } else {
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
      }
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(ProtocolError.badRequest(`request body could not be read: ${err.message}`));
    };
    const onAborted = (): void => onError(new Error('the client closed the connection'));
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}
