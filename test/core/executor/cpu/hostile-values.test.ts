/**
 * Values a client can send that C++ leaves undefined or that x86 traps on, through the kernels
 * that meet them: integer arithmetic at the ends of its range (INT_MIN / -1 raises SIGFPE, which
 * would end the server), RoiAlign's boxes, whose coordinates size the work it does, real values
 * that become indices (NaN, ±Inf, 1e30), and shapes with a huge dimension beside an empty one.
 * The engine driver runs every ONNX conformance model on such values under ASan+UBSan
 * (native/test/cpu/run_on_values.h); these tests pin what a client is answered.
 *
 * Integer results follow two's complement, as numpy's and ONNX Runtime's do: sums and products
 * wrap, INT_MIN / -1 is INT_MIN and its remainder 0; division by zero, which ONNX leaves
 * undefined, gives 0. The expected values are computed here with BigInt.asIntN.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-hostile-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(name: string, model: Uint8Array): CpuSession {
  const file = path.join(dir, `${name}.onnx`);
  writeFileSync(file, model);
  return CpuSession.load(file, { intraOpThreads: 1 });
}

const BINARY = ['Add', 'Sub', 'Mul', 'Div', 'Mod', 'Fmod'] as const;
const UNARY = ['Neg', 'Abs'] as const;

/** What each operator gives in two's complement of `bits` bits (Mod: the divisor's sign). */
function expected(op: string, x: bigint, y: bigint, bits: number): bigint {
  const wrap = (v: bigint) => BigInt.asIntN(bits, v);
  switch (op) {
    case 'Add': return wrap(x + y);
    case 'Sub': return wrap(x - y);
    case 'Mul': return wrap(x * y);
    case 'Div': return y === 0n ? 0n : wrap(x / y);
    case 'Fmod': return y === 0n ? 0n : wrap(x % y);
    case 'Mod': {
      if (y === 0n) return 0n;
      const r = x % y;
      return r !== 0n && (r < 0n) !== (y < 0n) ? wrap(r + y) : r;
    }
    case 'Neg': return wrap(-x);
    case 'Abs': return wrap(x < 0n ? -x : x);
    default: throw new Error(op);
  }
}

describe.each([
  { type: 'INT32' as const, bits: 32, array: (v: bigint[]) => Int32Array.from(v, Number) },
  { type: 'INT64' as const, bits: 64, array: (v: bigint[]) => BigInt64Array.from(v) },
])('integer arithmetic at the ends of $type', ({ type, bits, array }) => {
  const min = -(1n << BigInt(bits - 1)), max = (1n << BigInt(bits - 1)) - 1n;
  // Every pair of these, so each operator meets min / -1, max + 1, min - 1, max * 2 and / 0.
  const edges = [min, min + 1n, -2n, -1n, 0n, 1n, 2n, max - 1n, max];
  const xs = edges.flatMap((x) => edges.map(() => x));
  const ys = edges.flatMap(() => edges);

  it('Add, Sub, Mul, Div, Mod (fmod 0 and 1), Neg and Abs wrap, and nothing traps', async () => {
    const n = xs.length;
    const b = new OnnxGraphBuilder('edges', 13).input('x', type, [n]).input('y', type, [n]);
    for (const op of BINARY) {
      b.node(op === 'Fmod' ? 'Mod' : op, ['x', 'y'], [op], op === 'Fmod' ? { fmod: 1 } : undefined).output(op, type);
    }
    for (const op of UNARY) b.node(op, ['x'], [op]).output(op, type);
    const session = load(`edges-${type}`, b.encode());
    const outputs = await session.run([
      { name: 'x', datatype: type, dims: [n], data: array(xs) },
      { name: 'y', datatype: type, dims: [n], data: array(ys) },
    ]);
    for (const out of outputs) {
      const got = Array.from(out.data as ArrayLike<number | bigint>, (v) => BigInt(v));
      const want = xs.map((x, i) => expected(out.name, x, ys[i], bits));
      const wrong = want.flatMap((w, i) => (got[i] === w ? [] : [`${xs[i]} ${out.name} ${ys[i]}: got ${got[i]}, want ${w}`]));
      expect(wrong, out.name).toEqual([]);
    }
    session.close();
  });
});

