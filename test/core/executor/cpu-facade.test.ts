/**
 * The executor facade over the cpu engine with a real ONNX model (templates/mnist): metadata,
 * Triton-worded validation, dynamic batching whose results equal unbatched runs, gears from
 * graph.ge.dynamicDims with padding, compile(), and config↔model disagreements.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GebeError } from '../../../src/errors.js';
import { InferError, loadModel, type ExecutorModel, type InferRequest } from '../../../src/core/executor/index.js';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import { floats, repoRoot } from './fake-acl.js';
import { runDirect } from '../../helpers/run-direct.js';

let dir: string;
const models: ExecutorModel[] = [];

const base: ModelConfig = {
  name: 'mnist',
  backend: 'ge',
  max_batch_size: 16,
  input: [{ name: 'image', data_type: 'TYPE_FP32', format: 'FORMAT_NCHW', dims: [1, 28, 28] }],
  output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
};

function images(rows: number, seed: number): Uint8Array {
  const a = new Float32Array(rows * 784);
  for (let i = 0; i < a.length; i += 1) a[i] = ((i * 31 + seed * 977) % 255) / 255;
  return new Uint8Array(a.buffer);
}

function request(rows: number, seed: number): InferRequest {
  return { inputs: [{ name: 'image', datatype: 'FP32', shape: [rows, 1, 28, 28], data: images(rows, seed) }] };
}

async function load(config: ModelConfig): Promise<ExecutorModel> {
  const model = await loadModel(dir, '1', config, { instanceCount: Number(config.instance_group?.[0]?.count ?? 1) });
  models.push(model);
  return model;
}

function close(a: number[], b: number[]): void {
  expect(a.length).toBe(b.length);
  a.forEach((v, i) => expect(Math.abs(v - b[i]!)).toBeLessThan(1e-4));
}

beforeAll(() => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'gebe-cpu-facade-'));
  dir = path.join(work, 'mnist');
  mkdirSync(path.join(dir, '1'), { recursive: true });
  copyFileSync(path.join(repoRoot, 'templates/mnist/1/model.onnx'), path.join(dir, '1/model.onnx'));
});

afterAll(async () => {
  await Promise.all(models.map((m) => m.unload()));
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

describe('executor facade on the cpu engine', () => {
  it('loads model.onnx with the cpu engine and describes it as config.pbtxt does', async () => {
    const model = await load(base);
    expect(model.engine).toBe('cpu');
    expect(model.inputs).toEqual([{ name: 'image', datatype: 'FP32', shape: [-1, 1, 28, 28] }]);
    expect(model.outputs).toEqual([{ name: 'logits', datatype: 'FP32', shape: [-1, 10] }]);
    expect(model.gears).toEqual([]);
    const r = await model.infer(request(2, 1));
    expect(r.outputs[0]!.shape).toEqual([2, 10]);
    close(floats(r.outputs[0]!.data), floats(runDirect(model, request(2, 1))[0]!.data));
  });

  it('rejects a request without the batch dimension in Triton words', async () => {
    const model = await load(base);
    const err = await model
      .infer({ inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 28, 28], data: images(1, 1) }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InferError);
    expect((err as Error).message).toMatch(
      /^unexpected shape for input 'image' for model 'mnist'\. Expected \[-1,1,28,28\], got \[1,28,28\]\. NOTE: Setting a non-zero max_batch_size/,
    );
    await expect(model.infer(request(17, 1))).rejects.toThrow("inference request batch-size must be <= 16 for 'mnist'");
  });

  it('batches concurrent requests and each gets exactly its own rows back', async () => {
    const model = await load({ ...base, dynamic_batching: { preferred_batch_size: [4, 8, 16], max_queue_delay_microseconds: 2000 } });
    const single = await load(base);
    const expected = await Promise.all(Array.from({ length: 16 }, (_, i) => single.infer(request(1 + (i % 3), i))));
    const got = await Promise.all(Array.from({ length: 16 }, (_, i) => model.infer(request(1 + (i % 3), i))));
    got.forEach((r, i) => {
      expect(r.outputs[0]!.shape).toEqual([1 + (i % 3), 10]);
      close(floats(r.outputs[0]!.data), floats(expected[i]!.outputs[0]!.data));
    });
    const s = model.stats();
    expect(s.inference_stats.success.count).toBe(16);
    expect(s.execution_count).toBeLessThan(16);
    expect(s.inference_count).toBe(got.reduce((n, r) => n + r.outputs[0]!.shape[0]!, 0));
  });

  it('pads batches to graph.ge.dynamicDims gears and drops the padding rows', async () => {
    const model = await load({ ...base, parameters: { 'graph.ge.dynamicDims': { string_value: '1;2;4;8' } } });
    expect(model.gears).toEqual([1, 2, 4, 8]);
    const r = await model.infer(request(3, 7));
    expect(r.outputs[0]!.shape).toEqual([3, 10]);
    close(floats(r.outputs[0]!.data), floats(runDirect(model, request(3, 7))[0]!.data));
    await expect(model.infer(request(9, 1))).rejects.toThrow("inference request batch-size must be <= 8 for 'mnist'");
    expect(model.stats().batch_stats.map((b) => b.batch_size)).toEqual([3]);
  });

  it('compiles shapes ahead of the first request on every instance', async () => {
    const model = await load({ ...base, instance_group: [{ count: 2 }] });
    expect(model.instanceCount).toBe(2);
    const first = await model.compile({ image: [4, 1, 28, 28] });
    expect(first.shapes).toEqual({ image: [4, 1, 28, 28] });
    const again = await model.compile({ image: [4, 1, 28, 28] });
    expect(again.cached).toBe(true);
    await expect(model.compile({ img: [4, 1, 28, 28] })).rejects.toThrow("unexpected input 'img'");
  });

  it('names a config that disagrees with the model file', async () => {
    const wrongName = await loadModel(dir, '1', { ...base, input: [{ name: 'img', data_type: 'TYPE_FP32', dims: [1, 28, 28] }] }).catch(
      (e: unknown) => e,
    );
    expect(wrongName).toBeInstanceOf(GebeError);
    expect((wrongName as Error).message).toBe("config.pbtxt of 'mnist' declares input 'img', but model.onnx has inputs 'image'");
    const withBatchDim = await loadModel(dir, '1', {
      ...base,
      input: [{ name: 'image', data_type: 'TYPE_FP32', dims: [1, 1, 28, 28] }],
    }).catch((e: unknown) => e);
    expect((withBatchDim as GebeError).hint).toBe('dims in config.pbtxt leave out the batch dimension when max_batch_size > 0');
    const wrongType = await loadModel(dir, '1', { ...base, input: [{ name: 'image', data_type: 'TYPE_FP16', dims: [1, 28, 28] }] }).catch(
      (e: unknown) => e,
    );
    expect((wrongType as Error).message).toContain("declares input 'image' as TYPE_FP16, but the model file has FP32");
  });

  it('refuses, natively, instance counts and priority levels past its own caps (a caller that skipped CONFIG_LIMIT)', async () => {
    const rssBefore = process.memoryUsage().rss;
    await expect(loadModel(dir, '1', base, { instanceCount: 1_000_000 })).rejects.toThrow('Expected a number from 0 to 4096 for options.instanceCount');
    await expect(loadModel(dir, '1', { ...base, dynamic_batching: { priority_levels: 1e9 } })).rejects.toThrow('Expected a number from 0 to 65536 for options.priorityLevels');
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 << 20); // no threads were started
  });
});
