/**
 * The trace extension's native sampler on the executor's own entry point (in-process infer, the
 * path JS front ends use for what the native routes decline): a model's setting samples every
 * rate-th request until its count runs out, and the traces carry the queue and compute timestamps
 * but no protocol ones (server/trace-writer.ts leaves those out).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel, type InferRequest } from '../../../src/core/executor/index.js';
import { nativeTrace } from '../../../src/core/executor/trace-addon.js';
import { traceEntries } from '../../../src/core/server/trace-writer.js';
import { repoRoot } from './fake-acl.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'gebe-trace-'));
afterAll(() => {
  nativeTrace().setSetting('mnist', null);
  rmSync(work, { recursive: true, force: true });
});

describe('tracing requests queued from JS', () => {
  it('samples every rate-th request until the count runs out, with queue and compute timestamps', async () => {
    const dir = path.join(work, 'mnist');
    mkdirSync(path.join(dir, '1'), { recursive: true });
    copyFileSync(path.join(repoRoot, 'templates/mnist/1/model.onnx'), path.join(dir, '1/model.onnx'));
    const model = await loadModel(dir, '1', {
      name: 'mnist', backend: 'ge', max_batch_size: 4,
      input: [{ name: 'image', data_type: 'TYPE_FP32', dims: [1, 28, 28] }], output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
    });
    const trace = nativeTrace();
    trace.take();
    trace.setSetting('mnist', { timestamps: true, tensors: false, rate: 2, count: 2 });
    const request: InferRequest = { inputs: [{ name: 'image', datatype: 'FP32', shape: [1, 1, 28, 28], data: new Uint8Array(784 * 4) }] };
    for (let i = 0; i < 7; i++) await model.infer(request);
    expect(trace.countLeft('mnist')).toBe(0);
    const { traces, dropped } = trace.take();
    await model.unload();

    expect(dropped).toBe(0);
    expect(traces.map((t) => [t.model, t.version, t.protocol, t.last])).toEqual([['mnist', '1', '', false], ['mnist', '1', '', true]]);
    const names = JSON.parse(traceEntries(traces[0]!)[1]!).timestamps.map((s: { name: string }) => s.name);
    expect(names).toEqual(['REQUEST_START', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END', 'INFER_RESPONSE_COMPLETE']);
    // Another model follows the global setting, which is off.
    expect(trace.countLeft('other')).toBe(-1);
  });
});
