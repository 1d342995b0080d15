/**
 * Convolution and pooling with 3 spatial dims (conv_nd.cc, pool_nd.cc) against ONNX Runtime at 1
 * and 2 threads: Conv (pads, strides, dilations, groups, depthwise, auto_pad, weights at run time,
 * a fused Relu), ConvTranspose (output_padding, output_shape, groups), MaxPool (Indices in both storage
 * orders, ceil_mode, dilations; without Indices through the vectorised rows) and AveragePool
 * (count_include_pad both ways, ceil_mode), and the 2-D MaxPool row of the 2×2 stride-2 window. Also run
 * with each ISA forced (isa-*.test.ts).
 */
import { describe, it } from 'vitest';
import type { CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-nd-');
const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);
const f32 = (name: string, dims: number[], seed: number): CpuTensor => ({ name, datatype: 'FP32', dims, data: randomValues(count(dims), seed, 1) });

type Attrs = Record<string, number | number[] | string>;

function convModel(op: 'Conv' | 'ConvTranspose', x: number[], w: number[], attrs: Attrs, options: { weightsAsInput?: boolean; relu?: boolean } = {}): Uint8Array {
  const channelsOut = op === 'Conv' ? w[0] : w[1] * Number(attrs.group ?? 1);
  const b = new OnnxGraphBuilder('nd', 17).input('x', 'FLOAT', x);
  if (options.weightsAsInput) b.input('w', 'FLOAT', w);
  else b.initializer('w', 'FLOAT', w, randomValues(count(w), 11, 0.5));
  b.initializer('b', 'FLOAT', [channelsOut], randomValues(channelsOut, 12, 0.5));
  b.node(op, ['x', 'w', 'b'], [options.relu ? 'c' : 'y'], attrs);
  if (options.relu) b.node('Relu', ['c'], ['y']);
  return b.output('y', 'FLOAT').encode();
}

function poolModel(op: 'MaxPool' | 'AveragePool', x: number[], attrs: Attrs, indices = false): Uint8Array {
  const b = new OnnxGraphBuilder('nd', 17).input('x', 'FLOAT', x).node(op, ['x'], indices ? ['y', 'i'] : ['y'], attrs).output('y', 'FLOAT');
  if (indices) b.output('i', 'INT64');
  return b.encode();
}

