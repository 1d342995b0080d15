/**
 * End to end: the sequence example repository (fixtures/repositories/sequence-example) served on
 * the real executor, driven over HTTP JSON, HTTP binary and gRPC at once, one sequence per
 * protocol, interleaved: every answer equals running that sequence alone in process. Triton's
 * errors arrive with HTTP 400 / gRPC INVALID_ARGUMENT.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../../src/core/config/index.js';
import { loadModel, type ExecutorModel } from '../../../../src/core/executor/index.js';
import { binaryBody, postBinary, postJson } from '../helpers/http-client.js';
import { call, callError, grpcClient, streamInfer, type GrpcClient } from '../helpers/grpc-client.js';
import { repoRoot, startRealServer, type RealServer } from './helpers.js';
import { memoryIO } from '../../../../src/io.js';
import { runValidate } from '../../../../src/commands/validate/run.js';
import { toValidateOptions } from '../../../../src/commands/validate/options.js';

const EXAMPLE = path.join(repoRoot, 'fixtures/repositories/sequence-example');
let s: RealServer;
let client: GrpcClient;
let local: ExecutorModel;
let localDir: string;

const STEPS: Record<string, number[][]> = {
  json: [[1, 2, 3, 4], [10, 10, 10, 10], [0.5, 0, 0, -4]],
  binary: [[3, 3, 3, 3], [-1, -2, -3, -4], [100, 0, 0, 0], [1, 1, 1, 1]],
  grpc: [[7, 0, 0, 7], [1, 2, 1, 2]],
};
const IDS: Record<string, number> = { json: 101, binary: 102, grpc: 103 };

const f32 = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
const floatsOf = (bytes: Uint8Array) => Array.from(new Float32Array(Uint8Array.from(bytes).buffer));

async function overJson(id: number, values: number[], start: boolean, end: boolean): Promise<number[]> {
  const res = await postJson(`${s.http}/v2/models/accumulator/infer`, {
    parameters: { sequence_id: id, sequence_start: start, sequence_end: end },
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4], data: values }],
    outputs: [{ name: 'OUTPUT' }],
  });
  expect(res.status).toBe(200);
  return res.body.outputs[0].data;
}

async function overBinary(id: number, values: number[], start: boolean, end: boolean): Promise<number[]> {
  const bin = binaryBody(
    { parameters: { sequence_id: id, sequence_start: start, sequence_end: end }, outputs: [{ name: 'OUTPUT', parameters: { binary_data: true } }] },
    [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4], bytes: f32(values) }],
  );
  const res = await postBinary(`${s.http}/v2/models/accumulator/infer`, bin.body, bin.headerLength);
  expect(res.json).not.toHaveProperty('error');
  expect(res.status).toBe(200);
  return floatsOf(res.binary.get('OUTPUT')!);
}

function grpcRequest(id: number | string, values: number[], start: boolean, end: boolean): object {
  return {
    model_name: 'accumulator',
    parameters: {
      sequence_id: typeof id === 'string' ? { string_param: id } : { uint64_param: id },
      sequence_start: { bool_param: start },
      sequence_end: { bool_param: end },
    },
    inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4] }],
    outputs: [{ name: 'OUTPUT' }],
    raw_input_contents: [f32(values)],
  };
}

async function overGrpc(id: number, values: number[], start: boolean, end: boolean): Promise<number[]> {
  const res = await call(client, 'ModelInfer', grpcRequest(id, values, start, end));
  return floatsOf(res.raw_output_contents[0]);
}

const SENDERS = { json: overJson, binary: overBinary, grpc: overGrpc };

/** An ensemble whose one step is the stateful accumulator: the sequence id and flags reach it. */
const RUNNING = `name: "running"
platform: "ensemble"
max_batch_size: 4
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "SUM" data_type: TYPE_FP32 dims: [ 4 ] }, { name: "SEEN_ID" data_type: TYPE_FP32 dims: [ 1 ] } ]
ensemble_scheduling { step [ { model_name: "accumulator" model_version: -1 input_map { key: "INPUT" value: "X" }
  output_map [ { key: "OUTPUT" value: "SUM" }, { key: "CORRID_OUT" value: "SEEN_ID" } ] } ] }
`;