describe('RoiAlign: boxes from the request', () => {
  const model = (ratio: number) => new OnnxGraphBuilder('roi', 16)
    .input('x', 'FLOAT', [1, 1, 8, 8]).input('rois', 'FLOAT', [2, 4]).initializer('batch', 'INT64', [2], [0, 0])
    .node('RoiAlign', ['x', 'rois', 'batch'], ['y'], { output_height: 2, output_width: 2, sampling_ratio: ratio })
    .output('y', 'FLOAT').encode();
  const x = { name: 'x', datatype: 'FP32' as const, dims: [1, 1, 8, 8], data: new Float32Array(64).fill(1) };
  const rois = (...v: number[]) => ({ name: 'rois', datatype: 'FP32' as const, dims: [2, 4], data: Float32Array.from(v) });

  it('refuses a non-finite coordinate and a box whose adaptive grid outgrows the feature map, then serves the next request', async () => {
    const session = load('roi-adaptive', model(0));
    await expect(session.run([x, rois(0, 0, 4, 4, 1, NaN, 2, 2)])).rejects.toThrow(/roi 1 has a coordinate that is NaN/);
    await expect(session.run([x, rois(0, 0, 4, 4, 0, 0, Infinity, 2)])).rejects.toThrow(/roi 1 has a coordinate that is infinite/);
    // 1e9 pixels wide: ceil(1e9 / 2) sampling points per bin, which would run for hours.
    await expect(session.run([x, rois(0, 0, 1e9, 4, 0, 0, 4, 4)]))
      .rejects.toThrow(/roi 0 samples a grid of 2 x 5e\+08 points per bin, larger than the 8 x 8 feature map; clip the boxes to the image, or lower sampling_ratio/);
    // A box well outside the image, and one twice its size, are still answered (the samples outside are zeros).
    const [y] = await session.run([x, rois(20, 20, 24, 24, -8, -8, 16, 16)]);
    expect(Array.from(y.data as Float32Array).slice(0, 4)).toEqual([0, 0, 0, 0]);
    session.close();
  });

  it('refuses an infinite spatial_scale when the model loads', () => {
    const bad = new OnnxGraphBuilder('roi', 16)
      .input('x', 'FLOAT', [1, 1, 8, 8]).input('rois', 'FLOAT', [1, 4]).initializer('batch', 'INT64', [1], [0])
      .node('RoiAlign', ['x', 'rois', 'batch'], ['y'], { spatial_scale: { float: Infinity } }).output('y', 'FLOAT').encode();
    expect(() => load('roi-scale', bad)).toThrow(/spatial_scale must be a positive finite number/);
  });
});

