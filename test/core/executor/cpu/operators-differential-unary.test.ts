/**
 * The unary operator families only ONNX's conformance data checked before — Mish, Celu, Selu,
 * ThresholdedRelu, Sign, Round, Sin, Cos, IsInf, IsNaN — and the vectorised Exp, Log and Softplus
 * against ONNX Runtime at 1 and 2 threads, on seeded random inputs with the edge values each one
 * must get right (NaN, ±Inf, signed zeros, subnormals, FLT_MAX, Round's .5 ties, ThresholdedRelu's
 * alpha itself). Three shapes: 7 elements
 * (shorter than one vector), 123 (whole vectors and a tail) and 73,914 (more than the element-wise
 * kernels' parallel grain of 32,768, so two threads split it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-unary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const agree = ortAgreement('gebe-ops-unary-');

const shapes = [[7], [3, 41], [2, 3, 97, 127]].map((dims) => ({ dims }));
const FLT_MAX = 3.4028234663852886e38;

/** Seeded values in [-scale, scale) with `edges` written over the first and last elements, alternately (so they land in a tail too). */
function input(dims: number[], seed: number, scale: number, edges: number[]): CpuTensor {
  const data = randomValues(dims.reduce((a, b) => a * b, 1), seed, scale);
  for (let k = 0; k < edges.length && k < data.length; k++) data[k % 2 === 0 ? k / 2 : data.length - 1 - (k - 1) / 2] = edges[k];
  return { name: 'x', datatype: 'FP32', dims, data };
}