beforeAll(async () => {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'gebe-seq-e2e-'));
  cpSync(EXAMPLE, repo, { recursive: true });
  mkdirSync(path.join(repo, 'running', '1'), { recursive: true });
  writeFileSync(path.join(repo, 'running', 'config.pbtxt'), RUNNING);
  s = await startRealServer(repo);
  client = grpcClient(s.grpc);
  localDir = mkdtempSync(path.join(os.tmpdir(), 'gebe-seq-local-'));
  cpSync(path.join(EXAMPLE, 'accumulator'), path.join(localDir, 'accumulator'), { recursive: true });
  const dir = path.join(localDir, 'accumulator');
  local = await loadModel(dir, '1', parseModelConfig(readFileSync(path.join(dir, 'config.pbtxt'), 'utf8'), 'config.pbtxt').config);
});
afterAll(async () => {
  client?.close();
  await local?.unload();
  await s?.stop();
  rmSync(localDir, { recursive: true, force: true });
});

describe('the sequence example repository', () => {
  it('passes gebe validate without findings', async () => {
    const io = memoryIO();
    expect(await runValidate(toValidateOptions([EXAMPLE], { format: 'json' }), io)).toBe(0);
    const report = JSON.parse(io.out());
    expect(report.diagnostics).toEqual([]);
    expect(report.summary.models).toBe(1);
  });
});

