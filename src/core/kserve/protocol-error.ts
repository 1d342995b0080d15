/**
 * The one error type the HTTP and gRPC front ends turn into responses: Triton's HTTP status and the
 * matching gRPC status code. Executor InferErrors map onto it in `toProtocolError`.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { traitsOf } from '../executor/failure-reasons.js';
import { InferError } from '../executor/types.js';

export type HttpStatus = 400 | 404 | 413 | 499 | 500 | 501 | 503 | 504;

/** Triton's pairing of HTTP statuses and gRPC codes (clients read it backwards: server-errors.ts). */
export const GRPC_BY_HTTP: Record<HttpStatus, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  404: GrpcStatus.NOT_FOUND,
  413: GrpcStatus.RESOURCE_EXHAUSTED,
  499: GrpcStatus.CANCELLED,
  500: GrpcStatus.INTERNAL,
  501: GrpcStatus.UNIMPLEMENTED,
  503: GrpcStatus.UNAVAILABLE,
  504: GrpcStatus.DEADLINE_EXCEEDED,
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

export function toProtocolError(err: unknown): ProtocolError {
  if (err instanceof ProtocolError) return err;
  if (err instanceof InferError) {
    // The native core's failure table gives both statuses (a full queue: 503 / RESOURCE_EXHAUSTED).
    const traits = traitsOf(err.failure);
    return new ProtocolError(err.message, traits.httpStatus as HttpStatus, traits.grpcCode as GrpcStatus);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProtocolError(`internal error: ${message}`, 500);
}
