/**
 * toProtocolError: executor failures onto Triton's HTTP status and gRPC code, through the native
 * core's one failure table (request_failure.h). A full queue is RESOURCE_EXHAUSTED over gRPC;
 * other rejections are UNAVAILABLE, whatever the message says.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { failureTable, type FailureName } from '../../../src/core/executor/failure-reasons.js';
import { InferError } from '../../../src/core/executor/types.js';
import { toProtocolError } from '../../../src/core/kserve/protocol-error.js';

describe('toProtocolError', () => {
  it('maps a full queue to 503 / RESOURCE_EXHAUSTED by its reason, not its text', () => {
    const e = toProtocolError(new InferError('any words at all', 'QUEUE_FULL'));
    expect([e.httpStatus, e.grpcCode]).toEqual([503, GrpcStatus.RESOURCE_EXHAUSTED]);
  });

  it('keeps other rejections UNAVAILABLE, also when the message speaks of a full queue', () => {
    for (const failure of ['UNAVAILABLE', 'QUEUE_TIMEOUT'] as const) {
      const e = toProtocolError(new InferError('Exceeds maximum queue size for model m', failure));
      expect([e.httpStatus, e.grpcCode]).toEqual([503, GrpcStatus.UNAVAILABLE]);
    }
  });

  it('maps other reasons through the table, and unknown errors to 500 / INTERNAL', () => {
    expect(toProtocolError(new InferError('bad')).grpcCode).toBe(GrpcStatus.INVALID_ARGUMENT);
    expect(toProtocolError(new InferError('engine', 'BACKEND')).httpStatus).toBe(500);
    const e = toProtocolError(new Error('boom'));
    expect([e.httpStatus, e.grpcCode, e.message]).toEqual([500, GrpcStatus.INTERNAL, 'internal error: boom']);
  });

  it('reads the one table from the native core; its names are the ones TypeScript knows', () => {
    const names: FailureName[] = ['NONE', 'INVALID_ARGUMENT', 'NOT_FOUND', 'UNSUPPORTED', 'TOO_LARGE', 'UNAVAILABLE', 'QUEUE_FULL',
      'QUEUE_TIMEOUT', 'DEADLINE_EXCEEDED', 'CANCELLED', 'BACKEND', 'INTERNAL'];
    expect(failureTable().map((t) => t.name)).toEqual(names);
    const labels = new Set(failureTable().map((t) => t.metricReason));
    expect([...labels].sort()).toEqual(['BACKEND', 'CANCELED', 'OTHER', 'REJECTED']);
    for (const t of failureTable()) expect(GrpcStatus[t.grpcCode]).toBeDefined();
  });
});