describe('real values that become indices or sizes', () => {
  it('GridSample answers NaN, infinite and huge grid coordinates', async () => {
    const session = load('grid', new OnnxGraphBuilder('grid', 16)
      .input('x', 'FLOAT', [1, 1, 2, 2]).input('grid', 'FLOAT', [1, 1, 4, 2])
      .node('GridSample', ['x', 'grid'], ['zeros']).node('GridSample', ['x', 'grid'], ['border'], { padding_mode: 'border' })
      .node('GridSample', ['x', 'grid'], ['reflection'], { padding_mode: 'reflection', mode: 'nearest' })
      .output('zeros', 'FLOAT').output('border', 'FLOAT').output('reflection', 'FLOAT').encode());
    const outputs = await session.run([
      { name: 'x', datatype: 'FP32', dims: [1, 1, 2, 2], data: Float32Array.of(1, 2, 3, 4) },
      { name: 'grid', datatype: 'FP32', dims: [1, 1, 4, 2], data: Float32Array.of(NaN, NaN, Infinity, -Infinity, 1e30, -1e30, 0, 0) },
    ]);
    const [zeros, border, reflection] = outputs.map((o) => Array.from(o.data as Float32Array));
    // Bilinear weights of a NaN or infinite coordinate are NaN, so the value is; far outside is the padding.
    expect(zeros).toEqual([NaN, NaN, 0, 2.5]);
    // Border clamps (fmax(NaN, 0) is 0): the corner (0, 0), then x right and y up, twice; the centre.
    expect(border).toEqual([1, 2, 2, 2.5]);
    expect(reflection.every((v) => [1, 2, 3, 4].includes(v))).toBe(true);
    session.close();
  });

  it('OneHot refuses a depth that is NaN or past int64 and serves the next request', async () => {
    const session = load('onehot', new OnnxGraphBuilder('onehot', 11)
      .input('i', 'INT64', [2]).input('depth', 'FLOAT', [1]).initializer('values', 'FLOAT', [2], [0, 1])
      .node('OneHot', ['i', 'depth', 'values'], ['y']).output('y', 'FLOAT').encode());
    const run = (depth: number) => session.run([
      { name: 'i', datatype: 'INT64', dims: [2], data: BigInt64Array.of(0n, 2n) },
      { name: 'depth', datatype: 'FP32', dims: [1], data: Float32Array.of(depth) },
    ]);
    await expect(run(NaN)).rejects.toThrow(/depth must be positive but is 0/);
    await expect(run(1e30)).rejects.toThrow(/OneHot\) output has too many elements/);
    const [y] = await run(3);
    expect(Array.from(y.data as Float32Array)).toEqual([1, 0, 0, 0, 0, 1]);
    session.close();
  });

  // At the top level and inside an If's branch: the session and subgraph bodies skip such a step alike.
  it.each([false, true])('Resize to sizes [1, 0, 2^40, 4] gives an empty tensor without sizing work by the 2^40 (in a branch: %s)', async (inBranch) => {
    const resize = (b: OnnxGraphBuilder) => b.node('Resize', ['x', 'roi', 'scales', 'sizes'], ['y']).output('y', 'FLOAT');
    const graph = new OnnxGraphBuilder('resize', 13)
      .input('x', 'FLOAT', [1, 1, 2, 2]).input('sizes', 'INT64', [4]).input('go', 'BOOL', [])
      .initializer('roi', 'FLOAT', [0], []).initializer('scales', 'FLOAT', [0], []);
    const model = inBranch
      ? graph.node('If', ['go'], ['y'], { then_branch: { graph: resize(new OnnxGraphBuilder('then', 13)) },
        else_branch: { graph: resize(new OnnxGraphBuilder('else', 13)) } }).output('y', 'FLOAT').encode()
      : resize(graph).encode();
    const session = load(`resize-${inBranch}`, model);
    const [y] = await session.run([
      { name: 'x', datatype: 'FP32', dims: [1, 1, 2, 2], data: Float32Array.of(1, 2, 3, 4) },
      { name: 'sizes', datatype: 'INT64', dims: [4], data: BigInt64Array.of(1n, 0n, 1n << 40n, 4n) },
      { name: 'go', datatype: 'BOOL', dims: [], data: Uint8Array.of(1) },
    ]);
    expect(y.dims).toEqual([1, 0, 2 ** 40, 4]);
    expect(y.data.length).toBe(0);
    session.close();
  });

  // An empty dim from the request: kernels that sample X by coordinate had nothing to read there,
  // and read outside it (Resize to sizes of [1, 1, 3, 4] from [1, 1, 0, 4] gave heap bytes such
  // as 1.6e-43, and cubic crashed the process; GridSample the same). Refused, as ONNX Runtime
  // refuses them; an empty Max or Min reduction is -Inf or +Inf, as ONNX (opset 18) and ONNX
  // Runtime give, not the type's lowest or highest finite value.
  it.each(['nearest', 'linear', 'cubic'])('an empty dim is refused where %s Resize or GridSample would sample it', async (mode) => {
    const resize = load(`empty-resize-${mode}`, new OnnxGraphBuilder('resize', 13)
      .input('x', 'FLOAT', [1, 1, 'h', 4]).input('sizes', 'INT64', [4])
      .initializer('roi', 'FLOAT', [0], []).initializer('scales', 'FLOAT', [0], [])
      .node('Resize', ['x', 'roi', 'scales', 'sizes'], ['y'], { mode }).output('y', 'FLOAT').encode());
    const sample = load(`empty-grid-${mode}`, new OnnxGraphBuilder('grid', 16)
      .input('x', 'FLOAT', [1, 1, 'h', 4]).input('grid', 'FLOAT', [1, 2, 2, 2])
      .node('GridSample', ['x', 'grid'], ['y'], { mode: mode === 'linear' ? 'bilinear' : mode === 'cubic' ? 'bicubic' : 'nearest' })
      .output('y', 'FLOAT').encode());
    const image = (rows: number) => ({ name: 'x', datatype: 'FP32' as const, dims: [1, 1, rows, 4], data: new Float32Array(rows * 4).fill(1) });
    const sizes = { name: 'sizes', datatype: 'INT64' as const, dims: [4], data: BigInt64Array.of(1n, 1n, 3n, 4n) };
    const grid = { name: 'grid', datatype: 'FP32' as const, dims: [1, 2, 2, 2], data: new Float32Array(8) };
    await expect(resize.run([image(0), sizes])).rejects.toThrow(/Resize\): X's dim 2 is 0 but the output's would be 3; an empty dim can only be resized to 0/);
    await expect(sample.run([image(0), grid])).rejects.toThrow(/GridSample\): X \[1, 1, 0, 4\] has an empty image to sample from; H and W must be at least 1/);
    expect((await resize.run([image(2), sizes]))[0].dims).toEqual([1, 1, 3, 4]);
    expect((await sample.run([image(2), grid]))[0].dims).toEqual([1, 1, 2, 2]);
    resize.close();
    sample.close();
  });

  // [2^31, 2^31] FP32 is 2^64 bytes, which wrapped to 0 in the memory cap's check: ConstantOfShape
  // got a 0-byte buffer and wrote past it (SIGSEGV). Tile's and Pad's sizes wrapped to negative
  // dims and were refused in words that did not say why.
  it('sizes from the request whose element or byte counts overflow are refused: ConstantOfShape, Tile, Pad', async () => {
    const session = load('overflow', new OnnxGraphBuilder('overflow', 13)
      .input('shape', 'INT64', [2]).input('x', 'FLOAT', [2]).input('repeats', 'INT64', [1]).input('pads', 'INT64', [2])
      .node('ConstantOfShape', ['shape'], ['filled']).node('Tile', ['x', 'repeats'], ['tiled']).node('Pad', ['x', 'pads'], ['padded'])
      .output('filled', 'FLOAT').output('tiled', 'FLOAT').output('padded', 'FLOAT').encode());
    const run = (shape: bigint, repeats: bigint, pads: bigint) => session.run([
      { name: 'shape', datatype: 'INT64', dims: [2], data: BigInt64Array.of(shape, shape) },
      { name: 'x', datatype: 'FP32', dims: [2], data: Float32Array.of(1, 2) },
      { name: 'repeats', datatype: 'INT64', dims: [1], data: BigInt64Array.of(repeats) },
      { name: 'pads', datatype: 'INT64', dims: [2], data: BigInt64Array.of(pads, pads) },
    ]);
    await expect(run(1n << 31n, 1n, 0n)).rejects.toThrow(/ConstantOfShape\) output has too many elements: shape \[2147483648, 2147483648\]/);
    await expect(run(1n, 1n << 62n, 0n)).rejects.toThrow(/Tile\): repeats 4611686018427387904 of dimension 0 \(2\) give more elements than a tensor can hold/);
    await expect(run(1n, 1n, 1n << 62n)).rejects.toThrow(/Pad\): pads of dimension 0 give more elements than a tensor can hold/);
    const [filled, tiled, padded] = await run(2n, 2n, 1n);
    expect([filled.dims, tiled.dims, padded.dims]).toEqual([[2, 2], [4], [4]]);
    session.close();
  });

  // Found by running every ONNX node test with each input dim in turn set to 0, against ONNX
  // Runtime: edge padding of an empty dim gave the constant 0 (ORT refuses it), a Scan over an
  // empty sequence returned [0] instead of the body's slice shape stacked 0 times, and
  // DynamicQuantizeLinear of all zeros reported a scale of 0 where ORT reports 1, and ArgMax over an
  // empty axis answered index 0 (ORT refuses it).
  it('empty inputs: edge Pad of an empty dim is refused, an empty Scan keeps the slice shape, all-zero DynamicQuantizeLinear has scale 1, ArgMax of nothing is refused, RoiAlign of nothing is 0', async () => {
    const pad = load('empty-pad', new OnnxGraphBuilder('pad', 13)
      .input('x', 'FLOAT', [1, 'n']).initializer('pads', 'INT64', [4], [0, 1, 0, 1])
      .node('Pad', ['x', 'pads'], ['y'], { mode: 'edge' }).output('y', 'FLOAT').encode());
    await expect(pad.run([{ name: 'x', datatype: 'FP32', dims: [1, 0], data: new Float32Array(0) }]))
      .rejects.toThrow(/Pad\): edge padding copies values of dimension 1, which is empty; use mode constant there/);
    expect(Array.from((await pad.run([{ name: 'x', datatype: 'FP32', dims: [1, 1], data: Float32Array.of(3) }]))[0].data as Float32Array)).toEqual([3, 3, 3]);
    pad.close();
    const body = new OnnxGraphBuilder('body', 9).input('sum_in', 'FLOAT', [2]).input('next', 'FLOAT', [2])
      .node('Add', ['sum_in', 'next'], ['sum_out']).node('Identity', ['sum_out'], ['scan_out']).output('sum_out', 'FLOAT').output('scan_out', 'FLOAT');
    const scan = load('empty-scan', new OnnxGraphBuilder('scan', 9)
      .input('initial', 'FLOAT', [2]).input('x', 'FLOAT', ['t', 2])
      .node('Scan', ['initial', 'x'], ['y', 'z'], { num_scan_inputs: 1, body: { graph: body } }).output('y', 'FLOAT').output('z', 'FLOAT').encode());
    const [y, z] = await scan.run([
      { name: 'initial', datatype: 'FP32', dims: [2], data: Float32Array.of(1, 2) },
      { name: 'x', datatype: 'FP32', dims: [0, 2], data: new Float32Array(0) },
    ]);
    expect([Array.from(y.data as Float32Array), z.dims]).toEqual([[1, 2], [0, 2]]);
    scan.close();
    const dql = load('zero-dql', new OnnxGraphBuilder('dql', 11).input('x', 'FLOAT', ['n'])
      .node('DynamicQuantizeLinear', ['x'], ['q', 'scale', 'zero']).output('q', 'UINT8').output('scale', 'FLOAT').output('zero', 'UINT8').encode());
    for (const n of [0, 3]) {
      const [q, scale, zero] = await dql.run([{ name: 'x', datatype: 'FP32', dims: [n], data: new Float32Array(n) }]);
      expect([Array.from(q.data as Uint8Array), Array.from(scale.data as Float32Array), Array.from(zero.data as Uint8Array)]).toEqual([new Array(n).fill(0), [1], [0]]);
    }
    dql.close();
    const arg = load('empty-argmax', new OnnxGraphBuilder('arg', 13).input('x', 'FLOAT', [2, 'n'])
      .node('ArgMax', ['x'], ['y'], { axis: 1 }).output('y', 'INT64').encode());
    await expect(arg.run([{ name: 'x', datatype: 'FP32', dims: [2, 0], data: new Float32Array(0) }]))
      .rejects.toThrow(/ArgMax\): data \[2, 0\] is empty along axis 1, which has no index to give/);
    arg.close();
    // RoiAlign over an empty feature map read the element before it (found by the empty-dims test
    // under ASan); it answers 0, as ONNX Runtime does.
    const roi = load('empty-roialign', new OnnxGraphBuilder('roi', 16).input('x', 'FLOAT', [1, 1, 'h', 'w']).input('rois', 'FLOAT', [1, 4])
      .initializer('batch', 'INT64', [1], [0]).node('RoiAlign', ['x', 'rois', 'batch'], ['y'], { output_height: 2, output_width: 2 }).output('y', 'FLOAT').encode());
    const [pooled] = await roi.run([
      { name: 'x', datatype: 'FP32', dims: [1, 1, 0, 0], data: new Float32Array(0) },
      { name: 'rois', datatype: 'FP32', dims: [1, 4], data: Float32Array.of(0, 0, 1, 1) },
    ]);
    expect(Array.from(pooled.data as Float32Array)).toEqual([0, 0, 0, 0]);
    roi.close();
  });

  it.each(['nearest', 'linear', 'cubic'])('a tf_crop_and_resize box of NaN or 1e30 from the request gives extrapolation_value (%s)', async (mode) => {
    const session = load(`crop-${mode}`, new OnnxGraphBuilder('crop', 13)
      .input('x', 'FLOAT', [1, 1, 3, 3]).input('roi', 'FLOAT', [8]).initializer('scales', 'FLOAT', [4], [1, 1, 2, 2])
      .node('Resize', ['x', 'roi', 'scales'], ['y'], { mode, coordinate_transformation_mode: 'tf_crop_and_resize', extrapolation_value: 7.5 })
      .output('y', 'FLOAT').encode());
    for (const [a, b] of [[NaN, NaN], [1e30, -1e30], [-1e30, 1e30]]) {
      const [y] = await session.run([
        { name: 'x', datatype: 'FP32', dims: [1, 1, 3, 3], data: new Float32Array(9).fill(1) },
        { name: 'roi', datatype: 'FP32', dims: [8], data: Float32Array.of(0, 0, a, a, 1, 1, b, b) },
      ]);
      // Every output but, for the wide boxes, those whose source lands inside the image.
      const values = Array.from(y.data as Float32Array);
      expect(values.length).toBe(36);
      expect(values.every((v) => v === 7.5 || Math.abs(v - 1) < 1e-5), `${a}..${b}: ${values}`).toBe(true);
      if (Number.isNaN(a)) expect(values.every((v) => v === 7.5)).toBe(true);
    }
    session.close();
  });

  it('an empty ReduceMax is -Inf and an empty ReduceMin +Inf', async () => {
    const session = load('empty-reduce', new OnnxGraphBuilder('reduce', 18)
      .input('x', 'FLOAT', [2, 'n']).initializer('axes', 'INT64', [1], [1])
      .node('ReduceMax', ['x', 'axes'], ['max']).node('ReduceMin', ['x', 'axes'], ['min'])
      .output('max', 'FLOAT').output('min', 'FLOAT').encode());
    const [max, min] = await session.run([{ name: 'x', datatype: 'FP32', dims: [2, 0], data: new Float32Array(0) }]);
    expect(Array.from(max.data as Float32Array)).toEqual([-Infinity, -Infinity]);
    expect(Array.from(min.data as Float32Array)).toEqual([Infinity, Infinity]);
    session.close();
  });

  it('DFT refuses a dft_length from the request whose transform would run for minutes or need gigabytes', async () => {
    const session = load('dft', new OnnxGraphBuilder('dft', 17)
      .input('x', 'FLOAT', [1, 4096, 1]).input('length', 'INT64', [])
      .node('DFT', ['x', 'length'], ['y'], { axis: 1 }).output('y', 'FLOAT').encode());
    const run = (length: bigint) => session.run([
      { name: 'x', datatype: 'FP32', dims: [1, 4096, 1], data: new Float32Array(4096).fill(1) },
      { name: 'length', datatype: 'INT64', dims: [], data: BigInt64Array.of(length) },
    ]);
    // 999,983 is prime, and past the lengths the chirp-z form takes (its convolution would be 2^21
    // long): one generic butterfly of that radix, about 10^12 steps.
    await expect(run(999_983n)).rejects.toThrow(/1 transforms of length 999983 are above the cpu engine's 2\^34 FFT steps/);
    // 524,287 = 2^19 - 1 is prime too, but within the chirp-z form's reach (a convolution of 2^20):
    // bin 1 of 4096 ones is the geometric sum (1 - w^4096) / (1 - w), w = exp(-2πi / 524287).
    const [chirped] = await run(524_287n);
    expect(chirped.dims).toEqual([1, 524_287, 2]);
    const theta = (-2 * Math.PI) / 524_287;
    const [wr, wi] = [Math.cos(theta), Math.sin(theta)], [pr, pi] = [Math.cos(4096 * theta), Math.sin(4096 * theta)];
    const [nr, ni, dr, di] = [1 - pr, -pi, 1 - wr, -wi];
    const bin1 = [(nr * dr + ni * di) / (dr * dr + di * di), (ni * dr - nr * di) / (dr * dr + di * di)];
    const got = chirped.data as Float32Array;
    expect(got[0]).toBeCloseTo(4096, 2);
    expect(got[2]).toBeCloseTo(bin1[0], 2);
    expect(got[3]).toBeCloseTo(bin1[1], 2);
    await expect(run(1n << 21n)).rejects.toThrow(/a transform length of 2097152 is above the cpu engine's 1048576/);
    // 10^6 = 2^6 · 5^6 is cheap however long: bin 0 sums the 4096 samples, the rest is zero-padding.
    const [big] = await run(1_000_000n);
    expect(big.dims).toEqual([1, 1_000_000, 2]);
    expect((big.data as Float32Array)[0]).toBeCloseTo(4096, 3);
    const [y] = await run(8n);
    expect(y.dims).toEqual([1, 8, 2]);
    expect((y.data as Float32Array)[0]).toBe(8);  // bin 0 sums the first 8 samples
    session.close();
  });
});

