/**
 * The classification extension over gRPC: ModelInfer and ModelStreamInfer calls that ask for
 * class results are answered by the native route (the verbose log marks them `route: native`),
 * with exactly the bytes the JS handler (rpc-handler.ts, which answers the models JS runs) sends
 * for the same message on the same models; a k the JS codec refuses is left to it.
 */
import '../../helpers/test-addon.js';
import http2 from 'node:http2';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/core/executor/index.js';
import { grpcRoot } from '../../../src/core/kserve/grpc-proto.js';
import { DiskModelSource } from '../../../src/core/server/disk-source.js';
import { createRpcHandler, INFER_PATH, STREAM_INFER_PATH, type RpcHandler } from '../../../src/core/server/grpc/rpc-handler.js';
import { InferenceService } from '../../../src/core/server/inference-service.js';
import { silentLogger, type LogFields, type Logger } from '../../../src/core/server/logger.js';
import { ModelManager } from '../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../src/core/server/server.js';
import { mnistRepository } from './e2e/helpers.js';
import { CLASSES_MODELS } from './helpers/identity-models.js';

const encode = (type: string, value: object): Buffer => {
  const t = grpcRoot().lookupType(type);
  return Buffer.from(t.encode(t.fromObject(value)).finish());
};
const framed = (message: Uint8Array): Buffer => {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.byteLength, 1);
  return Buffer.concat([prefix, message]);
};
/** The messages of a gRPC body (each after its 5-byte prefix). */
const messages = (body: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  for (let at = 0; at + 5 <= body.byteLength; at += 5 + body.readUInt32BE(at + 1)) out.push(body.subarray(at + 5, at + 5 + body.readUInt32BE(at + 1)));
  return out;
};
/** The elements of a BYTES tensor in KServe's layout. */
const strings = (raw: Uint8Array): string[] => {
  const b = Buffer.from(raw);
  const out: string[] = [];
  for (let at = 0; at < b.byteLength; at += 4 + b.readUInt32LE(at)) out.push(b.subarray(at + 4, at + 4 + b.readUInt32LE(at)).toString('utf8'));
  return out;
};

interface Answer {
  grpcStatus: string;
  grpcMessage: string;
  body: Buffer;
}

let repo: string;
let manager: ModelManager;
let server: GebeServer;
let session: http2.ClientHttp2Session;
let js: RpcHandler;
const logged: Array<LogFields | undefined> = [];

beforeAll(async () => {
  repo = mnistRepository(CLASSES_MODELS);
  manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
  await manager.start();
  const collecting: Logger = { ...silentLogger, verboseEnabled: true, verbose: (message, fields) => void (message === 'grpc call' && logged.push(fields)) };
  server = new GebeServer(manager, { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableHttp: false, enableMetrics: false, maxBodyBytes: 1 << 20 }, collecting);
  session = http2.connect(`http://127.0.0.1:${(await server.listen()).grpc}`);
  // The JS path on the same models: what ModelInfer of a model without a native route answers.
  js = createRpcHandler(new InferenceService(manager), silentLogger);
});
let stopped = false;
async function stop(): Promise<void> {
  if (stopped) return;
  stopped = true;
  session?.close();
  await server?.stop(1000); // unloads the models too; drains the native request log
}
afterAll(async () => {
  await stop();
  rmSync(repo, { recursive: true, force: true });
});

/** One call on the native server: every message of `body` sent, the stream ended. */
function native(path: string, body: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    const chunks: Buffer[] = [];
    const answer: Answer = { grpcStatus: '', grpcMessage: '', body: Buffer.alloc(0) };
    const read = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined) answer.grpcStatus = String(h['grpc-status']);
      if (h['grpc-message'] !== undefined) answer.grpcMessage = decodeURIComponent(String(h['grpc-message']));
    };
    req.on('response', read);
    req.on('trailers', read);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ ...answer, body: Buffer.concat(chunks) }));
    req.on('error', reject);
    req.end(body);
  });
}

