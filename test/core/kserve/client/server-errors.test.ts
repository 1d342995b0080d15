/** One wording for a server's refusals, whichever protocol carried them. */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { inferenceRefused, modelRefused } from '../../../../src/core/kserve/client/server-errors.js';

describe('server refusals', () => {
  it('reads a gRPC code as the HTTP status Triton pairs it with', () => {
    const pairs: Array<[number, GrpcStatus]> = [[404, GrpcStatus.NOT_FOUND], [503, GrpcStatus.UNAVAILABLE], [400, GrpcStatus.INVALID_ARGUMENT], [500, GrpcStatus.INTERNAL]];
    for (const [http, grpc] of pairs) {
      expect(modelRefused('model "m"', 'S', { grpc }, 'why').message).toBe(modelRefused('model "m"', 'S', { http }, 'why').message.replace(`HTTP ${http}`, `gRPC ${GrpcStatus[grpc]}`));
    }
  });

  it('names a missing model, a model that is not ready, and the models the server has', () => {
    expect(modelRefused('model "m"', 'S', { grpc: GrpcStatus.NOT_FOUND }, 'gone', ['a', 'b', 'a']).message)
      .toBe('model "m" is not on the server at S (gone); the server has "a", "b"; check -m/--model-version');
    expect(modelRefused('model "m"', 'S', { grpc: GrpcStatus.UNAVAILABLE }, 'loading').message)
      .toBe('model "m" is not ready on S (loading); fix what the server reports, or wait for the model to load');
  });

  it('says what an inference refusal with 503 / UNAVAILABLE may mean', () => {
    expect(inferenceRefused('S', { grpc: GrpcStatus.UNAVAILABLE }, 'x').message).toMatch(/^the server at S answered gRPC UNAVAILABLE to an inference request: x; the model may be loading/);
    expect(inferenceRefused('S', { http: 400 }, 'bad shape').message).toBe('the server at S answered HTTP 400 to an inference request: bad shape');
  });
});