// Dilations, pads and kernel widths are the model's own and may be anything positive: the paths
// that size buffers or loops by them (the depthwise plane copy, the tap window of a conv,
// AveragePool's row sums) must neither wrap nor allocate by them, and still give the right values.
describe('window geometry near the top of int64 (a model\'s attributes)', () => {
  const D = 2 ** 40;
  const x = Float32Array.from({ length: 2 * 16 }, (_, i) => (i % 7) - 3);

  it.each([1, 2])('a 3×3 conv and a depthwise one at dilation 2^40 read only their centre tap (group %i)', async (group) => {
    const channels = 2;
    const w = Float32Array.from({ length: channels * (channels / group) * 9 }, (_, i) => (i % 9 === 4 ? 1 + i / 9 : 100));
    const session = load(`dilated_${group}`, new OnnxGraphBuilder('dilated', 13)
      .input('x', 'FLOAT', [1, channels, 4, 4]).initializer('w', 'FLOAT', [channels, channels / group, 3, 3], Array.from(w))
      .node('Conv', ['x', 'w'], ['y'], { kernel_shape: [3, 3], dilations: [D, D], pads: [D, D, D, D], group })
      .output('y', 'FLOAT').encode());
    const [y] = await session.run([{ name: 'x', datatype: 'FP32', dims: [1, channels, 4, 4], data: x }]);
    expect(y.dims).toEqual([1, channels, 4, 4]);
    // Only the centre weight (index 4 of each 3×3) meets the image; the 100s read padding.
    const centre = (m: number, c: number) => w[(m * (channels / group) + c) * 9 + 4];
    const want = Array.from({ length: channels * 16 }, (_, i) => {
      const m = Math.floor(i / 16), p = i % 16;
      let sum = 0;
      for (let c = 0; c < channels / group; c++) sum += centre(m, c) * x[(group === 1 ? c : m) * 16 + p];
      return sum;
    });
    // Two channels' products summed in FP32 by the engine, in double here.
    Array.from(y.data as Float32Array).forEach((v, i) => expect(v).toBeCloseTo(want[i], 5));
    session.close();
  });

  // More than 3×3 taps: AVX-512 would take the channels-last depthwise path if its bordered plane fit.
  it('a 5×5 depthwise conv over 16 channels at dilation 2^40 reads only its centre tap', async () => {
    const channels = 16;
    const w = Float32Array.from({ length: channels * 25 }, (_, i) => (i % 25 === 12 ? 1 + i / 25 : 100));
    const xs = Float32Array.from({ length: channels * 16 }, (_, i) => (i % 7) - 3);
    const session = load('dilated_5x5', new OnnxGraphBuilder('dilated_5x5', 13)
      .input('x', 'FLOAT', [1, channels, 4, 4]).initializer('w', 'FLOAT', [channels, 1, 5, 5], Array.from(w))
      .node('Conv', ['x', 'w'], ['y'], { kernel_shape: [5, 5], dilations: [D, D], pads: [2 * D, 2 * D, 2 * D, 2 * D], group: channels })
      .output('y', 'FLOAT').encode());
    const [y] = await session.run([{ name: 'x', datatype: 'FP32', dims: [1, channels, 4, 4], data: xs }]);
    expect(y.dims).toEqual([1, channels, 4, 4]);
    Array.from(y.data as Float32Array).forEach((v, i) => expect(v).toBeCloseTo(w[Math.floor(i / 16) * 25 + 12] * xs[i], 5));
    session.close();
  });

  it('MaxPool at stride 1 with a window 2^40 wide takes the maximum of the columns it covers', async () => {
    const session = load('wide_max_pool', new OnnxGraphBuilder('wide_max_pool', 13)
      .input('x', 'FLOAT', [1, 2, 4, 4])
      .node('MaxPool', ['x'], ['y'], { kernel_shape: [1, D], pads: [0, D - 1, 0, 0] })
      .output('y', 'FLOAT').encode());
    const [y] = await session.run([{ name: 'x', datatype: 'FP32', dims: [1, 2, 4, 4], data: x }]);
    expect(y.dims).toEqual([1, 2, 4, 4]);
    const want = Array.from({ length: 32 }, (_, i) => {
      const row = Math.floor(i / 4), j = i % 4;
      return Math.max(...Array.from({ length: j + 1 }, (_, c) => x[row * 4 + c]));
    });
    expect(Array.from(y.data as Float32Array)).toEqual(want);
    session.close();
  });

  it('AveragePool with a window 2^40 wide averages the columns it covers', async () => {
    const session = load('wide_pool', new OnnxGraphBuilder('wide_pool', 13)
      .input('x', 'FLOAT', [1, 2, 4, 4])
      .node('AveragePool', ['x'], ['y'], { kernel_shape: [1, D], pads: [0, D - 1, 0, 0] })
      .output('y', 'FLOAT').encode());
    const [y] = await session.run([{ name: 'x', datatype: 'FP32', dims: [1, 2, 4, 4], data: x }]);
    // Output column j's window ends at input column j: the mean of columns 0..j of its row.
    expect(y.dims).toEqual([1, 2, 4, 4]);
    const want = Array.from({ length: 32 }, (_, i) => {
      const row = Math.floor(i / 4), j = i % 4;
      let sum = 0;
      for (let c = 0; c <= j; c++) sum += x[row * 4 + c];
      return Math.fround(sum / (j + 1));
    });
    const got = Array.from(y.data as Float32Array);
    got.forEach((v, i) => expect(v).toBeCloseTo(want[i], 6));
    session.close();
  });
});
