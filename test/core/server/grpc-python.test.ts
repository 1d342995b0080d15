/**
 * The native gRPC front end against gRPC's C-core client (Python grpcio), unary and streaming:
 * ModelInfer and ModelStreamInfer of the MNIST template (answered natively) and a control-plane
 * call (answered by JS), uncompressed and with the channel's gzip and deflate compression. Request bytes are built here from the project's .proto (protobufjs), so
 * the Python side needs only grpcio, which scripts/python-env.sh (npm's pretest) puts in .venv-test/.
 * Skipped without that venv, except in CI, where it must run.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcRoot } from '../../../src/core/kserve/grpc-proto.js';
import { pythonForTests } from '../../helpers/python-env.js';
import { mnistRepository, startRealServer, type RealServer } from './e2e/helpers.js';

// pythonForTests puts .venv-test/bin first on PATH.
const haveGrpcio = pythonForTests().available;
const python = 'python3';

// Reads the channel's compression and base64 request messages from argv; prints one JSON line of what came back.
const CLIENT = `
import base64, json, sys, grpc
target, compression, requests = sys.argv[1], sys.argv[2], [base64.b64decode(r) for r in sys.argv[3:]]
ident = lambda b: b
out = {}
with grpc.insecure_channel(target, compression={'none': grpc.Compression.NoCompression, 'gzip': grpc.Compression.Gzip, 'deflate': grpc.Compression.Deflate}[compression]) as ch:
    infer = ch.unary_unary('/inference.GRPCInferenceService/ModelInfer', request_serializer=ident, response_deserializer=ident)
    out['unary'] = base64.b64encode(infer(requests[0], timeout=10)).decode()
    try:
        infer(requests[1], timeout=10)
        out['bad'] = None
    except grpc.RpcError as e:
        out['bad'] = [e.code().value[0], e.details()]
    stream = ch.stream_stream('/inference.GRPCInferenceService/ModelStreamInfer', request_serializer=ident, response_deserializer=ident)
    out['stream'] = [base64.b64encode(r).decode() for r in stream(iter(requests[:2] * 2), timeout=10)]
    live = ch.unary_unary('/inference.GRPCInferenceService/ServerLive', request_serializer=ident, response_deserializer=ident)
    out['live'] = base64.b64encode(live(b'', timeout=10)).decode()
print(json.dumps(out))
`;

describe.skipIf(!haveGrpcio)('native gRPC with Python grpcio (C-core)', () => {
  let s: RealServer;
  beforeAll(async () => {
    s = await startRealServer(mnistRepository());
  });
  afterAll(async () => {
    await s?.stop();
  });

  it.each(['none', 'gzip', 'deflate'])('answers unary and streaming infer and a control-plane call (compression: %s)', async (compression) => {
    const req = grpcRoot().lookupType('inference.ModelInferRequest');
    const encode = (v: object) => Buffer.from(req.encode(req.fromObject(v)).finish()).toString('base64');
    const good = encode({ model_name: 'mnist', id: 'py-1', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28] }], raw_input_contents: [Buffer.alloc(784 * 4)] });
    const bad = encode({ model_name: 'mnist', id: 'py-2', inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 28, 28] }], raw_input_contents: [Buffer.alloc(784 * 4)] });
    const { stdout } = await promisify(execFile)(python, ['-c', CLIENT, s.grpc, compression, good, bad], { timeout: 60_000 });
    const out = JSON.parse(stdout) as { unary: string; bad: [number, string]; stream: string[]; live: string };
    const res = grpcRoot().lookupType('inference.ModelInferResponse');
    const unary = res.toObject(res.decode(Buffer.from(out.unary, 'base64'))) as any;
    expect(unary).toMatchObject({ model_name: 'mnist', model_version: '1', id: 'py-1', outputs: [{ name: 'logits', datatype: 'FP32' }] });
    expect(unary.raw_output_contents[0].length).toBe(40);
    expect(out.bad[0]).toBe(3);  // INVALID_ARGUMENT
    expect(out.bad[1]).toMatch(/unexpected shape for input 'image' for model 'mnist'/);
    const streamed = grpcRoot().lookupType('inference.ModelStreamInferResponse');
    const answers = out.stream.map((b) => streamed.toObject(streamed.decode(Buffer.from(b, 'base64'))) as any);
    expect(answers).toHaveLength(4);
    expect(answers.filter((a) => a.infer_response?.id === 'py-1' && !a.error_message)).toHaveLength(2);
    expect(answers.filter((a) => a.infer_response?.id === 'py-2' && /unexpected shape/.test(a.error_message))).toHaveLength(2);
    // Each is its request's only response: Triton's final flag on every one, errors included.
    expect(answers.map((a) => a.infer_response.parameters?.triton_final_response?.bool_param)).toEqual([true, true, true, true]);
    const live = grpcRoot().lookupType('inference.ServerLiveResponse');
    expect(live.toObject(live.decode(Buffer.from(out.live, 'base64')))).toEqual({ live: true });
  });
});
