/**
 * Opsets 18 to 21 against ONNX Runtime at 1 and 2 threads: the operators whose signature changed
 * (Reduce* axes as an input, Split num_outputs, Pad axes and wrap, Resize axes,
 * keep_aspect_ratio_policy and half_pixel_symmetric, ScatterElements max, AveragePool dilations,
 * GridSample's renamed modes, GroupNormalization per group and per channel, QuantizeLinear's
 * output_dtype, DFT's axis input) and the operators added there or still missing before (Bitwise*,
 * LpNormalization, NonMaxSuppression, Unique, DFT, STFT, MelWeightMatrix). What the engine still refuses is refused at load, named.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { expectFloatsAgree, ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-opset18-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-opset18-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const f32 = (name: string, dims: number[], seed: number, scale = 1): CpuTensor =>
  ({ name, datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed, scale) });

const hann400 = Float32Array.from({ length: 400 }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / 400));

/** Bins [0, bins) of the length-`length` DFT of `n` samples, summed directly in double, interleaved re/im. */
function directDft(sample: (t: number) => [number, number], n: number, length: number, bins: number, inverse: boolean): number[] {
  const out: number[] = [];
  for (let k = 0; k < bins; k++) {
    let re = 0, im = 0;
    for (let t = 0; t < n; t++) {
      const [xr, xi] = sample(t);
      const angle = ((inverse ? 2 : -2) * Math.PI * ((k * t) % length)) / length;
      re += xr * Math.cos(angle) - xi * Math.sin(angle);
      im += xr * Math.sin(angle) + xi * Math.cos(angle);
    }
    out.push(inverse ? re / length : re, inverse ? im / length : im);
  }
  return out;
}

