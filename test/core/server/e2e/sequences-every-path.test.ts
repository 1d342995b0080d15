/**
 * A sequence model (the accumulator example: implicit state, START/END/READY controls, a UINT64
 * CORRID) on every path: the native HTTP route (JSON and binary bodies) and the native gRPC route
 * (ModelInfer, ModelStreamInfer) of `gebe serve`, the JS front ends that decode with the TS codecs
 * (node:http with --http-frontend node, grpc-js with --grpc-use-ssl), and in process.
 *
 * - The same sequences give the same outputs on every path, and the native server answers its
 *   requests without JS: its HTTP front end forwards none of them, and --log-verbose marks every
 *   gRPC infer call `route: native`.
 * - Every refusal of a sequence parameter (its type, range, length) and every sequence batcher
 *   error reads the same on every path, with HTTP 400 / gRPC INVALID_ARGUMENT (in band on a stream).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import type { NativeHttpFrontend } from '../../../../src/core/server/http/native-frontend.js';
import { silentLogger, type LogFields, type Logger } from '../../../../src/core/server/logger.js';
import { ModelManager } from '../../../../src/core/server/model-manager.js';
import { GebeServer } from '../../../../src/core/server/server.js';
import { grpcClient, type GrpcClient } from '../helpers/grpc-client.js';
import {
  grpcStreamPath, grpcUnaryPath, httpBinaryPath, httpJsonPath, inProcessPath, type Outcome, type Path, type Step,
} from '../helpers/sequence-paths.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/tls-certs.js';
import { repoRoot } from './helpers.js';

const EXAMPLE = path.join(repoRoot, 'fixtures/repositories/sequence-example');

let repo: string;
let manager: ModelManager;
let certs: TestCertificates;
let native: GebeServer;
let viaJs: GebeServer;
let nativeBase = '';
let jsBase = '';
let nativeGrpc: GrpcClient;
let jsGrpc: GrpcClient;
const logged: Array<{ message: string; fields?: LogFields }> = [];

const NATIVE_PATHS: Path[] = [
  httpJsonPath('native HTTP JSON', () => nativeBase),
  httpBinaryPath('native HTTP binary', () => nativeBase),
  grpcUnaryPath('native gRPC ModelInfer', () => nativeGrpc),
  grpcStreamPath('native gRPC ModelStreamInfer', () => nativeGrpc),
];
const JS_PATHS: Path[] = [
  httpJsonPath('node:http JSON', () => jsBase),
  httpBinaryPath('node:http binary', () => jsBase),
  grpcUnaryPath('grpc-js ModelInfer', () => jsGrpc),
  grpcStreamPath('grpc-js ModelStreamInfer', () => jsGrpc),
  inProcessPath('in process', () => manager.resolve('accumulator')),
];
const PATHS = [...NATIVE_PATHS, ...JS_PATHS];

/** The native gRPC infer calls made so far (each must be logged `route: native`). */
let nativeGrpcCalls = 0;

async function send(p: Path, steps: Step[]): Promise<Outcome[]> {
  // Each message of a stream is logged as one call.
  if (NATIVE_PATHS.includes(p) && p.wire.startsWith('grpc')) nativeGrpcCalls += steps.length;
  return p.send(steps);
}

/** How each wire carries a request's INVALID_ARGUMENT failure. */
const INVALID: Record<Path['wire'], number | string> = {
  http: 400, grpc: grpc.status.INVALID_ARGUMENT, 'grpc stream': 'in band', 'in process': 'INVALID_ARGUMENT',
};

beforeAll(async () => {
  repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-seq-paths-'));
  cpSync(EXAMPLE, repo, { recursive: true });
  manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
  await manager.start();
  const collecting: Logger = { ...silentLogger, verboseEnabled: true, verbose: (message, fields) => void logged.push({ message, fields }) };
  const common = { host: '127.0.0.1', httpPort: 0, grpcPort: 0, metricsPort: 0, enableMetrics: false, maxBodyBytes: 1 << 20 };
  native = new GebeServer(manager, common, collecting);
  const nativePorts = await native.listen();
  nativeBase = `http://127.0.0.1:${nativePorts.http}`;
  nativeGrpc = grpcClient(`127.0.0.1:${nativePorts.grpc}`);
  certs = makeTestCertificates();
  viaJs = new GebeServer(manager, { ...common, httpFrontend: 'node', grpcTls: { cert: certs.pem('server.pem'), key: certs.pem('server.key'), mutual: false } }, silentLogger);
  const jsPorts = await viaJs.listen();
  jsBase = `http://127.0.0.1:${jsPorts.http}`;
  jsGrpc = grpcClient(`localhost:${jsPorts.grpc}`, 'inference.GRPCInferenceService', grpc.credentials.createSsl(certs.pem('ca.pem')));
}, 60_000);

