/**
 * toProtocolError: executor failures onto Triton's HTTP status and gRPC code. A full queue is
 * RESOURCE_EXHAUSTED over gRPC; other rejections are UNAVAILABLE, whatever the model is called.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { InferError } from '../../../src/core/executor/types.js';
import { toProtocolError } from '../../../src/core/server/protocol-error.js';

describe('toProtocolError', () => {
  it('maps a full queue to 503 / RESOURCE_EXHAUSTED', () => {
    const e = toProtocolError(new InferError("Exceeds maximum queue size for model 'm' (max_queue_size 1 of its priority level); retry later or raise max_queue_size", 503, 'REJECTED'));
    expect([e.httpStatus, e.grpcCode]).toEqual([503, GrpcStatus.RESOURCE_EXHAUSTED]);
  });

  it('keeps other rejections UNAVAILABLE, also for a model named after a queue', () => {
    for (const message of ["model 'queue_model' is unloading; the request was not run", 'Request timeout expired']) {
      const e = toProtocolError(new InferError(message, 503, 'REJECTED'));
      expect([e.httpStatus, e.grpcCode]).toEqual([503, GrpcStatus.UNAVAILABLE]);
    }
  });

  it('maps other statuses through Triton’s table, and unknown errors to 500 / INTERNAL', () => {
    expect(toProtocolError(new InferError('bad', 400)).grpcCode).toBe(GrpcStatus.INVALID_ARGUMENT);
    const e = toProtocolError(new Error('boom'));
    expect([e.httpStatus, e.grpcCode, e.message]).toEqual([500, GrpcStatus.INTERNAL, 'internal error: boom']);
  });
});
