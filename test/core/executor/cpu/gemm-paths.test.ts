/**
 * Gemm against constant (pre-packed) weights takes a different path by row count: fewer rows
 * than the micro-kernel (matrix-vector style), a thin batch (A packed whole, column panels shared
 * by the threads), and the general blocked driver. Each is checked against ONNX Runtime with
 * transA/transB, alpha/beta and a bias, at 1 and 2 threads. Batched MatMul of two computed
 * operands (attention scores) runs its products in parallel, or on the calling thread below
 * kSingleThreadMacs (op_util.h) unless B is past kStreamedWeightFloats (a batch-1 classifier).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import type { CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { expectCpuMatchesOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-gemm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// k spans several k blocks and is odd (the 1-row kernel steps k two at a time); n is not a multiple
// of 16, and wide enough that 5 rows (1.09M multiply-adds) are past kSingleThreadMacs (op_util.h).
const k = 601, n = 362;

function gemmModel(transA: boolean, transB: boolean): string {
  const g = new OnnxGraphBuilder('gemm', 13);
  g.input('a', 'FLOAT', transA ? [k, 'm'] : ['m', k]);
  g.initializer('b', 'FLOAT', transB ? [n, k] : [k, n], randomValues(k * n, 901, 0.1));
  g.initializer('c', 'FLOAT', [n], randomValues(n, 902, 1));
  g.node('Gemm', ['a', 'b', 'c'], ['y'], { alpha: { float: 0.75 }, beta: { float: 1.5 }, transA: transA ? 1 : 0, transB: transB ? 1 : 0 }, 'gemm');
  g.node('Relu', ['y'], ['output'], {}, 'relu');
  g.output('output', 'FLOAT', undefined);
  const file = path.join(dir, `gemm-${transA}-${transB}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

describe('Gemm with constant weights vs ONNX Runtime', () => {
  for (const [transA, transB] of [[false, true], [false, false], [true, true]] as const) {
    // Thin batches (up to 288 rows): a C of at most 4096 floats a thread walks the k slices outermost
    // (16 rows here), a larger one (80 and 200 rows) panel group by panel group.
    it.each([[1, 1], [5, 2], [16, 1], [16, 2], [80, 2], [200, 2]])(`transA=${transA} transB=${transB}, %i rows, %i threads`, async (m, threads) => {
      const model = gemmModel(transA, transB);
      const input: CpuTensor = { name: 'a', datatype: 'FP32', dims: transA ? [k, m] : [m, k], data: randomValues(m * k, 903 + m, 1) };
      // 5 rows (not fewer) keep the product above the size the threads are used from.
      // ONNX's rtol: sums of 601 products of uniform random values, summed in another order than ORT's.
      await expectCpuMatchesOrt(model, input, threads, 1e-3);
    });
  }
});

describe('a fully connected layer at batch 1 with weights past kStreamedWeightFloats (op_util.h) vs ONNX Runtime', () => {
  // 576 × 1024 weights (2.4 MB; MobileNetV3-small's classifier) but 0.59M multiply-adds: the
  // threads stream halves of B, as Gemm (transB) and as MatMul of a constant.
  it.each([[1, 1], [1, 2], [3, 2]])('%i rows, %i threads', async (m, threads) => {
    const kk = 576, nn = 1024;
    const g = new OnnxGraphBuilder('fc', 13)
      .input('a', 'FLOAT', ['m', kk])
      .initializer('w', 'FLOAT', [nn, kk], randomValues(nn * kk, 905, 0.05))
      .initializer('wt', 'FLOAT', [kk, nn], randomValues(nn * kk, 906, 0.05))
      .initializer('c', 'FLOAT', [nn], randomValues(nn, 907, 1))
      .node('Gemm', ['a', 'w', 'c'], ['gemm'], { transB: 1 }, 'gemm')
      .node('MatMul', ['a', 'wt'], ['matmul'], {}, 'matmul')
      .node('Add', ['gemm', 'matmul'], ['output'], {}, 'add')
      .output('output', 'FLOAT');
    const file = path.join(dir, `fc-${m}.onnx`);
    writeFileSync(file, g.encode());
    // ONNX's rtol, as above: 576 products a sum (and the two sums added) in another order than ORT's.
    await expectCpuMatchesOrt(file, { name: 'a', datatype: 'FP32', dims: [m, kk], data: randomValues(m * kk, 908 + m, 1) }, threads, 1e-3);
  });
});

describe('batched MatMul of computed operands vs ONNX Runtime', () => {
  // a · aᵀ per batch: [8, 64, 64] is 2.1M multiply-adds (products split over the threads),
  // [4, 12, 10] 5.8K (all on the calling thread).
  it.each([[[8, 64, 64], 1], [[8, 64, 64], 2], [[4, 12, 10], 2]])('a %j · aᵀ, %i threads', async (dims, threads) => {
    const [b, m, kk] = dims as number[];
    const g = new OnnxGraphBuilder('bmm', 13)
      .input('a', 'FLOAT', [b, m, kk])
      .node('Transpose', ['a'], ['at'], { perm: [0, 2, 1] })
      .node('MatMul', ['a', 'at'], ['output'])
      .output('output', 'FLOAT');
    const file = path.join(dir, `bmm-${b}-${m}-${kk}.onnx`);
    writeFileSync(file, g.encode());
    await expectCpuMatchesOrt(file, { name: 'a', datatype: 'FP32', dims: [b, m, kk], data: randomValues(b * m * kk, 904, 1) }, threads as number, 1e-4);
  });
});
