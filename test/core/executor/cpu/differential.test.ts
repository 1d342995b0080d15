/**
 * Differential tests against ONNX Runtime: the same random inputs through both engines on
 * generated networks shaped like the ones users run (reduced widths so the suite stays fast).
 * Agreement: every element within 1e-4 relative, relative to max(|reference|, 1e-3 × the
 * reference tensor's largest magnitude) (see maxRelativeError).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { bertEncoder, mnistCnn, mobilenetV2, resnet18 } from '../../../helpers/onnx-models.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function save(name: string, bytes: Uint8Array): string {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

function image(batch: number, size: number, channels: number, seed: number): CpuTensor {
  return { name: 'input', datatype: 'FP32', dims: [batch, channels, size, size], data: randomValues(batch * channels * size * size, seed, 1) };
}

async function expectAgreement(model: string, inputs: CpuTensor[], threads: number, checkOptimized?: (ops: Record<string, number>) => void): Promise<void> {
  const session = CpuSession.load(model, { intraOpThreads: threads });
  try {
    checkOptimized?.(session.info().optimizedOperators);
    const outputs = await session.run(inputs);
    const reference = await runOrt(model, inputs);
    for (const out of outputs) {
      const ref = reference[out.name];
      expect(out.dims).toEqual(ref.dims.map(Number));
      expect(maxRelativeError(out.data as Float32Array, ref.data as Float32Array)).toBeLessThan(1e-4);
    }
  } finally {
    session.close();
  }
}

describe('cpu engine vs ONNX Runtime', () => {
  it.each([1, 2])('MNIST-style CNN (threads=%i)', async (threads) => {
    const model = save(`mnist-${threads}.onnx`, mnistCnn({ conv1: 8, conv2: 16, hidden: 32 }));
    await expectAgreement(model, [image(3, 28, 1, 11)], threads);
  });

  it.each([1, 2])('ResNet-18-shaped network (threads=%i)', async (threads) => {
    const model = save(`resnet-${threads}.onnx`, resnet18({ width: 8, size: 64, classes: 10 }));
    await expectAgreement(model, [image(2, 64, 3, 12)], threads, (ops) => {
      // Every BatchNormalization folds into its Conv; the ReLUs after them fuse too, and the 8
      // residual Adds go into the Conv before each, with the ReLU after them.
      expect(ops.BatchNormalization).toBeUndefined();
      expect(ops.Relu).toBeUndefined();
      expect(ops.Add).toBeUndefined();
    });
  });

  it.each([1, 2])('MobileNetV2-shaped network with depthwise convs and ReLU6 (threads=%i)', async (threads) => {
    const model = save(`mobilenet-${threads}.onnx`, mobilenetV2({ widthMultiplier: 0.25, size: 64, classes: 10 }));
    await expectAgreement(model, [image(1, 64, 3, 13)], threads, (ops) => expect(ops.Clip).toBeUndefined());
  });

  it.each([1, 2])('BERT-style encoder (threads=%i)', async (threads) => {
    const model = save(`bert-${threads}.onnx`, bertEncoder({ layers: 2, hidden: 64, heads: 4, vocab: 100, maxPositions: 64 }));
    const batch = 2, seq = 16;
    const ids = BigInt64Array.from(randomValues(batch * seq, 14, 1), (v) => BigInt(Math.floor(Math.abs(v) * 99)));
    const mask = new Float32Array(batch * seq).fill(1);
    mask.fill(0, seq - 4, seq); // padding at the end of the first sequence
    await expectAgreement(model, [
      { name: 'input_ids', datatype: 'INT64', dims: [batch, seq], data: ids },
      { name: 'attention_mask', datatype: 'FP32', dims: [batch, seq], data: mask },
    ], threads, (ops) => {
      // Each layer's six Linear layers become MatMul with a fused bias; the Div/Erf/Add/Mul/Mul GELU
      // chain becomes one Gelu and the scale Mul + mask Add join the Softmax: only the embedding
      // and residual Adds and the mask's (1 - mask) · -10000 Mul remain.
      expect(ops.MatMul).toBe(2 * 6 + 2 * 2);
      expect(ops.Add).toBe(1 + 2 * 2);
      expect(ops.Gelu).toBe(2);
      expect(ops.Erf).toBeUndefined();
      expect(ops.Softmax).toBe(2);
      expect(ops.Mul).toBe(1);
    });
  });
});

describe('depthwise convolution edge cases vs ONNX Runtime', () => {
  // Narrow inputs, stride 2, dilation and asymmetric pads exercise the border paths of the
  // 3-wide depthwise kernel (interior empty or one column wide).
  it.each([
    { width: 1, stride: 1, dilation: 1, pads: [1, 1, 1, 1] },
    { width: 2, stride: 2, dilation: 1, pads: [1, 0, 1, 2] },
    { width: 5, stride: 2, dilation: 2, pads: [2, 2, 2, 2] },
    { width: 9, stride: 1, dilation: 1, pads: [0, 1, 0, 1] },
  ])('width $width stride $stride dilation $dilation pads $pads', async ({ width, stride, dilation, pads }) => {
    const channels = 4;
    const g = new OnnxGraphBuilder('dw', 13)
      .input('input', 'FLOAT', [1, channels, 6, width])
      .initializer('w', 'FLOAT', [channels, 1, 3, 3], randomValues(channels * 9, 21, 1))
      .initializer('b', 'FLOAT', [channels], randomValues(channels, 22, 1))
      .node('Conv', ['input', 'w', 'b'], ['y'], { kernel_shape: [3, 3], strides: [stride, stride], dilations: [dilation, dilation], pads, group: channels })
      .output('y', 'FLOAT');
    const model = save(`dw-${width}-${stride}-${dilation}.onnx`, g.encode());
    await expectAgreement(model, [{ name: 'input', datatype: 'FP32', dims: [1, channels, 6, width], data: randomValues(channels * 6 * width, 23, 1) }], 1);
  });
});