describe.each([1, 2])('3-D Conv, ConvTranspose, MaxPool, AveragePool vs ONNX Runtime (threads=%i)', (threads) => {
  it('Conv3d: asymmetric pads, strides, dilations; constant and run-time weights', async () => {
    const attrs = { kernel_shape: [3, 3, 3], pads: [1, 0, 1, 1, 2, 0], strides: [1, 2, 1], dilations: [1, 1, 2] };
    await agree(convModel('Conv', [1, 3, 6, 7, 8], [5, 3, 3, 3, 3], attrs), [f32('x', [1, 3, 6, 7, 8], 1)], threads);
    await agree(convModel('Conv', [2, 3, 6, 7, 8], [5, 3, 3, 3, 3], attrs, { weightsAsInput: true }),
      [f32('x', [2, 3, 6, 7, 8], 2), f32('w', [5, 3, 3, 3, 3], 3)], threads);
  });

  it('Conv3d: groups with a fused Relu, depthwise with auto_pad SAME_UPPER, VALID', async () => {
    await agree(convModel('Conv', [2, 4, 5, 6, 7], [6, 2, 2, 3, 1], { group: 2, strides: [2, 1, 3], pads: [0, 1, 0, 1, 0, 1] }, { relu: true }),
      [f32('x', [2, 4, 5, 6, 7], 4)], threads);
    await agree(convModel('Conv', [1, 4, 5, 6, 5], [4, 1, 3, 3, 3], { group: 4, auto_pad: 'SAME_UPPER', strides: [2, 2, 1] }),
      [f32('x', [1, 4, 5, 6, 5], 5)], threads);
    await agree(convModel('Conv', [1, 2, 4, 5, 6], [3, 2, 2, 2, 2], { auto_pad: 'VALID' }), [f32('x', [1, 2, 4, 5, 6], 6)], threads);
  });

  it('ConvTranspose3d: strides, pads, dilations, output_padding; groups with output_shape', async () => {
    await agree(convModel('ConvTranspose', [1, 4, 3, 4, 5], [4, 3, 3, 2, 3],
      { strides: [2, 1, 2], pads: [1, 0, 1, 0, 0, 1], dilations: [1, 2, 1], output_padding: [1, 0, 0] }), [f32('x', [1, 4, 3, 4, 5], 7)], threads);
    await agree(convModel('ConvTranspose', [2, 4, 3, 3, 4], [4, 2, 2, 2, 2], { group: 2, strides: [2, 2, 2], output_shape: [6, 7, 8] }),
      [f32('x', [2, 4, 3, 3, 4], 8)], threads);
  });

  // An output_shape one short of the full extent in every dim: the odd unit of padding comes off
  // the start unless auto_pad is SAME_UPPER (the engine took it off the end for NOTSET too).
  it.each(['NOTSET', 'SAME_UPPER', 'SAME_LOWER'])('ConvTranspose3d output_shape with an odd total padding, auto_pad %s', async (autoPad) => {
    const attrs: Attrs = { strides: [2, 2, 1], output_shape: [8, 10, 3] };
    if (autoPad !== 'NOTSET') attrs.auto_pad = autoPad;
    await agree(convModel('ConvTranspose', [1, 2, 4, 5, 3], [2, 3, 3, 3, 2], attrs), [f32('x', [1, 2, 4, 5, 3], 17)], threads);
  });

  it('MaxPool3d: pads, strides, dilations, ceil_mode, Indices', async () => {
    await agree(poolModel('MaxPool', [1, 3, 7, 8, 9], { kernel_shape: [3, 2, 3], strides: [2, 2, 1], pads: [1, 0, 1, 1, 1, 0] }, true),
      [f32('x', [1, 3, 7, 8, 9], 9)], threads);
    await agree(poolModel('MaxPool', [2, 2, 7, 8, 9], { kernel_shape: [2, 2, 2], strides: [2, 3, 2], ceil_mode: 1, dilations: [1, 2, 1] }, true),
      [f32('x', [2, 2, 7, 8, 9], 10)], threads);
    await agree(poolModel('MaxPool', [1, 2, 5, 6, 7], { kernel_shape: [2, 3, 2], strides: [1, 2, 2], storage_order: 1 }, true),
      [f32('x', [1, 2, 5, 6, 7], 13)], threads);
  });

  it('MaxPool3d without Indices (the vectorised rows): pads, strides, dilations, ceil_mode, windows past the input', async () => {
    await agree(poolModel('MaxPool', [1, 4, 8, 8, 8], { kernel_shape: [2, 2, 2], strides: [2, 2, 2] }), [f32('x', [1, 4, 8, 8, 8], 14)], threads);
    await agree(poolModel('MaxPool', [2, 3, 7, 9, 20], { kernel_shape: [3, 3, 3], strides: [2, 1, 2], pads: [1, 1, 1, 1, 1, 1] }),
      [f32('x', [2, 3, 7, 9, 20], 15)], threads);
    await agree(poolModel('MaxPool', [1, 2, 6, 7, 19], { kernel_shape: [2, 2, 3], strides: [2, 2, 3], dilations: [2, 1, 2], ceil_mode: 1, pads: [0, 0, 2, 1, 1, 2] }),
      [f32('x', [1, 2, 6, 7, 19], 16)], threads);
  });

  it('MaxPool 2-D 2×2 stride 2 (a vectorised row per ISA): rows of 12, 16 and 35 outputs, pads, ceil_mode', async () => {
    await agree(poolModel('MaxPool', [2, 5, 24, 24], { kernel_shape: [2, 2], strides: [2, 2] }), [f32('x', [2, 5, 24, 24], 18)], threads);
    await agree(poolModel('MaxPool', [1, 3, 33, 71], { kernel_shape: [2, 2], strides: [2, 2], pads: [1, 1, 0, 0] }), [f32('x', [1, 3, 33, 71], 19)], threads);
    await agree(poolModel('MaxPool', [1, 2, 9, 32], { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 }), [f32('x', [1, 2, 9, 32], 20)], threads);
  });

  it('Conv3d: pointwise (the input read in place)', async () => {
    await agree(convModel('Conv', [2, 8, 4, 5, 6], [12, 8, 1, 1, 1], {}), [f32('x', [2, 8, 4, 5, 6], 17)], threads);
  });

  it('Conv3d: stride 2 with padding and a fused Relu', async () => {
    await agree(convModel('Conv', [1, 6, 9, 9, 9], [7, 6, 3, 3, 3], { strides: [2, 2, 2], pads: [1, 1, 1, 1, 1, 1] }, { relu: true }),
      [f32('x', [1, 6, 9, 9, 9], 18)], threads);
  });

  it('Conv3d: 4 output channels (thinner than a GEMM tile)', async () => {
    await agree(convModel('Conv', [1, 1, 8, 8, 8], [4, 1, 3, 3, 3], { pads: [1, 1, 1, 1, 1, 1] }, { relu: true }), [f32('x', [1, 1, 8, 8, 8], 19)], threads);
  });

  it('Conv3d: big enough to be threaded', async () => {
    // Sums of 432 products: each engine is ~2e-4 off a float64 reference at the smallest outputs.
    await agree(convModel('Conv', [1, 16, 12, 16, 16], [32, 16, 3, 3, 3], { pads: [1, 1, 1, 1, 1, 1] }), [f32('x', [1, 16, 12, 16, 16], 20)], threads, 1e-3);
  });

  it.each([0, 1])('AvgPool3d: pads, strides, ceil_mode (count_include_pad=%i)', async (include) => {
    await agree(poolModel('AveragePool', [1, 3, 7, 8, 9], { kernel_shape: [3, 3, 2], strides: [2, 2, 2], pads: [1, 1, 0, 1, 0, 1], count_include_pad: include }),
      [f32('x', [1, 3, 7, 8, 9], 11)], threads);
    await agree(poolModel('AveragePool', [2, 2, 7, 6, 5], { kernel_shape: [2, 3, 2], strides: [2, 2, 2], pads: [0, 1, 1, 0, 1, 1], ceil_mode: 1, count_include_pad: include }),
      [f32('x', [2, 2, 7, 6, 5], 12)], threads);
  });
});