afterAll(async () => {
  nativeGrpc?.close();
  jsGrpc?.close();
  await viaJs?.stop(1000);
  await native?.stop(1000);
  await manager?.stop();
  certs?.remove();
  rmSync(repo, { recursive: true, force: true });
});

/** A step of sequence `id` with `value` in every INPUT element, spelled on each wire. */
function step(id: number, value: number, start: boolean, end: boolean): Step {
  return {
    http: { sequence_id: id, sequence_start: start, sequence_end: end },
    grpc: { sequence_id: { uint64_param: id }, sequence_start: { bool_param: start }, sequence_end: { bool_param: end } },
    local: { sequenceId: id, sequenceStart: start, sequenceEnd: end },
    values: [value, value + 1, value + 2, value + 3],
  };
}

const forwarded = () => (native.http as NativeHttpFrontend).forwarded;

describe('a sequence model on every path', () => {
  it('gives the same outputs for the same sequences on every path, the native ones answered without JS', async () => {
    const values = [1, 10, -4.5, 0.25, 100];
    const forwardedBefore = forwarded();
    // One sequence per path, all at once: their steps interleave in the batcher.
    const results = await Promise.all(PATHS.map((p, i) => {
      const id = 300 + i;
      return send(p, values.map((v, k) => step(id, v, k === 0, k === values.length - 1)));
    }));
    const sums: number[][] = [];
    let sum = [0, 0, 0, 0];
    for (const v of values) sums.push(sum = sum.map((s, e) => s + v + e));
    for (const [i, outcomes] of results.entries()) {
      const name = PATHS[i]!.name;
      expect(outcomes.map((o) => ('outputs' in o ? o.outputs : o)), name).toEqual(values.map((_, k) => ({
        OUTPUT: sums[k],                                                       // the implicit state carried step to step
        FLAGS: [100 * Number(k === 0) + 10 * Number(k === values.length - 1) + 1],  // START, END, READY as filled
        CORRID_OUT: [300 + i],                                                 // the CORRID control
      })));
    }
    expect(forwarded()).toBe(forwardedBefore);
  }, 30_000);

  it('takes a uint64 id past 2^53 exactly over both gRPC decoders and in process', async () => {
    const big = 2n ** 60n + 3n;
    const grpcStep = (id: bigint, start: boolean, end: boolean): Step => ({
      ...step(1, 1, start, end),
      grpc: { sequence_id: { uint64_param: id.toString() }, sequence_start: { bool_param: start }, sequence_end: { bool_param: end } },
      local: { sequenceId: id, sequenceStart: start, sequenceEnd: end },
    });
    for (const [k, p] of [NATIVE_PATHS[2]!, JS_PATHS[2]!, JS_PATHS[4]!].entries()) {
      const id = big + BigInt(10 * k);
      // The neighbour id has no live sequence: the error names it, digit for digit.
      const [started, neighbour, ended] = await send(p, [grpcStep(id, true, false), grpcStep(id + 1n, false, false), grpcStep(id, false, true)]);
      expect(started, p.name).toHaveProperty('outputs');
      expect(neighbour, p.name).toEqual({
        error: `inference request for sequence ${id + 1n} to model 'accumulator' must specify the START flag on the first request of the sequence`,
        code: INVALID[p.wire],
      });
      expect((ended as { outputs: Record<string, number[]> }).outputs.OUTPUT, p.name).toEqual([2, 4, 6, 8]);
    }
  });

  const NOT_AN_ID = "request parameter 'sequence_id' must be an unsigned 64-bit integer or a string, got ";
  const NO_ID = "inference request to model 'accumulator' must specify a non-zero or non-empty correlation ID (request parameter sequence_id)";
  const LONG_ID = 'é'.repeat(513);  // 513 characters, 1026 UTF-8 bytes: the bound is on bytes
  /** [what, HTTP parameters, gRPC parameters (undefined: gRPC cannot spell it), in-process fields, rows, message] */
  const REFUSALS: Array<[string, Record<string, unknown>, Record<string, object> | undefined, Step['local'], number, string]> = [
    ['a boolean id', { sequence_id: true }, { sequence_id: { bool_param: true } }, { sequenceId: true }, 1, `${NOT_AN_ID}true`],
    ['a negative id', { sequence_id: -3 }, { sequence_id: { int64_param: -3 } }, { sequenceId: -3 }, 1, `${NOT_AN_ID}-3`],
    ['a fractional id', { sequence_id: 1.5 }, { sequence_id: { double_param: 1.5 } }, { sequenceId: 1.5 }, 1, `${NOT_AN_ID}1.5`],
    ['an id above 2^53 sent as a number', { sequence_id: 2 ** 60 }, { sequence_id: { double_param: 2 ** 60 } }, { sequenceId: 2 ** 60 }, 1,
      `${NOT_AN_ID}1152921504606846976 (ids above 2^53 cannot be taken exactly: use smaller ids or string ids)`],
    ['an array id', { sequence_id: [7] }, undefined, { sequenceId: [7] }, 1, `${NOT_AN_ID}an array`],
    ['an object id', { sequence_id: { id: 7 } }, undefined, { sequenceId: { id: 7 } }, 1, `${NOT_AN_ID}an object`],
    ['a string id over 1024 bytes', { sequence_id: LONG_ID }, { sequence_id: { string_param: LONG_ID } }, { sequenceId: LONG_ID }, 1,
      "request parameter 'sequence_id' is a string of 1026 bytes, over the limit of 1024; use a shorter id"],
    ['a number as START', { sequence_id: 5, sequence_start: 1 }, { sequence_id: { uint64_param: 5 }, sequence_start: { int64_param: 1 } },
      { sequenceId: 5, sequenceStart: 1 }, 1, "request parameter 'sequence_start' must be a boolean, got 1"],
    ['a string as END', { sequence_id: 5, sequence_end: 'true' }, { sequence_id: { uint64_param: 5 }, sequence_end: { string_param: 'true' } },
      { sequenceId: 5, sequenceEnd: 'true' }, 1, "request parameter 'sequence_end' must be a boolean, got \"true\""],
    // The sequence batcher's refusals.
    ['no sequence_id', { sequence_start: true }, { sequence_start: { bool_param: true } }, { sequenceStart: true }, 1, NO_ID],
    ['a null sequence_id (not sent)', { sequence_id: null, sequence_start: true }, undefined, { sequenceId: null, sequenceStart: true }, 1, NO_ID],
    ['sequence_id 0', { sequence_id: 0, sequence_start: true }, { sequence_id: { uint64_param: 0 }, sequence_start: { bool_param: true } },
      { sequenceId: 0, sequenceStart: true }, 1, NO_ID],
    ['no START for an id without a live sequence', { sequence_id: 999 }, { sequence_id: { uint64_param: 999 } }, { sequenceId: 999 }, 1,
      "inference request for sequence 999 to model 'accumulator' must specify the START flag on the first request of the sequence"],
    ['a string id for a numeric CORRID', { sequence_id: 'abc', sequence_start: true, sequence_end: true },
      { sequence_id: { string_param: 'abc' }, sequence_start: { bool_param: true }, sequence_end: { bool_param: true } },
      { sequenceId: 'abc', sequenceStart: true, sequenceEnd: true }, 1,
      "sequence id 'abc' is a string, but the model's CONTROL_SEQUENCE_CORRID input is UINT64; send a numeric sequence_id"],
    ['a batch of two rows', { sequence_id: 998, sequence_start: true }, { sequence_id: { uint64_param: 998 }, sequence_start: { bool_param: true } },
      { sequenceId: 998, sequenceStart: true }, 2,
      "inference request to model 'accumulator' must specify batch-size 1 due to requirements of sequence batcher"],
  ];

  it('refuses every bad sequence parameter and answers every batcher error in one wording on every path', async () => {
    const forwardedBefore = forwarded();
    for (const [what, http, grpcParameters, local, rows, message] of REFUSALS) {
      const refused: Step = { http, grpc: grpcParameters, local, values: Array.from({ length: 4 * rows }, (_, e) => e) };
      for (const p of PATHS) {
        if (grpcParameters === undefined && p.wire.startsWith('grpc')) continue;
        const [outcome] = await send(p, [refused]);
        expect(outcome, `${what} on ${p.name}`).toEqual({ error: message, code: INVALID[p.wire] });
      }
    }
    expect(forwarded()).toBe(forwardedBefore);  // refused by the native route itself, not by JS
  }, 30_000);

  it('logs every gRPC infer call of the native server as answered natively', async () => {
    await native.stop(1000);  // drains the native request log
    const infer = logged.filter((l) => l.message === 'grpc call' && String(l.fields?.method).includes('Infer'));
    expect(infer.length).toBe(nativeGrpcCalls);
    expect(infer.every((l) => l.fields?.route === 'native')).toBe(true);
  });
});
