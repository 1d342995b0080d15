/**
 * A client's request parameters (perf's --request-parameter) in the requests it encodes, read back
 * with the server's own decoders: HTTP's JSON `parameters` and gRPC's ModelInferRequest.parameters,
 * alongside a sequence step's parameters when a request carries both.
 */
import { describe, expect, it } from 'vitest';
import { encodeBinaryInferRequest, encodeHttpInferRequest, withSequenceParameters } from '../../../../src/core/kserve/client/http-binary.js';
import { encodeGrpcInferRequest, encodeGrpcSequenceParameters } from '../../../../src/core/kserve/client/grpc.js';
import { decodeHttpInferRequest } from '../../../../src/core/kserve/codec/http-infer-request.js';
import { decodeGrpcInferRequest, type GrpcInferRequestMessage } from '../../../../src/core/kserve/codec/grpc-infer.js';
import { grpcRoot } from '../../../../src/core/kserve/grpc-proto.js';

const inputs = [{ name: 'X', datatype: 'INT32' as const, shape: [1, 2], data: new Uint8Array(new Int32Array([7, 8]).buffer) }];
const parameters = { mode: 'fast:lane', max_tokens: 256, stream: false };
const step = { id: 42, start: true, end: false };

/** A tensor's INT32 values (its bytes may be a view into the body, at any offset). */
const int32s = (data: Uint8Array) => [...new Int32Array(Uint8Array.from(data).buffer)];

function grpcDecoded(bytes: Buffer) {
  return decodeGrpcInferRequest(grpcRoot().lookupType('inference.ModelInferRequest').decode(bytes) as unknown as GrpcInferRequestMessage);
}

describe('request parameters over HTTP', () => {
  it('opens the JSON header with them, binary or JSON tensors, and the server hands them to the model', () => {
    const binary = encodeBinaryInferRequest(inputs, ['Y'], undefined, parameters);
    expect(binary.body.subarray(0, binary.headerLength).toString()).toBe(
      '{"parameters":{"mode":"fast:lane","max_tokens":256,"stream":false},"inputs":[{"name":"X","shape":[1,2],"datatype":"INT32","parameters":{"binary_data_size":8}}],"outputs":[{"name":"Y","parameters":{"binary_data":true}}]}');
    const { request } = decodeHttpInferRequest(binary.body, binary.headerLength);
    expect(request.parameters).toEqual(parameters);
    expect(int32s(request.inputs[0]!.data)).toEqual([7, 8]);
    const json = encodeHttpInferRequest(inputs, ['Y'], { input: 'json', output: 'json' }, parameters);
    expect(decodeHttpInferRequest(json.body, json.headerLength).request.parameters).toEqual(parameters);
  });

  it('adds a sequence step\'s parameters to them, and writes no parameters when there are none', () => {
    const both = withSequenceParameters(encodeBinaryInferRequest(inputs, ['Y'], undefined, parameters), step);
    const { request } = decodeHttpInferRequest(both.body, both.headerLength);
    expect([request.parameters, request.sequenceId, request.sequenceStart, request.sequenceEnd]).toEqual([parameters, 42, true, false]);
    expect(int32s(request.inputs[0]!.data)).toEqual([7, 8]);

    const plain = encodeBinaryInferRequest(inputs, ['Y'], undefined, {});
    expect(plain.body.toString().startsWith('{"inputs":')).toBe(true);
    const onlySequence = decodeHttpInferRequest(withSequenceParameters(plain, step).body, withSequenceParameters(plain, step).headerLength).request;
    expect([onlySequence.parameters, onlySequence.sequenceId]).toEqual([undefined, 42]);
  });
});

describe('request parameters over gRPC', () => {
  it('are InferParameters (string_param, int64_param, bool_param) the server hands to the model, alongside a sequence step\'s', () => {
    const encoded = encodeGrpcInferRequest('m', '1', inputs, ['Y'], undefined, parameters);
    const message = grpcRoot().lookupType('inference.ModelInferRequest').toObject(grpcRoot().lookupType('inference.ModelInferRequest').decode(encoded), { longs: Number });
    expect(message.parameters).toEqual({ mode: { string_param: 'fast:lane' }, max_tokens: { int64_param: 256 }, stream: { bool_param: false } });
    expect(grpcDecoded(encoded).parameters).toEqual(parameters);
    // Protobuf merges concatenated messages: the step's entries join the prepared request's map.
    const both = grpcDecoded(Buffer.concat([encoded, encodeGrpcSequenceParameters(step)]));
    expect([both.parameters, both.sequenceId, both.sequenceStart, both.sequenceEnd]).toEqual([parameters, 42n, true, false]);
    expect(grpcDecoded(encodeGrpcInferRequest('m', '1', inputs, ['Y'])).parameters).toBeUndefined();
  });
});