/** A ModelInferRequest of input X (raw contents) asking for `outputs`. */
function inferRequest(model: string, datatype: string, shape: number[], raw: ArrayBufferView, outputs: object[], id = '', version = '1'): Buffer {
  return encode('inference.ModelInferRequest', {
    model_name: model, model_version: version, id,
    inputs: [{ name: 'X', datatype, shape }], outputs,
    raw_input_contents: [Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)],
  });
}
const classes = (k: object, name = 'Y', key = 'classification') => ({ name, parameters: { [key]: k } });

describe('ModelInfer with class results, answered natively', () => {
  it('answers exactly as the JS path: batched with labels, both keys, every numeric kind of k, beside a plain output', async () => {
    const fp32 = new Float32Array([0.1, 0.7, 0.2, 0.7, NaN, 3, -Infinity, Infinity]);
    const cases: Array<[string, Buffer]> = [
      ['classification, int64', inferRequest('classes', 'FP32', [2, 4], fp32, [classes({ int64_param: 3 })], 'a')],
      ['class_count, uint64, k past the class count', inferRequest('classes', 'FP32', [2, 4], fp32, [classes({ uint64_param: 10 }, 'Y', 'class_count')])],
      ['classification as a whole double, Z plain', inferRequest('classes', 'FP32', [2, 4], fp32, [classes({ double_param: 2 }), { name: 'Z' }])],
      ['both keys: class_count wins', inferRequest('classes', 'FP32', [2, 4], fp32, [{ name: 'Y', parameters: { classification: { int64_param: 1 }, class_count: { int64_param: 2 } } }])],
      ['without batching, INT32 with labels', inferRequest('classes_int32', 'INT32', [5], new Int32Array([5, -2, 9, 9, 0]), [classes({ int64_param: 3 })])],
      ['UINT8', inferRequest('classes_uint8', 'UINT8', [4], new Uint8Array([200, 7, 255, 7]), [classes({ int64_param: 4 })])],
    ];
    for (const [what, request] of cases) {
      const answer = await native(INFER_PATH, framed(request));
      const reference = await js.handle(INFER_PATH, request, () => undefined);
      expect(answer.grpcStatus, what).toBe('0');
      expect(reference.code, what).toBe(0);
      expect(answer.body.equals(framed(reference.bytes!)), what).toBe(true);
    }
    const response = grpcRoot().lookupType('inference.ModelInferResponse').decode(messages((await native(INFER_PATH, framed(cases[0]![1]))).body)[0]!) as unknown as {
      id: string; outputs: Array<{ name: string; datatype: string; shape: Array<number | { toNumber(): number }> }>; raw_output_contents: Uint8Array[];
    };
    expect(response.id).toBe('a');
    expect(response.outputs.map((o) => [o.name, o.datatype, o.shape.map(Number)])).toEqual([['Y', 'BYTES', [2, 3]]]);
    expect(strings(response.raw_output_contents[0]!)).toEqual(['0.699999988:1', '0.699999988:3', '0.200000003:2:bird', 'inf:3', '3.000000000:1', '-inf:2:bird']);
    const int32 = grpcRoot().lookupType('inference.ModelInferResponse').decode(messages((await native(INFER_PATH, framed(cases[4]![1]))).body)[0]!) as unknown as { raw_output_contents: Uint8Array[] };
    expect(strings(int32.raw_output_contents[0]!)).toEqual(['9:2:two', '9:3:thr\u00e9e', '5:0:zero']);
  });

  it('refuses class results of an FP16 output as the JS path does (INVALID_ARGUMENT)', async () => {
    const request = inferRequest('classes_fp16', 'FP16', [1, 2], new Uint16Array([0x3c00, 0x4000]), [classes({ int64_param: 1 })]);
    const answer = await native(INFER_PATH, framed(request));
    const reference = await js.handle(INFER_PATH, request, () => undefined);
    expect([answer.grpcStatus, answer.grpcMessage]).toEqual([String(reference.code), reference.message]);
    expect(answer.grpcStatus).toBe('3');
    expect(answer.grpcMessage).toBe("class result not available for output 'Y' due to unsupported type 'FP16'");
  });
});