describe.each([1, 2])('opsets 18-21 vs ONNX Runtime (threads=%i)', (threads) => {
  it('opset 18: Reduce* axes input, Split num_outputs, Pad axes, ScatterElements max, Resize axes + not_larger, GroupNormalization, Bitwise*', async () => {
    const model = new OnnxGraphBuilder('op18', 18)
      .input('x', 'FLOAT', [2, 6, 5, 7]).input('a', 'INT32', [8]).input('b', 'INT32', [8])
      .initializer('axes', 'INT64', [2], [1, 3]).initializer('pads', 'INT64', [4], [1, 2, 0, 1]).initializer('pad_axes', 'INT64', [2], [2, 3])
      .initializer('idx', 'INT64', [1, 2, 1, 1], [3, 0]).initializer('upd', 'FLOAT', [1, 2, 1, 1], [5, -5])
      .initializer('sizes', 'INT64', [2], [9, 9]).initializer('gs', 'FLOAT', [3], [1, 0.5, -2]).initializer('gb', 'FLOAT', [3], [0, 0.25, 1])
      .node('ReduceMean', ['x', 'axes'], ['mean']).node('ReduceMax', ['x', 'axes'], ['max'], { keepdims: 0 }).node('ReduceL2', ['x', 'axes'], ['l2'])
      .node('Split', ['x'], ['s0', 's1', 's2'], { axis: 3, num_outputs: 3 })
      .node('Pad', ['x', 'pads', '', 'pad_axes'], ['padded'], { mode: 'reflect' })
      .node('ScatterElements', ['x', 'idx', 'upd'], ['scattered'], { axis: 1, reduction: 'max' })
      .node('Resize', ['x', '', '', 'sizes'], ['resized'], { mode: 'linear', axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' })
      .node('GroupNormalization', ['x', 'gs', 'gb'], ['gn'], { num_groups: 3, epsilon: 1e-3 })
      .node('BitwiseAnd', ['a', 'b'], ['band']).node('BitwiseOr', ['a', 'b'], ['bor']).node('BitwiseXor', ['a', 'b'], ['bxor']).node('BitwiseNot', ['a'], ['bnot'])
      .output('mean', 'FLOAT').output('max', 'FLOAT').output('l2', 'FLOAT').output('s0', 'FLOAT').output('s1', 'FLOAT').output('s2', 'FLOAT')
      .output('padded', 'FLOAT').output('scattered', 'FLOAT').output('resized', 'FLOAT').output('gn', 'FLOAT')
      .output('band', 'INT32').output('bor', 'INT32').output('bxor', 'INT32').output('bnot', 'INT32')
      .encode();
    const ints = (seed: number) => Int32Array.from({ length: 8 }, (_, i) => ((i * 7919 + seed * 104729) % 2001) - 1000);
    await agree(model, [f32('x', [2, 6, 5, 7], 1), { name: 'a', datatype: 'INT32', dims: [8], data: ints(1) }, { name: 'b', datatype: 'INT32', dims: [8], data: ints(2) }], threads);
  });

  it('opset 19: Pad wrap, AveragePool dilations, Resize half_pixel_symmetric and not_smaller', async () => {
    const model = new OnnxGraphBuilder('op19', 19)
      .input('x', 'FLOAT', [1, 2, 6, 7])
      .initializer('pads', 'INT64', [8], [0, 0, 2, 1, 0, 0, 1, 3]).initializer('scales', 'FLOAT', [4], [1, 1, 1.7, 0.6]).initializer('sizes', 'INT64', [2], [4, 11])
      .node('Pad', ['x', 'pads'], ['wrapped'], { mode: 'wrap' })
      .node('AveragePool', ['x'], ['pooled'], { kernel_shape: [2, 3], dilations: [2, 2], pads: [1, 1, 1, 1] })
      .node('Resize', ['x', '', 'scales'], ['sym'], { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' })
      .node('Resize', ['x', '', '', 'sizes'], ['cover'], { mode: 'nearest', axes: [2, 3], keep_aspect_ratio_policy: 'not_smaller' })
      .output('wrapped', 'FLOAT').output('pooled', 'FLOAT').output('sym', 'FLOAT').output('cover', 'FLOAT')
      .encode();
    // half_pixel_symmetric's source coordinates round differently in the last float bit (values
    // agree within 1e-6 absolute; near-zero outputs then read 1.1e-4 relative).
    await agree(model, [f32('x', [1, 2, 6, 7], 2)], threads, 1e-3);
  });

  it('opsets 20 and 21: GridSample linear/cubic, GroupNormalization per channel, QuantizeLinear output_dtype', async () => {
    const gs = new OnnxGraphBuilder('op20', 20)
      .input('x', 'FLOAT', [1, 2, 5, 6]).input('g', 'FLOAT', [1, 3, 4, 2])
      .node('GridSample', ['x', 'g'], ['lin'], { mode: 'linear' }).node('GridSample', ['x', 'g'], ['cub'], { mode: 'cubic', padding_mode: 'border' })
      .output('lin', 'FLOAT').output('cub', 'FLOAT')
      .encode();
    await agree(gs, [f32('x', [1, 2, 5, 6], 3), f32('g', [1, 3, 4, 2], 4, 1.2)], threads);
    const gn = new OnnxGraphBuilder('op21', 21)
      .input('x', 'FLOAT', [2, 6, 3, 4])
      .initializer('scale', 'FLOAT', [6], [1, 2, 0.5, -1, 0.25, 3]).initializer('bias', 'FLOAT', [6], [0, 1, -1, 0.5, 2, -0.5]).initializer('qs', 'FLOAT', [], [0.05])
      .node('GroupNormalization', ['x', 'scale', 'bias'], ['gn'], { num_groups: 2 })
      .node('QuantizeLinear', ['x', 'qs'], ['q'], { output_dtype: 3 })
      .output('gn', 'FLOAT').output('q', 'INT8')
      .encode();
    await agree(gn, [f32('x', [2, 6, 3, 4], 5, 3)], threads);
  });

  // ONNX Runtime sums in FP32, the engine in double: near-zero bins differ by FP32 rounding of the
  // large ones (about 1e-6 of the largest magnitude).
  it('DFT (opset 17 axis attribute, opset 20 axis input; inverse, onesided, dft_length), windowed STFT, MelWeightMatrix', async () => {
    const rtol = 3e-3;
    const dft17 = new OnnxGraphBuilder('dft17', 17)
      .input('x', 'FLOAT', [2, 10, 1]).input('c', 'FLOAT', [3, 6, 2]).initializer('len', 'INT64', [], [12])
      .node('DFT', ['x'], ['full']).node('DFT', ['x', 'len'], ['padded'], { onesided: 1 })
      .node('DFT', ['c'], ['inv'], { inverse: 1 }).node('DFT', ['c'], ['first'], { axis: 0 })
      .output('full', 'FLOAT').output('padded', 'FLOAT').output('inv', 'FLOAT').output('first', 'FLOAT')
      .encode();
    await agree(dft17, [f32('x', [2, 10, 1], 8), f32('c', [3, 6, 2], 9)], threads, rtol);
    const dft20 = new OnnxGraphBuilder('dft20', 20)
      .input('x', 'FLOAT', [2, 5, 7, 1]).initializer('axis', 'INT64', [], [2]).initializer('len', 'INT64', [], [6])
      .node('DFT', ['x', 'len', 'axis'], ['y'])
      .output('y', 'FLOAT')
      .encode();
    await agree(dft20, [f32('x', [2, 5, 7, 1], 10)], threads, rtol);
    const window = Float32Array.from({ length: 16 }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / 16));
    const stft = new OnnxGraphBuilder('stft', 17)
      .input('signal', 'FLOAT', [2, 70, 1]).initializer('step', 'INT64', [], [6]).initializer('window', 'FLOAT', [16], window)
      .node('STFT', ['signal', 'step', 'window'], ['spec']).output('spec', 'FLOAT')
      .encode();
    await agree(stft, [f32('signal', [2, 70, 1], 11)], threads, rtol);
    const mel = new OnnxGraphBuilder('mel', 17)
      .input('bins', 'INT64', []).initializer('dft', 'INT64', [], [64]).initializer('rate', 'INT64', [], [16000])
      .initializer('lo', 'FLOAT', [], [60]).initializer('hi', 'FLOAT', [], [7600])
      .node('MelWeightMatrix', ['bins', 'dft', 'rate', 'lo', 'hi'], ['w']).output('w', 'FLOAT')
      .encode();
    await agree(mel, [{ name: 'bins', datatype: 'INT64', dims: [], data: BigInt64Array.from([10n]) }], threads);
  });

  // The transforms are FFTs (KISS FFT): these lengths take each of its butterflies (radix 4, 2, 3,
  // 5 and the generic one of 7, 11 and 97), and Whisper's 400-sample Hann-windowed frames at hop
  // 160 (720 = 2^4 · 3^2 · 5 samples: three frames). The reference is the direct sum in double precision, written out here, not ONNX Runtime:
  // at length 210 ONNX Runtime's bins were up to 3.7e-4 off that sum, the engine's 5.6e-7 (the FP32
  // rounding of its output).
  it('DFT and STFT at lengths of every FFT radix (512, 400, 210, 385 complex inverse, 77 complex frames, 97 prime) match the direct sum', async () => {
    const file = path.join(dir, `dft_radix${threads}.onnx`);
    writeFileSync(file, new OnnxGraphBuilder('dft_radix', 17)
      .input('x', 'FLOAT', [1, 720, 1]).input('c', 'FLOAT', [1, 385, 2])
      .initializer('l512', 'INT64', [], [512]).initializer('l210', 'INT64', [], [210]).initializer('l97', 'INT64', [], [97])
      .initializer('step', 'INT64', [], [160]).initializer('window', 'FLOAT', [400], hann400)
      .initializer('step50', 'INT64', [], [50]).initializer('l77', 'INT64', [], [77])
      .node('DFT', ['x', 'l512'], ['full']).node('DFT', ['x', 'l210'], ['cut'], { onesided: 1 }).node('DFT', ['x', 'l97'], ['prime'])
      .node('DFT', ['c'], ['inv'], { inverse: 1 }).node('STFT', ['x', 'step', 'window'], ['spec'])
      .node('STFT', ['c', 'step50', '', 'l77'], ['cspec'], { onesided: 0 })
      .output('full', 'FLOAT').output('cut', 'FLOAT').output('prime', 'FLOAT').output('inv', 'FLOAT').output('spec', 'FLOAT')
      .output('cspec', 'FLOAT')
      .encode());
    const x = f32('x', [1, 720, 1], 21), c = f32('c', [1, 385, 2], 22);
    const session = CpuSession.load(file, { intraOpThreads: threads });
    try {
      const outputs = Object.fromEntries((await session.run([x, c])).map((t) => [t.name, t.data as Float32Array]));
      const real = x.data as Float32Array;
      const check = (name: string, want: number[]) => expectFloatsAgree(outputs[name], want, 1e-5, name);
      check('full', directDft((t) => [real[t], 0], 512, 512, 512, false));
      check('cut', directDft((t) => [real[t], 0], 210, 210, 106, false));
      check('prime', directDft((t) => [real[t], 0], 97, 97, 97, false));
      const pairs = c.data as Float32Array;
      check('inv', directDft((t) => [pairs[2 * t], pairs[2 * t + 1]], 385, 385, 385, true));
      const frames = [0, 1, 2].flatMap((f) => directDft((t) => [real[f * 160 + t] * hann400[t], 0], 400, 400, 201, false));
      check('spec', frames);
      // A complex signal in unwindowed two-sided frames of 77 = 7 · 11 at step 50: seven frames.
      const cframes = [0, 1, 2, 3, 4, 5, 6].flatMap((f) => directDft((t) => [pairs[2 * (f * 50 + t)], pairs[2 * (f * 50 + t) + 1]], 77, 77, 77, false));
      check('cspec', cframes);
    } finally {
      session.close();
    }
  });

  // Lengths with a large prime factor go through Bluestein's chirp-z form (spectral.cc's
  // UsesChirp): 1009 and 2018 = 2 · 1009 over a zero-padded real signal, 401 over a complex one,
  // inverse; 97 above stays with KISS FFT's generic butterfly. Against the direct sum as above.
  it('DFT at lengths with a large prime factor (1009, 2018, 401 complex inverse) matches the direct sum', async () => {
    const file = path.join(dir, `dft_chirp${threads}.onnx`);
    writeFileSync(file, new OnnxGraphBuilder('dft_chirp', 17)
      .input('x', 'FLOAT', [1, 720, 1]).input('c', 'FLOAT', [1, 385, 2])
      .initializer('l1009', 'INT64', [], [1009]).initializer('l2018', 'INT64', [], [2018]).initializer('l401', 'INT64', [], [401])
      .node('DFT', ['x', 'l1009'], ['p1009']).node('DFT', ['x', 'l2018'], ['p2018'], { onesided: 1 })
      .node('DFT', ['c', 'l401'], ['inv401'], { inverse: 1 })
      .output('p1009', 'FLOAT').output('p2018', 'FLOAT').output('inv401', 'FLOAT')
      .encode());
    const x = f32('x', [1, 720, 1], 23), c = f32('c', [1, 385, 2], 24);
    const session = CpuSession.load(file, { intraOpThreads: threads });
    try {
      const outputs = Object.fromEntries((await session.run([x, c])).map((t) => [t.name, t.data as Float32Array]));
      const real = x.data as Float32Array, pairs = c.data as Float32Array;
      const check = (name: string, want: number[]) => expectFloatsAgree(outputs[name], want, 1e-5, name);
      check('p1009', directDft((t) => [real[t], 0], 720, 1009, 1009, false));
      check('p2018', directDft((t) => [real[t], 0], 720, 2018, 1010, false));
      check('inv401', directDft((t) => [pairs[2 * t], pairs[2 * t + 1]], 385, 401, 401, true));
    } finally {
      session.close();
    }
  });

  it('LpNormalization (p=1, p=2) and NonMaxSuppression over two batches and classes', async () => {
    const boxes = Float32Array.from({ length: 2 * 12 * 4 }, (_, i) => {
      const r = randomValues(1, 100 + i)[0];
      return i % 4 < 2 ? r * 4 : r * 4 + (i % 2 ? 5 : 3);
    });
    const model = new OnnxGraphBuilder('nms', 17)
      .input('x', 'FLOAT', [3, 4, 5]).input('boxes', 'FLOAT', [2, 12, 4]).input('scores', 'FLOAT', [2, 2, 12])
      .initializer('max_out', 'INT64', [1], [4]).initializer('iou', 'FLOAT', [1], [0.3]).initializer('score', 'FLOAT', [1], [-0.5])
      .node('LpNormalization', ['x'], ['l1'], { axis: 1, p: 1 }).node('LpNormalization', ['x'], ['l2n'], { axis: -1, p: 2 })
      .node('NonMaxSuppression', ['boxes', 'scores', 'max_out', 'iou', 'score'], ['sel'])
      .node('NonMaxSuppression', ['boxes', 'scores', 'max_out', 'iou'], ['sel_center'], { center_point_box: 1 })
      .output('l1', 'FLOAT').output('l2n', 'FLOAT').output('sel', 'INT64').output('sel_center', 'INT64')
      .encode();
    await agree(model, [f32('x', [3, 4, 5], 6), { name: 'boxes', datatype: 'FP32', dims: [2, 12, 4], data: boxes }, f32('scores', [2, 2, 12], 7)], threads);
  });

  it('Unique: flattened sorted and unsorted, along an axis, on INT64 and FP32', async () => {
    const model = new OnnxGraphBuilder('unique', 17)
      .input('v', 'INT64', [12]).input('m', 'FLOAT', [4, 3])
      .node('Unique', ['v'], ['u', 'ui', 'uinv', 'uc'])
      .node('Unique', ['v'], ['n', 'ni', 'ninv', 'nc'], { sorted: 0 })
      .node('Unique', ['m'], ['r', 'ri', 'rinv', 'rc'], { axis: 0 })
      .node('Unique', ['m'], ['c'], { axis: -1, sorted: 1 })
      .output('u', 'INT64').output('ui', 'INT64').output('uinv', 'INT64').output('uc', 'INT64')
      .output('n', 'INT64').output('ni', 'INT64').output('ninv', 'INT64').output('nc', 'INT64')
      .output('r', 'FLOAT').output('ri', 'INT64').output('rinv', 'INT64').output('rc', 'INT64').output('c', 'FLOAT')
      .encode();
    await agree(model, [
      { name: 'v', datatype: 'INT64', dims: [12], data: BigInt64Array.from([5n, -2n, 5n, 0n, 9n, -2n, 5n, 7n, 0n, 3n, 9n, 1n]) },
      { name: 'm', datatype: 'FP32', dims: [4, 3], data: Float32Array.from([1, 2, 1, 0, 5, 0, 1, 2, 1, 1, 2, 0]) },
    ], threads);
  });
});

describe('opsets the engine does not implement, at load', () => {
  const load = (model: Uint8Array, name: string) => {
    const file = path.join(dir, `${name}.onnx`);
    writeFileSync(file, model);
    return CpuSession.load(file);
  };
  it('refuses opset 26 and Resize antialias, naming both', () => {
    const model = new OnnxGraphBuilder('op26', 26)
      .input('x', 'FLOAT', [1, 1, 4, 4]).initializer('scales', 'FLOAT', [4], [1, 1, 0.5, 0.5])
      .node('Resize', ['x', '', 'scales'], ['y'], { mode: 'linear', antialias: 1 }, 'aa')
      .output('y', 'FLOAT')
      .encode();
    expect(() => load(model, 'op26')).toThrow(/opset 26 \(the cpu engine implements opsets 7 to 25; export with opset_version<=25\)/);
    expect(() => load(model, 'op26')).toThrow(/Resize: antialias=1 is not supported \(aa\)/);
  });
});
