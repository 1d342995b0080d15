/**
 * The operator families and element types beyond FP32 CNN/NLP basics, against ONNX Runtime at 1
 * and 2 threads: integer and FP16/FP64 graphs, Mod/BitShift, recurrent cells, indexing, layout and
 * quantisation operators. Floats agree within 1e-4 relative (FP16 outputs within their rounding),
 * integers and booleans exactly.
 */
import { describe, it } from 'vitest';
import type { CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { toHalf } from '../../../helpers/half.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-ops-diff-');

const f32 = (name: string, dims: number[], seed: number, scale = 1): CpuTensor =>
  ({ name, datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed, scale) });

describe.each([1, 2])('cpu engine vs ONNX Runtime, new operators and types (threads=%i)', (threads) => {
  it('UINT8 image → Cast → normalise; UINT8 Add, INT8 Clip, UINT32 Max, INT64 Mod, UINT8 BitShift', async () => {
    const model = new OnnxGraphBuilder('ints', 17)
      .input('img', 'UINT8', [1, 3, 4, 4]).input('a', 'INT64', [6]).input('b', 'INT64', [6]).input('s', 'INT8', [8]).input('u', 'UINT32', [4])
      .initializer('scale', 'FLOAT', [1], [1 / 255])
      .initializer('two', 'UINT8', [1], [2]).initializer('lo', 'INT8', [], [-5]).initializer('hi', 'INT8', [], [7]).initializer('u2', 'UINT32', [4], [3, 900, 1, 65000])
      .node('Cast', ['img'], ['f'], { to: 1 }).node('Mul', ['f', 'scale'], ['normalised'])
      .node('Add', ['img', 'img'], ['doubled']).node('BitShift', ['img', 'two'], ['shifted'], { direction: 'RIGHT' })
      .node('Mod', ['a', 'b'], ['mod']).node('Mod', ['a', 'b'], ['fmod'], { fmod: 1 })
      .node('Clip', ['s', 'lo', 'hi'], ['clipped']).node('Max', ['u', 'u2'], ['umax'])
      .output('normalised', 'FLOAT').output('doubled', 'UINT8').output('shifted', 'UINT8').output('mod', 'INT64').output('fmod', 'INT64')
      .output('clipped', 'INT8').output('umax', 'UINT32')
      .encode();
    const img = Uint8Array.from({ length: 48 }, (_, i) => (i * 37) % 256);
    await agree(model, [
      { name: 'img', datatype: 'UINT8', dims: [1, 3, 4, 4], data: img },
      { name: 'a', datatype: 'INT64', dims: [6], data: BigInt64Array.from([7n, -7n, 7n, -7n, 0n, 13n]) },
      { name: 'b', datatype: 'INT64', dims: [6], data: BigInt64Array.from([3n, 3n, -3n, -3n, 5n, 4n]) },
      { name: 's', datatype: 'INT8', dims: [8], data: Int8Array.from([-128, -6, -5, 0, 6, 7, 8, 127]) },
      { name: 'u', datatype: 'UINT32', dims: [4], data: Uint32Array.from([4, 800, 0, 4294967295]) },
    ], threads);
  });

  it('broadcasting shapes whose dims merge into long runs (squeeze-and-excitation scale, channel bias) and ones that do not', async () => {
    // elementwise.cc merges neighbouring dims both operands read alike: [2,5,9,11] × [2,5,1,1]
    // runs as rows of 99, [1,6,1,1] + [3,6,8,8] as rows of 64; a dim of one between them, both
    // operands broadcast, and operands broadcast along different dims keep other splits.
    const pairs: Array<[number[], number[]]> = [
      [[2, 5, 9, 11], [2, 5, 1, 1]], [[1, 6, 1, 1], [3, 6, 8, 8]], [[2, 1, 5, 7], [2, 1, 1, 1]],
      [[4, 1, 9], [1, 6, 1]], [[3, 1, 7, 1], [1, 5, 1, 4]], [[2, 3, 4], [4]], [[1], [2, 3]], [[2, 1, 1, 8], [2, 3, 5, 1]],
    ];
    const g = new OnnxGraphBuilder('broadcast', 17);
    const inputs: CpuTensor[] = [];
    pairs.forEach(([a, b], k) => {
      g.input(`a${k}`, 'FLOAT', a).input(`b${k}`, 'FLOAT', b);
      inputs.push(f32(`a${k}`, a, 80 + 2 * k, 2), f32(`b${k}`, b, 81 + 2 * k, 2));
      for (const op of ['Mul', 'Add', 'Sub']) g.node(op, [`a${k}`, `b${k}`], [`${op}${k}`]).output(`${op}${k}`, 'FLOAT');
    });
    await agree(g.encode(), inputs, threads, 0);
  });

  it('FP16 and FP64 inputs, weights and outputs (computed in FP32)', async () => {
    const w = toHalf(randomValues(8 * 5, 3, 0.5));
    const model = new OnnxGraphBuilder('halves', 17)
      .input('x', 'FLOAT16', [2, 8]).input('d', 'DOUBLE', [3])
      .initializer('w', 'FLOAT16', [8, 5], w).initializer('k', 'DOUBLE', [3], [0.5, 1.5, -2])
      .node('Relu', ['x'], ['r']).node('MatMul', ['r', 'w'], ['y']).node('Mul', ['d', 'k'], ['dk'])
      .node('Cast', ['y'], ['y32'], { to: 1 })
      .output('y', 'FLOAT16').output('dk', 'DOUBLE').output('y32', 'FLOAT')
      .encode();
    await agree(model, [
      { name: 'x', datatype: 'FP16', dims: [2, 8], data: toHalf(randomValues(16, 4, 1)) },
      { name: 'd', datatype: 'FP64', dims: [3], data: Float64Array.from([1.25, -3, 0.1]) },
    ], threads, 1e-3); // y32 reads y: ONNX Runtime rounds y to FP16 first, the engine keeps its FP32 value
  });

  it('Casts through FP16 and BF16 inside an FP32 graph, and same-type Casts (vector blocks and tails)', async () => {
    // 21 values: two 8-wide conversion blocks and a tail; the FP32 results keep the narrow rounding
    // (about 5e-4 for FP16, 4e-3 for BF16, both above the 1e-4 tolerance) or fail.
    const model = new OnnxGraphBuilder('narrow_casts', 17)
      .input('x', 'FLOAT', [3, 7])
      .node('Cast', ['x'], ['h'], { to: 10 }).node('Cast', ['h'], ['hf'], { to: 1 })
      .node('Cast', ['x'], ['b'], { to: 16 }).node('Cast', ['b'], ['bf'], { to: 1 })
      .node('Cast', ['x'], ['same'], { to: 1 })
      .node('Cast', ['x'], ['i'], { to: 7 }).node('Cast', ['i'], ['ii'], { to: 7 })
      .output('hf', 'FLOAT').output('bf', 'FLOAT').output('same', 'FLOAT').output('ii', 'INT64')
      .encode();
    await agree(model, [f32('x', [3, 7], 21, 100)], threads);
  });

  it('RNN with sequence_lens, reverse GRU with linear_before_reset, bidirectional LSTM with peepholes', async () => {
    const H = 6, I = 4;
    const model = new OnnxGraphBuilder('rnns', 14)
      .input('x', 'FLOAT', [5, 3, I]).input('lens', 'INT32', [3])
      .initializer('rw', 'FLOAT', [1, H, I], randomValues(H * I, 1, 0.5)).initializer('rr', 'FLOAT', [1, H, H], randomValues(H * H, 2, 0.5))
      .initializer('rb', 'FLOAT', [1, 2 * H], randomValues(2 * H, 3, 0.5))
      .initializer('gw', 'FLOAT', [1, 3 * H, I], randomValues(3 * H * I, 4, 0.5)).initializer('gr', 'FLOAT', [1, 3 * H, H], randomValues(3 * H * H, 5, 0.5))
      .initializer('gb', 'FLOAT', [1, 6 * H], randomValues(6 * H, 6, 0.5))
      .initializer('lw', 'FLOAT', [2, 4 * H, I], randomValues(8 * H * I, 7, 0.5)).initializer('lr', 'FLOAT', [2, 4 * H, H], randomValues(8 * H * H, 8, 0.5))
      .initializer('lb', 'FLOAT', [2, 8 * H], randomValues(16 * H, 9, 0.5)).initializer('lp', 'FLOAT', [2, 3 * H], randomValues(6 * H, 10, 0.5))
      .node('RNN', ['x', 'rw', 'rr', 'rb', 'lens'], ['ry', 'rh'], { hidden_size: H })
      .node('GRU', ['x', 'gw', 'gr', 'gb'], ['gy', 'gh'], { hidden_size: H, direction: 'reverse', linear_before_reset: 1 })
      .node('LSTM', ['x', 'lw', 'lr', 'lb', '', '', '', 'lp'], ['ly', 'lh', 'lc'], { hidden_size: H, direction: 'bidirectional' })
      .output('ry', 'FLOAT').output('rh', 'FLOAT').output('gy', 'FLOAT').output('gh', 'FLOAT').output('ly', 'FLOAT').output('lh', 'FLOAT').output('lc', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [5, 3, I], 11), { name: 'lens', datatype: 'INT32', dims: [3], data: Int32Array.from([5, 2, 4]) }], threads);
  });

  it('indexing: GatherElements, GatherND, ScatterElements, ScatterND, TopK, NonZero, CumSum, OneHot', async () => {
    const model = new OnnxGraphBuilder('index', 16)
      .input('x', 'FLOAT', [3, 4])
      .initializer('gi', 'INT64', [2, 4], [0, 2, 1, -1, 2, 0, 0, 1]).initializer('ndi', 'INT64', [2, 2], [0, 1, 2, 3])
      .initializer('upd', 'FLOAT', [2, 4], [1, 2, 3, 4, 5, 6, 7, 8]).initializer('ndu', 'FLOAT', [2], [9, 10])
      .initializer('k', 'INT64', [1], [2]).initializer('axis', 'INT64', [], [1])
      .initializer('oh', 'INT64', [4], [0, 3, -1, 7]).initializer('depth', 'INT64', [], [4]).initializer('ohv', 'FLOAT', [2], [0, 1])
      .node('GatherElements', ['x', 'gi'], ['ge'], { axis: 0 })
      .node('GatherND', ['x', 'ndi'], ['gnd'])
      .node('ScatterElements', ['x', 'gi', 'upd'], ['se'], { axis: 0, reduction: 'add' })
      .node('ScatterND', ['x', 'ndi', 'ndu'], ['snd'])
      .node('TopK', ['x', 'k'], ['tv', 'ti'], { axis: 1 })
      .node('TopK', ['x', 'k'], ['sv', 'si'], { axis: 0, largest: 0 })
      .node('Relu', ['x'], ['rx']).node('NonZero', ['rx'], ['nz'])
      .node('CumSum', ['x', 'axis'], ['cs'], { exclusive: 1, reverse: 1 })
      .node('OneHot', ['oh', 'depth', 'ohv'], ['onehot'], { axis: 0 })
      .output('ge', 'FLOAT').output('gnd', 'FLOAT').output('se', 'FLOAT').output('snd', 'FLOAT').output('tv', 'FLOAT').output('ti', 'INT64')
      .output('sv', 'FLOAT').output('si', 'INT64').output('nz', 'INT64').output('cs', 'FLOAT').output('onehot', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [3, 4], 12)], threads);
  });

  it('layout and quantisation: Trilu, DepthToSpace (CRD), SpaceToDepth, Hardmax, IsNaN, Shrink, QuantizeLinear → DequantizeLinear', async () => {
    const model = new OnnxGraphBuilder('layout', 14)
      .input('x', 'FLOAT', [1, 8, 2, 3])
      .initializer('k', 'INT64', [], [-1]).initializer('qs', 'FLOAT', [], [0.02]).initializer('qz', 'UINT8', [], [128])
      .node('Trilu', ['x', 'k'], ['tri'], { upper: 0 })
      .node('DepthToSpace', ['x'], ['d2s'], { blocksize: 2, mode: 'CRD' })
      .node('SpaceToDepth', ['d2s'], ['s2d'], { blocksize: 2 })
      .node('Hardmax', ['x'], ['hm'], { axis: 1 })
      .node('IsNaN', ['x'], ['nan'])
      .node('Shrink', ['x'], ['shrunk'], { lambd: 0.7, bias: 0.2 })
      .node('QuantizeLinear', ['x', 'qs', 'qz'], ['q']).node('DequantizeLinear', ['q', 'qs', 'qz'], ['dq'])
      .output('tri', 'FLOAT').output('d2s', 'FLOAT').output('s2d', 'FLOAT').output('hm', 'FLOAT').output('nan', 'BOOL').output('shrunk', 'FLOAT')
      .output('q', 'UINT8').output('dq', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [1, 8, 2, 3], 13, 2)], threads);
  });

  it('LRN (sizes 5 and 3, own alpha, beta and bias) over two images of 13 channels, planes shared among the threads', async () => {
    const model = new OnnxGraphBuilder('lrn', 13)
      .input('x', 'FLOAT', [2, 13, 9, 11])
      .node('LRN', ['x'], ['lrn5'], { size: 5 })
      .node('LRN', ['x'], ['lrn3'], { size: 3, alpha: 0.01, beta: 0.5, bias: { float: 2 } })
      .output('lrn5', 'FLOAT').output('lrn3', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [2, 13, 9, 11], 17, 3)], threads, 1e-5);
  });

  it('QuantizeLinear/DequantizeLinear fast paths: ties, saturation, per-axis INT8 and UINT8 with zero points', async () => {
    const model = new OnnxGraphBuilder('qdq', 13)
      .input('x', 'FLOAT', [2, 3, 40])
      .initializer('s', 'FLOAT', [], [0.5]).initializer('z', 'UINT8', [], [3])
      .initializer('cs', 'FLOAT', [3], [0.5, 0.02, 1.5]).initializer('cz', 'INT8', [3], [-4, 0, 7])
      .node('QuantizeLinear', ['x', 's', 'z'], ['qu']).node('DequantizeLinear', ['qu', 's', 'z'], ['du'])
      .node('QuantizeLinear', ['x', 'cs', 'cz'], ['qc'], { axis: 1 }).node('DequantizeLinear', ['qc', 'cs', 'cz'], ['dc'], { axis: 1 })
      .output('qu', 'UINT8').output('du', 'FLOAT').output('qc', 'INT8').output('dc', 'FLOAT')
      .encode();
    // Multiples of 0.25 (x / 0.5 lands on .5 ties) from -70 to 70 (both ends saturate).
    const x = Float32Array.from({ length: 240 }, (_, i) => (((i * 37) % 561) - 280) * 0.25);
    await agree(model, [{ name: 'x', datatype: 'FP32', dims: [2, 3, 40], data: x }], threads);
  });

  it('quantised: DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv', async () => {
    const u8 = (n: number, seed: number) => Array.from({ length: n }, (_, i) => (i * 53 + seed * 29) % 256);
    const model = new OnnxGraphBuilder('quant', 13)
      .input('x', 'FLOAT', [2, 3, 5, 5]).input('a', 'UINT8', [2, 4, 6])
      .initializer('b', 'UINT8', [6, 3], u8(18, 1)).initializer('azp', 'UINT8', [], [7]).initializer('bzp', 'UINT8', [], [130])
      .initializer('as', 'FLOAT', [], [0.05]).initializer('bs', 'FLOAT', [], [0.02]).initializer('ys', 'FLOAT', [], [0.3]).initializer('yzp', 'UINT8', [], [120])
      .initializer('w', 'UINT8', [4, 3, 3, 3], u8(108, 2)).initializer('wzp', 'UINT8', [], [128])
      .initializer('ws', 'FLOAT', [4], [0.01, 0.02, 0.015, 0.03]).initializer('cb', 'INT32', [4], [100, -200, 0, 50])
      .node('DynamicQuantizeLinear', ['x'], ['qx', 'qs', 'qz'])
      .node('MatMulInteger', ['a', 'b', 'azp', 'bzp'], ['mmi'])
      .node('QLinearMatMul', ['a', 'as', 'azp', 'b', 'bs', 'bzp', 'ys', 'yzp'], ['qmm'])
      .node('ConvInteger', ['qx', 'w', 'qz', 'wzp'], ['ci'], { pads: [1, 1, 1, 1] })
      .node('QLinearConv', ['qx', 'qs', 'qz', 'w', 'ws', 'wzp', 'ys', 'yzp', 'cb'], ['qc'], { strides: [2, 2] })
      .output('qx', 'UINT8').output('qs', 'FLOAT').output('qz', 'UINT8').output('mmi', 'INT32').output('qmm', 'UINT8').output('ci', 'INT32').output('qc', 'UINT8')
      .encode();
    await agree(model, [f32('x', [2, 3, 5, 5], 14, 3), { name: 'a', datatype: 'UINT8', dims: [2, 4, 6], data: Uint8Array.from(u8(48, 3)) }], threads);
  });

  it.each(['bilinear', 'nearest', 'bicubic'])('GridSample %s with each padding mode', async (mode) => {
    const builder = new OnnxGraphBuilder('grid', 16).input('x', 'FLOAT', [1, 2, 5, 6]).input('g', 'FLOAT', [1, 4, 3, 2]);
    for (const pad of ['zeros', 'border', 'reflection']) {
      builder.node('GridSample', ['x', 'g'], [`y_${pad}`], { mode, padding_mode: pad, align_corners: pad === 'border' ? 1 : 0 }).output(`y_${pad}`, 'FLOAT');
    }
    await agree(builder.encode(), [f32('x', [1, 2, 5, 6], 15), f32('g', [1, 4, 3, 2], 16, 1.3)], threads);
  });

  it('Det, Upsample, UINT8/INT8 MaxPool, MaxPool indices → MaxUnpool (with and without output_shape), RoiAlign (avg and max, both coordinate modes)', async () => {
    const rois = Float32Array.from([0, 0, 5, 5, 1.3, 0.4, 6.2, 3.9, 2, 2, 2.5, 7]);
    const model = new OnnxGraphBuilder('vision', 16)
      .input('m', 'FLOAT', [2, 3, 4, 4]).input('x', 'FLOAT', [2, 3, 8, 8]).input('rois', 'FLOAT', [3, 4])
      .initializer('batch', 'INT64', [3], [0, 1, 1]).initializer('up', 'FLOAT', [4], [1, 1, 2, 3]).initializer('shape', 'INT64', [4], [2, 3, 9, 9])
      .node('Det', ['m'], ['det'])
      .node('MaxPool', ['x'], ['pooled', 'idx'], { kernel_shape: [2, 2], strides: [2, 2] })
      .node('MaxUnpool', ['pooled', 'idx'], ['unpooled'], { kernel_shape: [2, 2], strides: [2, 2] })
      .node('MaxUnpool', ['pooled', 'idx', 'shape'], ['unpooled_shape'], { kernel_shape: [2, 2], strides: [2, 2] })
      .node('RoiAlign', ['x', 'rois', 'batch'], ['roi_avg'], { output_height: 3, output_width: 2, sampling_ratio: 2, spatial_scale: 0.9 })
      .node('RoiAlign', ['x', 'rois', 'batch'], ['roi_adaptive'], { output_height: 2, output_width: 2, coordinate_transformation_mode: 'output_half_pixel' })
      .node('RoiAlign', ['x', 'rois', 'batch'], ['roi_max'], { mode: 'max', output_height: 2, output_width: 3, sampling_ratio: 1 })
      .output('det', 'FLOAT').output('unpooled', 'FLOAT').output('unpooled_shape', 'FLOAT')
      .output('roi_avg', 'FLOAT').output('roi_adaptive', 'FLOAT').output('roi_max', 'FLOAT')
      .encode();
    await agree(model, [f32('m', [2, 3, 4, 4], 18, 2), f32('x', [2, 3, 8, 8], 19), { name: 'rois', datatype: 'FP32', dims: [3, 4], data: rois }], threads, 2e-4);
    const upsample = new OnnxGraphBuilder('upsample', 9)
      .input('x', 'FLOAT', [1, 2, 3, 4]).initializer('scales', 'FLOAT', [4], [1, 1, 2, 1.5])
      .node('Upsample', ['x', 'scales'], ['y'], { mode: 'nearest' }).output('y', 'FLOAT')
      .encode();
    await agree(upsample, [f32('x', [1, 2, 3, 4], 20)], threads);
    const pools = new OnnxGraphBuilder('int8_pools', 12)
      .input('u', 'UINT8', [1, 2, 5, 5]).input('s', 'INT8', [1, 2, 5, 5])
      .node('MaxPool', ['u'], ['up'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] }).node('MaxPool', ['s'], ['sp'], { kernel_shape: [2, 2], strides: [2, 2] })
      .output('up', 'UINT8').output('sp', 'INT8')
      .encode();
    const bytes = (n: number, seed: number) => Array.from({ length: n }, (_, i) => (i * 97 + seed * 31) % 256);
    await agree(pools, [
      { name: 'u', datatype: 'UINT8', dims: [1, 2, 5, 5], data: Uint8Array.from(bytes(50, 1)) },
      { name: 's', datatype: 'INT8', dims: [1, 2, 5, 5], data: Int8Array.from(bytes(50, 2).map((v) => v - 128)) },
    ], threads);
  });

  // Range's inputs are graph inputs here, so the engine sizes and fills it at run time (a Range of
  // constants folds at load). Lengths from 0 to 1,000, negative and fractional deltas.
  it.each([
    { type: 'INT64', start: 0, limit: 1000, delta: 1 },
    { type: 'INT64', start: 5, limit: -300, delta: -7 },
    { type: 'INT64', start: 10, limit: 3, delta: 2 },
    { type: 'INT32', start: -50, limit: 977, delta: 3 },
    { type: 'FLOAT', start: 0.5, limit: 300.25, delta: 0.3 },
    { type: 'FLOAT', start: 10, limit: -10, delta: -0.25 },
  ] as const)('Range $type from $start to $limit by $delta', async ({ type, start, limit, delta }) => {
    const model = new OnnxGraphBuilder('range', 11)
      .input('start', type, []).input('limit', type, []).input('delta', type, [])
      .node('Range', ['start', 'limit', 'delta'], ['y']).output('y', type)
      .encode();
    const scalar = (name: string, v: number): CpuTensor => (type === 'INT64'
      ? { name, datatype: 'INT64', dims: [], data: BigInt64Array.of(BigInt(v)) }
      : type === 'INT32' ? { name, datatype: 'INT32', dims: [], data: Int32Array.of(v) } : { name, datatype: 'FP32', dims: [], data: Float32Array.of(v) });
    // ONNX Runtime adds delta once per element, the engine takes start + i·delta (ONNX's
    // definition): FP32 values drift apart by the rounding of 1,000 additions, measured 7e-6.
    await agree(model, [scalar('start', start), scalar('limit', limit), scalar('delta', delta)], threads, type === 'FLOAT' ? 2e-5 : 0);
  });

  it('Resize nearest row by row: YOLO\'s 2× upsample (enough rows for two threads), 3× and 2×3 (a repeated row copied, columns repeated in order), 2× rounding up (columns 0, 1, 1, 2, ...: not in order), a downscale with asymmetric coordinates, and a resized leading dim', async () => {
    const model = new OnnxGraphBuilder('resize_nearest', 13)
      .input('x', 'FLOAT', [1, 128, 16, 16]).input('z', 'FLOAT', [3, 5, 9])
      .initializer('empty', 'FLOAT', [0], []).initializer('s_up', 'FLOAT', [4], [1, 1, 2, 2]).initializer('s_down', 'FLOAT', [4], [1, 1, 0.6, 0.45])
      .initializer('s_lead', 'FLOAT', [3], [2, 1, 1.5]).initializer('s_up3', 'FLOAT', [4], [1, 1, 3, 3]).initializer('s_up23', 'FLOAT', [3], [1, 2, 3])
      .node('Resize', ['x', 'empty', 's_up'], ['up2'], { mode: 'nearest' })
      .node('Resize', ['x', 'empty', 's_up3'], ['up3'], { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' })
      .node('Resize', ['z', 'empty', 's_up23'], ['up23'], { mode: 'nearest' })
      .node('Resize', ['x', 'empty', 's_up'], ['ceil'], { mode: 'nearest', nearest_mode: 'ceil' })
      .node('Resize', ['x', 'empty', 's_down'], ['down'], { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' })
      .node('Resize', ['z', 'empty', 's_lead'], ['lead'], { mode: 'nearest', nearest_mode: 'ceil' })
      .output('up2', 'FLOAT').output('up3', 'FLOAT').output('up23', 'FLOAT').output('ceil', 'FLOAT').output('down', 'FLOAT').output('lead', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [1, 128, 16, 16], 90), f32('z', [3, 5, 9], 91)], threads, 0);
  });

  it('Resize tf_crop_and_resize: linear, nearest and cubic over a box inside the image and one past its edges (extrapolation_value), roi as an input, opset 18 axes', async () => {
    const model = new OnnxGraphBuilder('crop_resize', 18)
      .input('x', 'FLOAT', [2, 3, 7, 9]).input('box', 'FLOAT', [8])
      .initializer('inside', 'FLOAT', [8], [0, 0, 0.2, 0.1, 1, 1, 0.7, 0.95]).initializer('axes_box', 'FLOAT', [4], [-0.25, 0.3, 0.8, 1.4])
      .initializer('scales', 'FLOAT', [4], [1, 1, 1.5, 0.7]).initializer('sizes', 'INT64', [2], [5, 6])
      .node('Resize', ['x', 'inside', 'scales'], ['linear'], { mode: 'linear', coordinate_transformation_mode: 'tf_crop_and_resize' })
      .node('Resize', ['x', 'inside', 'scales'], ['nearest'], { mode: 'nearest', coordinate_transformation_mode: 'tf_crop_and_resize' })
      .node('Resize', ['x', 'box', 'scales'], ['cubic'], { mode: 'cubic', coordinate_transformation_mode: 'tf_crop_and_resize', extrapolation_value: -7.5 })
      .node('Resize', ['x', 'axes_box', '', 'sizes'], ['past'], { mode: 'linear', coordinate_transformation_mode: 'tf_crop_and_resize', axes: [2, 3], extrapolation_value: 2.5 })
      .output('linear', 'FLOAT').output('nearest', 'FLOAT').output('cubic', 'FLOAT').output('past', 'FLOAT')
      .encode();
    // The request's box reaches past the left and bottom edges: those outputs are extrapolation_value.
    const box = { name: 'box', datatype: 'FP32' as const, dims: [8], data: Float32Array.from([0, 0, -0.3, 0.2, 1, 1, 0.9, 1.2]) };
    await agree(model, [f32('x', [2, 3, 7, 9], 24), box], threads, 1e-4);
  });

  it('Resize linear, row by row (each input row across once): LR-ASPP\'s 8× upsample, align_corners, asymmetric, pytorch_half_pixel, a downscale, a flipped crop box', async () => {
    const model = new OnnxGraphBuilder('linear_resize', 18)
      .input('x', 'FLOAT', [1, 21, 7, 6]).input('y', 'FLOAT', [2, 3, 17, 23])
      .initializer('up8', 'FLOAT', [4], [1, 1, 8, 8]).initializer('down', 'FLOAT', [4], [1, 1, 0.4, 0.55])
      .initializer('up3', 'FLOAT', [4], [1, 1, 3, 2]).initializer('flipped', 'FLOAT', [8], [0, 0, 0.9, 0.8, 1, 1, 0.1, 0.2])
      .node('Resize', ['x', '', 'up8'], ['half_pixel'], { mode: 'linear' })
      .node('Resize', ['y', '', 'up3'], ['align_corners'], { mode: 'linear', coordinate_transformation_mode: 'align_corners' })
      .node('Resize', ['y', '', 'up3'], ['asymmetric'], { mode: 'linear', coordinate_transformation_mode: 'asymmetric' })
      .node('Resize', ['y', '', 'down'], ['pytorch'], { mode: 'linear', coordinate_transformation_mode: 'pytorch_half_pixel' })
      .node('Resize', ['y', 'flipped', 'up3'], ['flipped_box'], { mode: 'linear', coordinate_transformation_mode: 'tf_crop_and_resize' })
      .output('half_pixel', 'FLOAT').output('align_corners', 'FLOAT').output('asymmetric', 'FLOAT').output('pytorch', 'FLOAT').output('flipped_box', 'FLOAT')
      .encode();
    // ONNX Runtime blends in another order: up to 5e-5 apart (relative to maxRelativeError's floor).
    // Whole scales: with align_corners and a scale whose output length rounds down, ONNX
    // Runtime divides by the output length and ONNX's reference by the scaled one.
    await agree(model, [f32('x', [1, 21, 7, 6], 25), f32('y', [2, 3, 17, 23], 26)], threads, 1e-4);
  });

  it('losses: SoftmaxCrossEntropyLoss (weights, ignore_index, log_prob) and NegativeLogLikelihoodLoss', async () => {
    const model = new OnnxGraphBuilder('loss', 13)
      .input('x', 'FLOAT', [3, 5, 2]).input('t', 'INT64', [3, 2])
      .initializer('w', 'FLOAT', [5], [0.5, 1, 2, 1.5, 0.1])
      .node('SoftmaxCrossEntropyLoss', ['x', 't', 'w'], ['sce', 'logp'], { ignore_index: 4 })
      .node('NegativeLogLikelihoodLoss', ['logp', 't'], ['nll'], { reduction: 'none' })
      .node('NegativeLogLikelihoodLoss', ['logp', 't', 'w'], ['nll_sum'], { reduction: 'sum' })
      .output('sce', 'FLOAT').output('logp', 'FLOAT').output('nll', 'FLOAT').output('nll_sum', 'FLOAT')
      .encode();
    await agree(model, [f32('x', [3, 5, 2], 17, 2), { name: 't', datatype: 'INT64', dims: [3, 2], data: BigInt64Array.from([0n, 4n, 2n, 3n, 1n, 4n]) }], threads);
  });
});
