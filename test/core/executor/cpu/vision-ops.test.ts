/**
 * Vision operators exports write beside the convolutions, against ONNX Runtime at 1 and 2
 * threads: DeformConv (torchvision's deform_conv2d: DCNv1, and DCNv2 with a mask), with offsets
 * that reach past the image; AffineGrid into GridSample (a spatial transformer: torch's
 * affine_grid), 2-D and 3-D; Col2Im (torch's fold) with overlapping blocks; LpPool (nn.LPPool2d,
 * 1-D to 3-D) and GlobalLpPool; MaxRoiPool; CenterCropPad. What they refuse is named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-vision-ops-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-vision-ops-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);
const f32 = (name: string, dims: number[], seed: number, scale = 1): CpuTensor =>
  ({ name, datatype: 'FP32', dims, data: randomValues(count(dims), seed, scale) });

describe.each([1, 2])('vision operators vs ONNX Runtime (threads=%i)', (threads) => {
  it('DeformConv: 3x3 with bias and padding, offsets up to 3 pixels (some samples outside the image)', async () => {
    const model = new OnnxGraphBuilder('deform', 22)
      .input('x', 'FLOAT', [2, 4, 9, 9]).input('offset', 'FLOAT', [2, 18, 9, 9])
      .initializer('w', 'FLOAT', [6, 4, 3, 3], randomValues(216, 3, 0.5)).initializer('b', 'FLOAT', [6], randomValues(6, 4))
      .node('DeformConv', ['x', 'w', 'offset', 'b'], ['y'], { pads: [1, 1, 1, 1] })
      .output('y', 'FLOAT').encode();
    await agree(model, [f32('x', [2, 4, 9, 9], 1), f32('offset', [2, 18, 9, 9], 2, 3)], threads);
  });

  it('DeformConv (DCNv2): a mask, two groups, two offset groups, stride 2, dilation 2, a 3x2 kernel, opset 19', async () => {
    const model = new OnnxGraphBuilder('deform_v2', 19)
      .input('x', 'FLOAT', [1, 8, 12, 11]).input('offset', 'FLOAT', [1, 24, 5, 5]).input('mask', 'FLOAT', [1, 12, 5, 5])
      .initializer('w', 'FLOAT', [6, 4, 3, 2], randomValues(144, 5, 0.5))
      .node('DeformConv', ['x', 'w', 'offset', '', 'mask'], ['y'], { group: 2, offset_group: 2, strides: [2, 2], dilations: [2, 2], pads: [1, 0, 1, 1] })
      .output('y', 'FLOAT').encode();
    const mask = f32('mask', [1, 12, 5, 5], 8);
    (mask.data as Float32Array).forEach((v, i, a) => (a[i] = (v + 1) / 2));
    await agree(model, [f32('x', [1, 8, 12, 11], 6), f32('offset', [1, 24, 5, 5], 7, 2.5), mask], threads);
  });

  it('AffineGrid, 2-D with and without align_corners, 3-D, a dim of one; into GridSample (a spatial transformer)', async () => {
    const grids = new OnnxGraphBuilder('affine_grid', 20)
      .input('theta', 'FLOAT', [2, 2, 3]).input('theta3', 'FLOAT', [1, 3, 4])
      .initializer('size', 'INT64', [4], [2, 3, 7, 9]).initializer('size3', 'INT64', [5], [1, 2, 3, 4, 5]).initializer('one', 'INT64', [4], [2, 1, 1, 6])
      .node('AffineGrid', ['theta', 'size'], ['grid']).node('AffineGrid', ['theta', 'size'], ['grid_ac'], { align_corners: 1 })
      .node('AffineGrid', ['theta3', 'size3'], ['grid3'], { align_corners: 1 }).node('AffineGrid', ['theta3', 'size3'], ['grid3_edges'])
      .node('AffineGrid', ['theta', 'one'], ['grid_one'])
      .output('grid', 'FLOAT').output('grid_ac', 'FLOAT').output('grid3', 'FLOAT').output('grid3_edges', 'FLOAT').output('grid_one', 'FLOAT')
      .encode();
    const theta = [f32('theta', [2, 2, 3], 2, 0.8), f32('theta3', [1, 3, 4], 3, 0.8)];
    await agree(grids, theta, threads, 1e-5);
    // The grid's values differ from ONNX Runtime's in the last bit at some positions (their order
    // of operations), and bilinear sampling turns a coordinate's last bit into about 2e-6 of a
    // value: beside values near zero that reads up to 6e-4 relative.
    const stn = new OnnxGraphBuilder('stn', 20)
      .input('x', 'FLOAT', [2, 3, 10, 12]).input('theta', 'FLOAT', [2, 2, 3]).initializer('size', 'INT64', [4], [2, 3, 7, 9])
      .node('AffineGrid', ['theta', 'size'], ['grid'], { align_corners: 1 }).node('GridSample', ['x', 'grid'], ['warped'], { align_corners: 1 })
      .output('warped', 'FLOAT').encode();
    await agree(stn, [f32('x', [2, 3, 10, 12], 1), theta[0]], threads, 2e-3);
  });

  it('Col2Im (fold): overlapping 3x3 blocks with stride 1 and padding, and strided dilated 2x2 blocks', async () => {
    const model = new OnnxGraphBuilder('fold', 18)
      .input('cols', 'FLOAT', [2, 18, 48]).input('cols2', 'FLOAT', [1, 12, 9])
      .initializer('image', 'INT64', [2], [6, 8]).initializer('block', 'INT64', [2], [3, 3])
      .initializer('image2', 'INT64', [2], [7, 9]).initializer('block2', 'INT64', [2], [2, 2])
      .node('Col2Im', ['cols', 'image', 'block'], ['folded'], { pads: [1, 1, 1, 1] })
      .node('Col2Im', ['cols2', 'image2', 'block2'], ['strided'], { strides: [2, 3], dilations: [2, 2], pads: [0, 1, 1, 0] })
      .output('folded', 'FLOAT').output('strided', 'FLOAT')
      .encode();
    await agree(model, [f32('cols', [2, 18, 48], 1), f32('cols2', [1, 12, 9], 2)], threads);
  });

  it('LpPool p=2 and p=3 (padding, strides, ceil_mode, dilations, dilated windows starting in the padding), p=1 in 1-D, 3-D, and GlobalLpPool', async () => {
    const model = new OnnxGraphBuilder('lppool', 18)
      .input('x', 'FLOAT', [2, 3, 9, 10]).input('seq', 'FLOAT', [2, 4, 15])
      .node('LpPool', ['x'], ['p2'], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], p: 2 })
      .node('LpPool', ['x'], ['p3'], { kernel_shape: [2, 3], strides: [2, 3], ceil_mode: 1, dilations: [2, 1], p: 3 })
      .node('LpPool', ['x'], ['dilated'], { kernel_shape: [3, 3], pads: [2, 2, 1, 2], dilations: [2, 3], p: 2 })
      .node('LpPool', ['seq'], ['p1'], { kernel_shape: [4], strides: [3], p: 1 })
      .node('GlobalLpPool', ['x'], ['g2']).node('GlobalLpPool', ['x'], ['g1'], { p: 1 })
      .input('vol', 'FLOAT', [1, 2, 5, 6, 7]).node('LpPool', ['vol'], ['p3d'], { kernel_shape: [2, 3, 2], strides: [2, 2, 2], pads: [0, 1, 1, 1, 1, 0], p: 2 })
      .output('p2', 'FLOAT').output('p3', 'FLOAT').output('dilated', 'FLOAT').output('p1', 'FLOAT').output('g2', 'FLOAT').output('g1', 'FLOAT').output('p3d', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [2, 3, 9, 10], 1, 2), f32('seq', [2, 4, 15], 2, 2), f32('vol', [1, 2, 5, 6, 7], 3, 2)], threads);
  });

  it('MaxRoiPool: regions partly outside the map, a one-pixel region, spatial_scale 0.5, 3x2 bins', async () => {
    const model = new OnnxGraphBuilder('roipool', 17)
      .input('x', 'FLOAT', [2, 3, 12, 10]).input('rois', 'FLOAT', [5, 5])
      .node('MaxRoiPool', ['x', 'rois'], ['y'], { pooled_shape: [3, 2], spatial_scale: { float: 0.5 } }).output('y', 'FLOAT').encode();
    const rois = Float32Array.from([0, 0, 0, 19, 23, 1, 4, 6, 13, 17, 0, -6, -4, 8, 9, 1, 10, 12, 30, 40, 0, 7, 7, 7, 7]);
    await agree(model, [f32('x', [2, 3, 12, 10], 1), { name: 'rois', datatype: 'FP32', dims: [5, 5], data: rois }], threads, 0);
  });

  it('CenterCropPad: crop and pad in one call (odd differences), named axes, and an INT64 tensor', async () => {
    const model = new OnnxGraphBuilder('ccp', 18)
      .input('x', 'FLOAT', [2, 3, 7, 8]).input('ids', 'INT64', [5, 6])
      .initializer('hw', 'INT64', [2], [4, 11]).initializer('all', 'INT64', [2], [8, 3])
      .node('CenterCropPad', ['x', 'hw'], ['image'], { axes: [-2, 3] })
      .node('CenterCropPad', ['ids', 'all'], ['table'])
      .output('image', 'FLOAT').output('table', 'INT64')
      .encode();
    const ids: CpuTensor = { name: 'ids', datatype: 'INT64', dims: [5, 6], data: BigInt64Array.from({ length: 30 }, (_, i) => BigInt(i * 7 - 50)) };
    await agree(model, [f32('x', [2, 3, 7, 8], 1), ids], threads, 0);
  });
});

describe('vision operators: what is refused, named', () => {
  const load = (model: Uint8Array) => {
    const file = path.join(dir, `m${Math.random().toString(36).slice(2)}.onnx`);
    writeFileSync(file, model);
    return CpuSession.load(file);
  };
  it('a 3-D DeformConv at load; offsets of the wrong shape and blocks that do not tile the image when run', async () => {
    const deform3d = new OnnxGraphBuilder('deform3d', 22).input('x', 'FLOAT', [1, 2, 4, 4, 4]).input('o', 'FLOAT', [1, 6, 4, 4, 4])
      .initializer('w', 'FLOAT', [2, 2, 1, 1, 1], [1, 2, 3, 4]).node('DeformConv', ['x', 'w', 'o'], ['y'], { strides: [1, 1, 1] }).output('y', 'FLOAT').encode();
    expect(() => load(deform3d)).toThrow(/DeformConv: only 2-D deformable convolution is supported/);
    const deform = new OnnxGraphBuilder('deform_bad', 22).input('x', 'FLOAT', [1, 2, 5, 5]).input('o', 'FLOAT', [1, 8, 3, 3])
      .initializer('w', 'FLOAT', [2, 2, 3, 3], randomValues(36, 1)).node('DeformConv', ['x', 'w', 'o'], ['y']).output('y', 'FLOAT').encode();
    const session = load(deform);
    try {
      await expect(session.run([f32('x', [1, 2, 5, 5], 1), f32('o', [1, 8, 3, 3], 2)]))
        .rejects.toThrow(/offset must be \[N, offset_group \* 2 \* kH \* kW, oH, oW\] = \[1, 18, 3, 3\]; shape \[1, 8, 3, 3\]/);
    } finally {
      session.close();
    }
    const fold = new OnnxGraphBuilder('fold_bad', 18).input('cols', 'FLOAT', [1, 9, 10])
      .initializer('image', 'INT64', [2], [5, 5]).initializer('block', 'INT64', [2], [3, 3])
      .node('Col2Im', ['cols', 'image', 'block'], ['y']).output('y', 'FLOAT').encode();
    const folding = load(fold);
    try {
      await expect(folding.run([f32('cols', [1, 9, 10], 1)])).rejects.toThrow(/input has 10 blocks \(its last dim\) but the image, block, strides, dilations and pads make \[3, 3\] = 9/);
    } finally {
      folding.close();
    }
  });
});