describe('sequences over HTTP JSON, HTTP binary and gRPC', () => {
  it('interleaves one sequence per protocol, each equal to the sequence run alone in process', async () => {
    const served = await Promise.all(
      Object.entries(STEPS).map(async ([via, steps]) => {
        const out: number[][] = [];
        for (const [k, v] of steps.entries()) out.push(await SENDERS[via as keyof typeof SENDERS](IDS[via]!, v, k === 0, k === steps.length - 1));
        return [via, out] as const;
      }),
    );
    for (const [via, out] of served) {
      const steps = STEPS[via]!;
      const alone: number[][] = [];
      for (const [k, v] of steps.entries()) {
        const r = await local.infer({ inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4], data: f32(v) }], sequenceId: IDS[via]!, sequenceStart: k === 0, sequenceEnd: k === steps.length - 1 });
        alone.push(floatsOf(r.outputs[0]!.data));
      }
      expect(out).toEqual(alone);
      // The running sum of the steps.
      expect(out.at(-1)).toEqual(steps.reduce((sum, v) => sum.map((x, i) => x + v[i]!), [0, 0, 0, 0]));
    }
  });

  it('shows clients only INPUT and the outputs, not the control and state tensors', async () => {
    const meta = await (await fetch(`${s.http}/v2/models/accumulator`)).json() as { inputs: Array<{ name: string }>; outputs: Array<{ name: string }> };
    expect(meta.inputs.map((t) => t.name)).toEqual(['INPUT']);
    expect(meta.outputs.map((t) => t.name)).toEqual(['OUTPUT', 'FLAGS', 'CORRID_OUT']);
  });

  it("answers Triton's sequence errors over HTTP and gRPC", async () => {
    const noId = await postJson(`${s.http}/v2/models/accumulator/infer`, { inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] }] });
    expect(noId.status).toBe(400);
    expect(noId.body.error).toMatch(/^inference request to model 'accumulator' must specify a non-zero or non-empty correlation ID/);
    const badId = await postJson(`${s.http}/v2/models/accumulator/infer`, { parameters: { sequence_id: -3 }, inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] }] });
    expect(badId.status).toBe(400);
    expect(badId.body.error).toMatch(/request parameter 'sequence_id' must be an unsigned 64-bit integer or a string/);
    const badFlag = await postJson(`${s.http}/v2/models/accumulator/infer`, { parameters: { sequence_id: 4, sequence_start: 1 }, inputs: [{ name: 'INPUT', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] }] });
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error).toBe("request parameter 'sequence_start' must be a boolean, got 1");

    const unknown = await callError(client, 'ModelInfer', grpcRequest(555, [1, 1, 1, 1], false, false));
    expect(unknown.code).toBe(3); // INVALID_ARGUMENT
    expect(unknown.details).toBe("inference request for sequence 555 to model 'accumulator' must specify the START flag on the first request of the sequence");
    const text = await callError(client, 'ModelInfer', grpcRequest('abc', [1, 1, 1, 1], true, true));
    expect(text.details).toMatch(/sequence id 'abc' is a string, but the model's CONTROL_SEQUENCE_CORRID input is UINT64/);
  });

  it('runs sequences pipelined on one ModelStreamInfer stream, in arrival order', async () => {
    // Two sequences, interleaved, every step written without waiting for an answer.
    const requests: object[] = [];
    for (let k = 0; k < 3; k += 1) {
      for (const id of [201, 202]) requests.push({ ...grpcRequest(id, [id, k, 1, 0], k === 0, k === 2), id: `${id}-${k}` });
    }
    const responses = await streamInfer(client, requests);
    const byId = new Map(responses.map((r) => [r.infer_response.id, r]));
    for (const id of [201, 202]) {
      for (let k = 0; k < 3; k += 1) {
        const r = byId.get(`${id}-${k}`);
        expect(r.error_message).toBe('');
        expect(floatsOf(r.infer_response.raw_output_contents[0])).toEqual([id * (k + 1), (k * (k + 1)) / 2, k + 1, 0]);
      }
    }
  });

  it('passes a request\'s sequence id and flags to an ensemble\'s stateful step, as Triton', async () => {
    const viaEnsemble = async (id: number, values: number[], start: boolean, end: boolean) => {
      const res = await postJson(`${s.http}/v2/models/running/infer`, {
        parameters: { sequence_id: id, sequence_start: start, sequence_end: end },
        inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], data: values }],
      });
      expect(res.body.error).toBeUndefined();
      return Object.fromEntries((res.body.outputs as Array<{ name: string; data: number[] }>).map((o) => [o.name, o.data]));
    };
    // Two sequences interleaved through the ensemble, each with its own running sum.
    expect(await viaEnsemble(301, [1, 2, 3, 4], true, false)).toEqual({ SUM: [1, 2, 3, 4], SEEN_ID: [301] });
    expect(await viaEnsemble(302, [5, 5, 5, 5], true, false)).toEqual({ SUM: [5, 5, 5, 5], SEEN_ID: [302] });
    expect(await viaEnsemble(301, [1, 1, 1, 1], false, true)).toEqual({ SUM: [2, 3, 4, 5], SEEN_ID: [301] });
    expect(await viaEnsemble(302, [1, 0, 0, 0], false, true)).toEqual({ SUM: [6, 5, 5, 5], SEEN_ID: [302] });
    // Without a sequence id the step refuses, named in the ensemble's words.
    const bare = await postJson(`${s.http}/v2/models/running/infer`, { inputs: [{ name: 'X', datatype: 'FP32', shape: [1, 4], data: [1, 1, 1, 1] }] });
    expect([bare.status, bare.body.error]).toEqual([400, "in ensemble 'running', step 0 (model 'accumulator'): inference request to model 'accumulator' must specify a non-zero or non-empty correlation ID (request parameter sequence_id)"]);
  });

  it('fills the controls and the id as the config gives them, over gRPC', async () => {
    const res = await call(client, 'ModelInfer', { ...grpcRequest(9, [1, 1, 1, 1], true, true), outputs: [{ name: 'FLAGS' }, { name: 'CORRID_OUT' }] });
    expect(res.outputs.map((o: { name: string }) => o.name)).toEqual(['FLAGS', 'CORRID_OUT']);
    expect(floatsOf(res.raw_output_contents[0])).toEqual([111]);
    expect(floatsOf(res.raw_output_contents[1])).toEqual([9]);
  });
});