describe.each([1, 2])('cpu engine vs ONNX Runtime, unary operators (threads=%i)', (threads) => {
  it.each(shapes)('exact ones: Sign, Round (half to even), ThresholdedRelu, IsInf (each direction), IsNaN on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('unary_exact', 18)
      .input('x', 'FLOAT', dims)
      .node('Sign', ['x'], ['sign']).node('Round', ['x'], ['round'])
      .node('ThresholdedRelu', ['x'], ['thresholded']).node('ThresholdedRelu', ['x'], ['thresholded_half'], { alpha: 0.5 })
      .node('IsInf', ['x'], ['inf']).node('IsInf', ['x'], ['pos_inf'], { detect_negative: 0 }).node('IsInf', ['x'], ['neg_inf'], { detect_positive: 0 })
      .node('IsNaN', ['x'], ['nan'])
      .output('sign', 'FLOAT').output('round', 'FLOAT').output('thresholded', 'FLOAT').output('thresholded_half', 'FLOAT')
      .output('inf', 'BOOL').output('pos_inf', 'BOOL').output('neg_inf', 'BOOL').output('nan', 'BOOL')
      .encode();
    // Ties first (ONNX Round is half to even: 0.5 → 0, 1.5 → 2, 2.5 → 2, -2.5 → -2), then the
    // non-finite values, signed zeros, the largest and subnormal magnitudes, 2^23 - 0.5 (the
    // largest tie an FP32 holds) and ThresholdedRelu's alpha (kept only when x > alpha).
    const edges = [0.5, NaN, 1.5, Infinity, 2.5, -Infinity, -2.5, -0, -0.5, 0, 3.5, FLT_MAX, -FLT_MAX, 1e-40, -1e-40, 8388607.5, -8388607.5, 1, -1.5, 0.49999997];
    // Scale 6: Round sees several integers, Sign both signs, ThresholdedRelu both sides of alpha.
    await agree(model, [input(dims, 31 + dims.length, 6, edges)], threads, 0);
  });

  it.each(shapes)('Gelu (opset 20), exact and tanh forms (the tanh one vectorised in chunks) on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('gelu20', 20)
      .input('x', 'FLOAT', dims)
      .node('Gelu', ['x'], ['exact']).node('Gelu', ['x'], ['tanh'], { approximate: 'tanh' })
      .output('exact', 'FLOAT').output('tanh', 'FLOAT')
      .encode();
    // ±10 reaches both saturated ends; NaN propagates, +Inf stays +Inf. Both engines approximate
    // erf and tanh with their own polynomials: up to 5e-5 apart (relative to maxRelativeError's
    // floor) where x·Φ(x) nears 0 on the negative side.
    await agree(model, [input(dims, 41 + dims.length, 10, [NaN, Infinity, 0, -0, 1e-30, 5, -5])], threads, 1e-4);
  });

  it.each(shapes)('HardSigmoid (default and own alpha/beta) and HardSwish, bit for bit (vectorised, masked tails) on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('unary_hard', 18)
      .input('x', 'FLOAT', dims)
      .node('HardSigmoid', ['x'], ['hard_sigmoid']).node('HardSigmoid', ['x'], ['hard_sigmoid_own'], { alpha: 0.25, beta: 0.4 })
      .node('HardSwish', ['x'], ['hard_swish'])
      .output('hard_sigmoid', 'FLOAT').output('hard_sigmoid_own', 'FLOAT').output('hard_swish', 'FLOAT')
      .encode();
    // ±3 are HardSwish's corners (x/6 + 1/2 reaches 0 and 1); ±Inf saturate; -0 keeps its sign
    // through the product. Both compute alpha·x + beta as a product, then a sum (HardSwish: x/6
    // would differ from x·(1/6) in the last bit for about one value in ten).
    await agree(model, [input(dims, 43 + dims.length, 8, [Infinity, -Infinity, 0, -0, 3, -3, 2.5, -2.5, FLT_MAX, -FLT_MAX, 1e-40, -1e-40])], threads, 0);
  });

  it.each(shapes)('LeakyRelu (default and own alpha) and PRelu by a slope row, bit for bit (vectorised, masked tails) on $dims', async ({ dims }) => {
    const last = dims[dims.length - 1];
    const model = new OnnxGraphBuilder('unary_leaky', 18)
      .input('x', 'FLOAT', dims).initializer('slope', 'FLOAT', [last], randomValues(last, 71, 0.5))
      .node('LeakyRelu', ['x'], ['leaky']).node('LeakyRelu', ['x'], ['leaky_own'], { alpha: 0.3 })
      .node('PRelu', ['x', 'slope'], ['prelu'])
      .output('leaky', 'FLOAT').output('leaky_own', 'FLOAT').output('prelu', 'FLOAT')
      .encode();
    // NaN stays NaN (its product); -0 is kept (-0 >= 0); the infinities, FLT_MAX and subnormals.
    await agree(model, [input(dims, 73 + dims.length, 4, [NaN, -0, 0, Infinity, -Infinity, FLT_MAX, -FLT_MAX, 1e-40, -1e-40, -1, 1])], threads, 0);
  });

  it.each(shapes)('Pow by a scalar 2 (the square in RMSNorm and variance) and 3, bit for bit, and by 2.5 on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('pow_scalar', 18)
      .input('x', 'FLOAT', dims).initializer('two', 'FLOAT', [], [2]).initializer('two_half', 'FLOAT', [], [2.5])
      .node('Pow', ['x', 'two'], ['square']).node('Pow', ['x', 'two_half'], ['power'])
      .output('square', 'FLOAT').output('power', 'FLOAT')
      .encode();
    // The square of a float is exact in double, so pow's double result and the float product
    // round alike: FLT_MAX squares to Inf, subnormals to 0, -0 to +0. 2.5 keeps the general path.
    const x = input(dims, 47 + dims.length, 4, [NaN, Infinity, -Infinity, 0, -0, FLT_MAX, -FLT_MAX, 1e-40, -1e-40, 1.8446743e19, 3]);
    await agree(model, [x], threads, 1e-6);
    const square = new OnnxGraphBuilder('pow_square', 18)
      .input('x', 'FLOAT', dims).initializer('two', 'FLOAT', [], [2]).node('Pow', ['x', 'two'], ['square']).output('square', 'FLOAT').encode();
    await agree(square, [x], threads, 0);
    // By 3: (x · x) · x in float, as ONNX Runtime takes it (a double pow rounded once differs in
    // the last place on about a quarter of values), bit for bit.
    const cube = new OnnxGraphBuilder('pow_cube', 18)
      .input('x', 'FLOAT', dims).initializer('three', 'FLOAT', [], [3]).node('Pow', ['x', 'three'], ['cube']).output('cube', 'FLOAT').encode();
    await agree(cube, [x], threads, 0);
  });

  it.each(shapes)('Sqrt, correctly rounded four at a time and in the tail, on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('sqrt', 18).input('x', 'FLOAT', dims).node('Sqrt', ['x'], ['root']).output('root', 'FLOAT').encode();
    // Negatives give NaN; -0 stays -0; subnormals and FLT_MAX have exact roots to round.
    const x = input(dims, 53 + dims.length, 4, [-1, NaN, -0, 0, Infinity, -Infinity, 1e-40, FLT_MAX, 2, 1e-45]);
    for (let i = 0; i < x.data.length; i++) (x.data as Float32Array)[i] = Math.abs((x.data as Float32Array)[i]) * (i % 7 === 3 ? -1 : 1);
    await agree(model, [x], threads, 0);
  });

  it.each(shapes)('Exp within 2 ulp of exp on [-87, 88], the library exp outside it, on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('exp', 18).input('x', 'FLOAT', dims).node('Exp', ['x'], ['e']).output('e', 'FLOAT').encode();
    // The vector code's range ends and what lies past them: subnormal results down to -103.97,
    // 0 below, FLT_MAX up to 88.72, +inf above; NaN and the infinities; -0.
    const edges = [-87, -86.99, -87.01, -100, -103.9, -104, 88, 87.99, 88.01, 88.72, 88.73, NaN, Infinity, -Infinity, -0, 0, 1e-40];
    const x = input(dims, 59 + dims.length, 30, edges);
    await agree(model, [x], threads, 1e-6);
    const file = path.join(dir, `exp-${threads}-${dims.length}.onnx`);
    writeFileSync(file, model);
    const session = CpuSession.load(file, { intraOpThreads: threads });
    try {
      const got = (await session.run([x]))[0].data as Float32Array;
      const want = Float32Array.from(x.data as Float32Array, (v) => Math.exp(v));
      const bits = (f: number) => new Int32Array(Float32Array.of(f).buffer)[0];
      for (let i = 0; i < got.length; i++) {
        const v = (x.data as Float32Array)[i];
        if (Number.isNaN(want[i])) {
          expect(got[i], `exp(${v})`).toBeNaN();
          continue;
        }
        const inside = v >= -87 && v <= 88;
        expect(Math.abs(bits(got[i]) - bits(want[i])), `exp(${v}): ${got[i]} against ${want[i]}`).toBeLessThanOrEqual(inside ? 2 : 1);
      }
    } finally {
      session.close();
    }
  });

  it.each(shapes)('Log within 1 ulp and Softplus within 3 ulp of the float64 values, the library past the vector ranges, on $dims', async ({ dims }) => {
    const model = new OnnxGraphBuilder('log_softplus', 18)
      .input('x', 'FLOAT', dims).input('p', 'FLOAT', dims)
      .node('Log', ['p'], ['log']).node('Softplus', ['x'], ['softplus'])
      .output('log', 'FLOAT').output('softplus', 'FLOAT')
      .encode();
    // Log: positive values over the whole exponent range (e^-87 to e^88), then its edges: zeros,
    // negatives, subnormals, FLT_MIN and FLT_MAX, the infinities, NaN, 1 and its neighbours, √½
    // (where the mantissa's range turns). Softplus: ±40, and past exp's clamp at -87 (subnormal
    // results) down to -110, the infinities, NaN, ±0.
    const p = input(dims, 61 + dims.length, 1, [0, -0, -1, 1e-40, 1.1754944e-38, FLT_MAX, Infinity, -Infinity, NaN, 1, 0.99999994, 1.0000001, 0.70710677, 0.7071068]);
    const pd = p.data as Float32Array;
    for (let i = 14; i < pd.length - 14; i++) pd[i] = Math.exp(87.5 * pd[i] + 0.5);
    const x = input(dims, 67 + dims.length, 40, [-87, -87.01, -95, -103.5, -110, 88, 100, Infinity, -Infinity, NaN, 0, -0, 1e-30, -16.5, 16.5]);
    p.name = 'p';
    await agree(model, [x, p], threads, 2e-6);
    const file = path.join(dir, `log-softplus-${threads}-${dims.length}.onnx`);
    writeFileSync(file, model);
    const session = CpuSession.load(file, { intraOpThreads: threads });
    try {
      const [log, softplus] = (await session.run([x, p])).map((t) => t.data as Float32Array);
      const bits = (f: number) => new Int32Array(Float32Array.of(f).buffer)[0];
      const within = (got: Float32Array, from: Float32Array, f: (v: number) => number, ulps: number, name: string) => {
        for (let i = 0; i < got.length; i++) {
          const want = Math.fround(f(from[i]));
          if (Number.isNaN(want)) expect(got[i], `${name}(${from[i]})`).toBeNaN();
          else expect(Math.abs(bits(got[i]) - bits(want)), `${name}(${from[i]}): ${got[i]} against ${want}`).toBeLessThanOrEqual(ulps);
        }
      };
      within(log, pd, Math.log, 1, 'log');
      within(softplus, x.data as Float32Array, (v) => (v > 0 ? v + Math.log1p(Math.exp(-v)) : Math.log1p(Math.exp(v))), 3, 'softplus');
    } finally {
      session.close();
    }
  });

  it.each(shapes)('smooth ones: Mish, Sin, Cos, Celu, Selu (default and own alpha/gamma) on $dims', async ({ dims }) => {
    const transcendental = new OnnxGraphBuilder('unary_transcendental', 18)
      .input('x', 'FLOAT', dims)
      .node('Mish', ['x'], ['mish']).node('Sin', ['x'], ['sin']).node('Cos', ['x'], ['cos'])
      .output('mish', 'FLOAT').output('sin', 'FLOAT').output('cos', 'FLOAT')
      .encode();
    const exponential = new OnnxGraphBuilder('unary_exponential', 18)
      .input('x', 'FLOAT', dims)
      .node('Celu', ['x'], ['celu']).node('Celu', ['x'], ['celu_alpha'], { alpha: { float: 2 } })
      .node('Selu', ['x'], ['selu']).node('Selu', ['x'], ['selu_own'], { alpha: 1.5, gamma: 0.75 })
      .output('celu', 'FLOAT').output('celu_alpha', 'FLOAT').output('selu', 'FLOAT').output('selu_own', 'FLOAT')
      .encode();
    // NaN and ±Inf propagate (or saturate) the same way in both; ±100 pushes exp() past FP32's
    // range inside Mish, Celu and Selu.
    const x = input(dims, 37 + dims.length, 10, [NaN, Infinity, -Infinity, 0, -0, 100, -100, 1e-30]);
    // ONNX Runtime evaluates these with vectorised approximations (MLAS, Eigen), the engine with
    // libm; measured up to 5e-7 apart (a few FP32 ulps). Where Sin and Cos cross zero the error is
    // absolute, which maxRelativeError's floor (1e-3 of the largest magnitude) bounds the same way.
    await agree(transcendental, [x], threads, 2e-6);
    // Celu and Selu compute alpha·(exp(x) - 1) for x <= 0, which cancels near 0: both engines are
    // one FP32 ulp of alpha·gamma (~2e-7) apart there in absolute terms, up to 2e-5 of the floor.
    await agree(exponential, [x], threads, 1e-4);
  });
});
