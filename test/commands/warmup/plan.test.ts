import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../../src/core/config/model-config.js';
import { parseModelConfig, writeModelWarmup } from '../../../src/core/config/index.js';
import type { ModelDescription } from '../../../src/core/kserve/client/types.js';
import { defaultBatchSizes, planWarmup, warmupEntries } from '../../../src/core/warmup/plan.js';
import { formatRows, median, runWarmupStep } from '../../../src/commands/warmup/measure.js';
import { TEMPLATES_DIR } from '../../../src/commands/init/templates.js';

const config: ModelConfig = {
  name: 'm', backend: 'ge', max_batch_size: 16,
  input: [{ name: 'image', data_type: 'TYPE_FP32', dims: [1, 28, 28] }],
  output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
  dynamic_batching: { preferred_batch_size: [8, 4] },
};
const model: ModelDescription = {
  name: 'm', version: '1', maxBatchSize: 16,
  inputs: [{ name: 'image', datatype: 'FP32', shape: [-1, 1, 28, 28] }],
  outputs: [{ name: 'logits', datatype: 'FP32', shape: [-1, 10] }],
};

describe('warmup plan', () => {
  it('defaults to the gears, else preferred ∪ max, else batch 1', () => {
    expect(defaultBatchSizes(config, [16, 2])).toEqual([2, 16]);
    expect(defaultBatchSizes(config, [])).toEqual([4, 8, 16]);
    expect(defaultBatchSizes({ ...config, max_batch_size: 0 }, [])).toEqual([1]);
    const plan = planWarmup(config, model, [], undefined, 'config.pbtxt');
    expect(plan.source).toBe('default');
    expect(plan.steps.map((s) => [s.name, s.inputs[0]!.shape, s.inputs[0]!.data.byteLength])).toEqual([
      ['zeros_batch_4', [4, 1, 28, 28], 4 * 784 * 4],
      ['zeros_batch_8', [8, 1, 28, 28], 8 * 784 * 4],
      ['zeros_batch_16', [16, 1, 28, 28], 16 * 784 * 4],
    ]);
  });

  it('runs model_warmup entries: data repeated to batch_size, input_data_file from warmup/, count', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gebe-warm-'));
    fs.mkdirSync(path.join(dir, 'warmup'));
    const sample = new Float32Array(784).map((_, i) => i / 784);
    fs.writeFileSync(path.join(dir, 'warmup', 'seven.bin'), new Uint8Array(sample.buffer));
    const withEntries: ModelConfig = {
      ...config,
      model_warmup: [
        { name: 'file', batch_size: 2, count: 3, inputs: { image: { data_type: 'TYPE_FP32', dims: [1, 28, 28], input_data_file: 'seven.bin' } } },
        { name: 'rand', batch_size: 1, inputs: { image: { data_type: 'TYPE_FP32', dims: [1, 28, 28], random_data: true } } },
      ],
    };
    const plan = planWarmup(withEntries, model, [], dir, 'config.pbtxt');
    expect(plan.source).toBe('model_warmup');
    const [file, rand] = plan.steps;
    expect(file).toMatchObject({ name: 'file', batchSize: 2, count: 3 });
    const data = new Float32Array(file!.inputs[0]!.data.buffer);
    expect(data.length).toBe(2 * 784);
    expect(Array.from(data.subarray(784))).toEqual(Array.from(sample));
    expect(rand).toMatchObject({ count: 1 });
    fs.writeFileSync(path.join(dir, 'warmup', 'seven.bin'), 'short');
    expect(() => planWarmup(withEntries, model, [], dir, 'config.pbtxt')).toThrow('config.pbtxt: model_warmup[0] "file": input "image": input_data_file warmup/seven.bin has 5 bytes, but 784 FP32 values need 3136');
    const outside = structuredClone(withEntries);
    outside.model_warmup![0]!.inputs!.image!.input_data_file = '../../../etc/passwd';
    expect(() => planWarmup(outside, model, [], dir, 'config.pbtxt')).toThrow('input_data_file "../../../etc/passwd" is not a path inside the model directory');
    fs.rmSync(dir, { recursive: true });
  });

  it('writes entries that the config core keeps byte-for-byte around, and that parse back', () => {
    const file = path.join(TEMPLATES_DIR, 'mnist', 'config.pbtxt');
    const text = fs.readFileSync(file, 'utf8');
    const updated = writeModelWarmup(text, file, warmupEntries(config, [4, 8, 16]));
    expect(updated.startsWith(text)).toBe(true);
    const parsed = parseModelConfig(updated, file);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.config.model_warmup).toEqual([4, 8, 16].map((b) => ({
      name: `zeros_batch_${b}`, batch_size: b, inputs: { image: { data_type: 'TYPE_FP32', dims: [1, 28, 28], zero_data: true } },
    })));
  });
});

describe('warmup measurement', () => {
  it('compiles, times the first run, runs the count, then takes the steady median', async () => {
    let clock = 0;
    const calls: string[] = [];
    const durations = [50, 1, 1, 3, 2, 9, 2];
    const runner = {
      compile: async (shapes: Record<string, number[]>) => {
        calls.push(`compile ${JSON.stringify(shapes)}`);
        return { shapes, compileMs: 42, arenaBytes: 0, cached: false };
      },
      infer: async () => {
        calls.push('infer');
        clock += durations.shift()!;
      },
    };
    const step = planWarmup(config, model, [4], undefined, 'c').steps[0]!;
    const row = await runWarmupStep({ ...step, count: 2 }, runner, 5, () => clock);
    expect(calls).toEqual(['compile {"image":[4,1,28,28]}', 'infer', 'infer', 'infer', 'infer', 'infer', 'infer', 'infer']);
    expect(row).toMatchObject({ batchSize: 4, compileMs: 42, firstRunMs: 50, steadyP50Ms: 2, warmupRuns: 2, steadyRuns: 5 });
    expect(formatRows([row]).split('\n').map((l) => l.trim().split(/ {2,}/))).toEqual([
      ['warmup', 'batch', 'compile', 'first run', 'steady p50', 'runs'],
      ['zeros_batch_4', '4', '42.0 ms', '50.0 ms', '2.00 ms', '2+5'],
      [''],
    ]);
    expect(median([3, 1, 2, 4])).toBe(2.5);
  });
});