describe('ModelStreamInfer with class results, answered natively', () => {
  it('answers each message exactly as the JS path, a refusal in band', async () => {
    const requests = [
      inferRequest('classes', 'FP32', [1, 4], new Float32Array([0.5, 0.25, 0.75, 0.25]), [classes({ int64_param: 4 })], 's1'),
      inferRequest('classes_fp16', 'FP16', [1, 2], new Uint16Array([0x3c00, 0x4000]), [classes({ int64_param: 1 })], 's2'),
      inferRequest('classes_int32', 'INT32', [5], new Int32Array([1, 2, 3, 4, 5]), [classes({ int64_param: 2 }, 'Y', 'class_count')], 's3'),
      // No version: the in-band refusal echoes the client's (empty) model_version on both paths.
      inferRequest('classes_fp16', 'FP16', [1, 2], new Uint16Array([0x3c00, 0x4000]), [classes({ int64_param: 1 })], 's4', ''),
    ];
    const answer = await native(STREAM_INFER_PATH, Buffer.concat(requests.map(framed)));
    expect(answer.grpcStatus).toBe('0');
    const StreamResponse = grpcRoot().lookupType('inference.ModelStreamInferResponse');
    const idOf = (m: Buffer) => (StreamResponse.decode(m) as unknown as { infer_response?: { id: string } }).infer_response?.id;
    const got = new Map(messages(answer.body).map((m) => [idOf(m), m]));
    expect([...got.keys()].sort()).toEqual(['s1', 's2', 's3', 's4']);
    for (const request of requests) {
      const reference = await js.handle(STREAM_INFER_PATH, request, () => undefined);
      const id = idOf(Buffer.from(reference.bytes!));
      expect(got.get(id)!.equals(Buffer.from(reference.bytes!)), id).toBe(true);
    }
    const refusal = StreamResponse.decode(got.get('s2')!) as unknown as { error_message: string };
    expect(refusal.error_message).toBe("class result not available for output 'Y' due to unsupported type 'FP16'");
    const unversioned = StreamResponse.decode(got.get('s4')!) as unknown as { infer_response: { model_version: string } };
    expect(unversioned.infer_response.model_version).toBe('');
  });
});

describe('a k the JS codec refuses', () => {
  it('is left to the JS path, which words it', async () => {
    const fp32 = new Float32Array([1, 2, 3, 4]);
    for (const [k, got] of [[{ int64_param: 0 }, '0'], [{ bool_param: true }, 'true'], [{ string_param: '2' }, '"2"'], [{ double_param: 1.5 }, '1.5']] as const) {
      const request = inferRequest('classes', 'FP32', [1, 4], fp32, [classes(k)]);
      const answer = await native(INFER_PATH, framed(request));
      expect(answer.grpcStatus).toBe('3');
      expect(answer.grpcMessage).toBe(`parameter 'classification' of output 'Y' must be a positive integer, got ${got}`);
    }
  });
});

describe('the calls above', () => {
  it('were answered by the native route, except those with a k the JS codec refuses', async () => {
    await stop();
    const byRoute = (route: string | undefined, method: string) => logged.filter((f) => f?.route === route && f?.method === method).length;
    // ModelInfer: 6 compared + 2 decoded + the FP16 refusal; one stream of 4 messages.
    expect(byRoute('native', INFER_PATH)).toBe(9);
    expect(byRoute('native', STREAM_INFER_PATH)).toBe(4);
    expect(byRoute(undefined, INFER_PATH)).toBe(4);
  });
});
