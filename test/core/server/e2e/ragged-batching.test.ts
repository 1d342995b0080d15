/**
 * Triton's ragged batching on a real server: requests whose ragged input x has different lengths
 * run as one batch (the statistics count one execution), the model gets x as one dimension and
 * the batch inputs computed from the batch (each request's element count, their running sum), and
 * the batch output y comes back split by each request's shape of x, over HTTP (JSON and binary)
 * and gRPC. Config mistakes that only the
 * model file shows refuse the load, naming the tensor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/core/executor/index.js';
import { DiskModelSource } from '../../../../src/core/server/disk-source.js';
import { silentLogger } from '../../../../src/core/server/logger.js';
import { ModelManager } from '../../../../src/core/server/model-manager.js';
import { raggedConfig, raggedModel } from '../../../helpers/ragged-model.js';
import { call, grpcClient } from '../helpers/grpc-client.js';
import { binaryBody, getJson, postBinary, postJson } from '../helpers/http-client.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

// Three requests wait for each other (preferred size 3) for up to 10 s, so they always batch.
const BATCH_OF_THREE = 'dynamic_batching { preferred_batch_size: [ 3 ] max_queue_delay_microseconds: 10000000 }\ninstance_group [ { count: 1 kind: KIND_CPU } ]\n';

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer(mnistRepository({ ragged: { config: raggedConfig('ragged', BATCH_OF_THREE), model: raggedModel() } }));
});
afterAll(async () => server?.stop());

interface Answer {
  y: { shape: number[]; data: number[] };
  count: number;
  end: number;
}

async function inferJson(values: number[]): Promise<Answer> {
  const res = await postJson(`${server.http}/v2/models/ragged/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, values.length], data: values }] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const out = new Map((res.body.outputs as Array<{ name: string; shape: number[]; data: number[] }>).map((o) => [o.name, o]));
  expect(out.get('count')!.shape).toEqual([1, 1]);
  return { y: { shape: out.get('y')!.shape, data: out.get('y')!.data }, count: out.get('count')!.data[0]!, end: out.get('end')!.data[0]! };
}

async function inferBinary(values: number[]): Promise<Answer> {
  const bytes = new Uint8Array(Float32Array.from(values).buffer);
  const input = { name: 'x', datatype: 'FP32', shape: [1, values.length] };
  const { body, headerLength } = binaryBody({ parameters: { binary_data_output: true } }, [{ ...input, bytes }]);
  const res = await postBinary(`${server.http}/v2/models/ragged/infer`, body, headerLength);
  expect(res.status).toBe(200);
  const outputs = res.json.outputs as Array<{ name: string; shape: number[] }>;
  const y = outputs.find((o) => o.name === 'y')!;
  const ints = (name: string) => new Int32Array(Uint8Array.from(res.binary.get(name)!).buffer)[0]!;
  return { y: { shape: y.shape, data: [...new Float32Array(Uint8Array.from(res.binary.get('y')!).buffer)] }, count: ints('count'), end: ints('end') };
}

async function inferGrpc(values: number[]): Promise<Answer> {
  const res = await call<{ outputs: Array<{ name: string; shape: string[] }>; raw_output_contents: Uint8Array[] }>(grpcClient(server.grpc), 'ModelInfer', {
    model_name: 'ragged',
    inputs: [{ name: 'x', datatype: 'FP32', shape: [1, values.length] }],
    raw_input_contents: [new Uint8Array(Float32Array.from(values).buffer)],
  });
  const at = (name: string) => res.outputs.findIndex((o) => o.name === name);
  const bytes = (name: string) => Uint8Array.from(res.raw_output_contents[at(name)]!).buffer;
  return {
    y: { shape: res.outputs[at('y')]!.shape.map(Number), data: [...new Float32Array(bytes('y'))] },
    count: new Int32Array(bytes('count'))[0]!,
    end: new Int32Array(bytes('end'))[0]!,
  };
}

async function executions(): Promise<{ executions: number; inferences: number }> {
  const stats = await getJson(`${server.http}/v2/models/ragged/stats`);
  const s = stats.body.model_stats[0];
  return { executions: Number(s.execution_count), inferences: Number(s.inference_count) };
}

describe('ragged batching (allow_ragged_batch, batch_input, batch_output)', () => {
  it.each([['HTTP JSON', inferJson], ['HTTP binary', inferBinary], ['gRPC', inferGrpc]] as const)('batches requests of lengths 2, 3 and 5 into one execution over %s', async (_, infer) => {
    const before = await executions();
    const lengths = [2, 3, 5];
    const answers = await Promise.all(lengths.map((n, i) => infer(Array.from({ length: n }, (_, k) => 10 * i + k))));
    const after = await executions();
    expect(after.executions - before.executions).toBe(1);
    expect(after.inferences - before.inferences).toBe(3);
    answers.forEach((a, i) => {
      const n = lengths[i]!;
      expect(a.y.shape).toEqual([1, n]);
      expect(a.y.data).toEqual(Array.from({ length: n }, (_, k) => 2 * (10 * i + k)));
      expect(a.count).toBe(n);
    });
    // The running sums of one batch: whatever the order, they end at 10 and each is its own
    // count past the one before it.
    const ends = answers.map((a, i) => [a.end, lengths[i]!] as const).sort((p, q) => p[0] - q[0]);
    expect(ends.map(([end]) => end)).toEqual([ends[0]![1], ends[0]![1] + ends[1]![1], 10]);
  });

  it('batches a request with no elements among others', async () => {
    const answers = await Promise.all([[], [7], [1, 2, 3, 4]].map((values) => inferJson(values)));
    expect(answers.map((a) => a.y.shape)).toEqual([[1, 0], [1, 1], [1, 4]]);
    expect(answers.map((a) => a.y.data)).toEqual([[], [14], [2, 4, 6, 8]]);
    expect(answers.map((a) => a.count)).toEqual([0, 1, 4]);
    expect(Math.max(...answers.map((a) => a.end))).toBe(5);
  });

  it('refuses a client that sends a batch input itself, in Triton\'s words', async () => {
    const res = await postJson(`${server.http}/v2/models/ragged/infer`, {
      inputs: [
        { name: 'x', datatype: 'FP32', shape: [1, 1], data: [1] },
        { name: 'lens', datatype: 'INT32', shape: [1], data: [1] },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("'lens'");
  });
});

describe('ragged batching config that the model file does not fit', () => {
  it('refuses the load, naming the tensor', async () => {
    const repo = mnistRepository({
      two_d: { config: raggedConfig('two_d'), model: raggedModel(['b', 'n']) },
      wrong_type: { config: raggedConfig('wrong_type').replace('target_name: "ends" data_type: TYPE_INT32', 'target_name: "ends" data_type: TYPE_FP32'), model: raggedModel() },
      no_target: { config: raggedConfig('no_target').replace('target_name: "ends"', 'target_name: "offsets"'), model: raggedModel() },
      gears: { config: raggedConfig('gears', 'parameters [ { key: "graph.ge.inputShape" value: { string_value: "x:-1" } }, { key: "graph.ge.dynamicDims" value: { string_value: "1;2;4;8" } } ]\n'), model: raggedModel() },
    });
    const manager = new ModelManager(new DiskModelSource(repo), loadModel, silentLogger, 'none');
    await manager.start();
    try {
      const reason = (name: string) => manager.statuses().find((s) => s.name === name)!.reason;
      expect(reason('two_d')).toContain("MODEL_DIMS_MISMATCH model input 'x' has allow_ragged_batch, so the model gets the batch's elements as one dimension, but the model's input has 2: [b, n]");
      expect(reason('wrong_type')).toContain("MODEL_DATA_TYPE_MISMATCH batch input target 'ends' is written as TYPE_FP32, but the model's input 'ends' is INT32 (TYPE_INT32)");
      expect(reason('gears')).toContain("model 'gears' runs fixed batch sizes (gears), so it cannot take ragged inputs, batch_input or batch_output");
      expect(reason('no_target')).toContain("MODEL_TENSOR_UNKNOWN batch input target 'offsets' is not an input of model.onnx");
    } finally {
      await manager.stop();
    }
  });
});
