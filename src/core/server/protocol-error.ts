/**
 * The one error type the HTTP and gRPC front ends turn into responses: Triton's HTTP status and the
 * matching gRPC status code. Executor InferErrors map onto it in `toProtocolError`.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { InferError } from '../executor/types.js';

export type HttpStatus = 400 | 404 | 413 | 500 | 501 | 503;

/** Triton's pairing of HTTP statuses and gRPC codes (clients read it backwards: server-errors.ts). */
export const GRPC_BY_HTTP: Record<HttpStatus, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  404: GrpcStatus.NOT_FOUND,
  413: GrpcStatus.RESOURCE_EXHAUSTED,
  500: GrpcStatus.INTERNAL,
  501: GrpcStatus.UNIMPLEMENTED,
  503: GrpcStatus.UNAVAILABLE,
};

/** The longest text a message quotes from what a client sent. */
export const MAX_QUOTED_CHARS = 120;
/**
 * The longest message an error carries. gRPC sends it as `grpc-message` metadata (8 KiB limit by
 * default) and a log line repeats it; past this it is cut, whatever a caller put in it.
 */
export const MAX_MESSAGE_CHARS = 4096;

/** A bounded prefix of client-sent text, for quoting in an error message. */
export function clientText(text: string, max = MAX_QUOTED_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}

export class ProtocolError extends Error {
  readonly httpStatus: HttpStatus;
  readonly grpcCode: GrpcStatus;

  constructor(message: string, httpStatus: HttpStatus, grpcCode: GrpcStatus = GRPC_BY_HTTP[httpStatus]) {
    super(message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}… (message cut at ${MAX_MESSAGE_CHARS} characters)` : message);
    this.name = 'ProtocolError';
    this.httpStatus = httpStatus;
    this.grpcCode = grpcCode;
  }

  static badRequest(message: string): ProtocolError {
    return new ProtocolError(message, 400);
  }

  static notFound(message: string): ProtocolError {
    return new ProtocolError(message, 404);
  }

  static unavailable(message: string): ProtocolError {
    return new ProtocolError(message, 503);
  }

  /** Triton answers unsupported features with 400 over HTTP and UNIMPLEMENTED over gRPC. */
  static unsupported(message: string): ProtocolError {
    return new ProtocolError(message, 400, GrpcStatus.UNIMPLEMENTED);
  }
}

/**
 * Queue-full rejections are 503 over HTTP but RESOURCE_EXHAUSTED over gRPC, as in Triton. The
 * scheduler (model_scheduler.cc) words them with Triton's prefix; other REJECTED 503s (unloading,
 * queue timeouts) stay UNAVAILABLE even when the model's name says "queue". Until the native result
 * carries a typed reason, this prefix is the one place the distinction is read.
 */
function isQueueFull(err: InferError): boolean {
  return err.status === 503 && err.reason === 'REJECTED' && err.message.startsWith('Exceeds maximum queue size');
}

export function toProtocolError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (err instanceof InferError) {
    const code = isQueueFull(err) ? GrpcStatus.RESOURCE_EXHAUSTED : GRPC_BY_HTTP[err.status];
    return new ProtocolError(err.message, err.status, code);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProtocolError(`internal error: ${message}`, 500);
}
