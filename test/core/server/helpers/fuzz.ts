/** Drives the fuzz cases against a running server and checks every answer is a client error. */
import * as grpc from '@grpc/grpc-js';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { seededRandom } from '../../../helpers/onnx-builder.js';
import { httpFuzzCases, type FuzzInput } from './fuzz-cases.js';
import { rawRequest } from './raw-http.js';
import { grpcRoot } from '../../../../src/core/kserve/grpc-proto.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Sends `count` malformed HTTP requests, 16 at a time; returns the statuses that were not 4xx. */
export async function fuzzHttp(base: string, model: string, inputs: FuzzInput[], count: number, seed: number): Promise<string[]> {
  const cases = httpFuzzCases(model, inputs, count, seed);
  const bad: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const c = cases[next++]!;
      try {
        const res = await rawRequest(base, 'POST', c.path, c.headers, c.body);
        const error = JSON.parse(res.body.toString()).error;
        if (res.status < 400 || res.status >= 500 || typeof error !== 'string' || error === '') bad.push(`${c.kind}: ${res.status} ${res.body.toString().slice(0, 200)}`);
      } catch (err) {
        bad.push(`${c.kind}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return bad;
}

/** Client errors only: INTERNAL would mean the server failed on a bad message. */
const CLIENT_ERRORS = new Set([grpc.status.INVALID_ARGUMENT, grpc.status.NOT_FOUND, grpc.status.RESOURCE_EXHAUSTED, grpc.status.UNAVAILABLE]);

/**
 * Sends `count` malformed ModelInfer messages (random bytes, and valid messages with broken
 * fields); returns descriptions of calls that did not fail with a gRPC error.
 */
export async function fuzzGrpc(address: string, model: string, inputs: FuzzInput[], count: number, seed: number): Promise<string[]> {
  const rand = seededRandom(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const Req = grpcRoot().lookupType('inference.ModelInferRequest');
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const valid = () => ({
    model_name: model,
    inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: [...i.shape] })),
    raw_input_contents: inputs.map((i) => Buffer.from(i.bytes)),
  });
  const mutations: Array<() => Buffer> = [
    () => Buffer.from(Array.from({ length: 1 + int(100) }, () => int(256))),
    () => { const m = valid(); m.raw_input_contents[0] = m.raw_input_contents[0]!.subarray(0, int(m.raw_input_contents[0]!.byteLength)); return Buffer.from(Req.encode(Req.fromObject(m)).finish()); },
    () => { const m = valid(); m.inputs[0]!.shape[int(m.inputs[0]!.shape.length)] = [-3, 0, 99, 2 ** 40][int(4)]!; return Buffer.from(Req.encode(Req.fromObject(m)).finish()); },
    () => { const m = valid(); m.inputs[0]!.datatype = ['FP16', 'INT8', 'nope', ''][int(4)]!; return Buffer.from(Req.encode(Req.fromObject(m)).finish()); },
    () => { const m = valid(); m.model_name = ['nope', '', model + 'x'][int(3)]!; return Buffer.from(Req.encode(Req.fromObject(m)).finish()); },
    () => { const m: Record<string, unknown> = valid(); m.raw_input_contents = []; return Buffer.from(Req.encode(Req.fromObject(m)).finish()); },
    () => { const m = valid(); m.raw_input_contents.push(Buffer.alloc(4)); return Buffer.from(Req.encode(Req.fromObject(m)).finish()); },
    () => { const m: Record<string, unknown> = { ...valid(), model_version: ['x', '77', '-1'][int(3)] }; return Buffer.from(Req.encode(Req.fromObject(m)).finish()); },
    () => { const bytes = Buffer.from(Req.encode(Req.fromObject(valid())).finish()); return bytes.subarray(0, int(bytes.byteLength)); },
  ];
  const bad: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const n = next++;
      const body = mutations[n % mutations.length]!();
      await new Promise<void>((resolve) => {
        client.makeUnaryRequest('/inference.GRPCInferenceService/ModelInfer', (b: Buffer) => b, (b: Buffer) => b, body, (err) => {
          if (!err) bad.push(`mutation ${n % mutations.length}: succeeded`);
          else if (!CLIENT_ERRORS.has(err.code)) bad.push(`mutation ${n % mutations.length}: ${grpc.status[err.code]} ${err.details}`);
          resolve();
        });
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  client.close();
  return bad;
}
