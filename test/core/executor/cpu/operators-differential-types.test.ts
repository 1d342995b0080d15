/**
 * The element types no ONNX Runtime test covered before — BF16 as a graph input and output,
 * UINT16, INT16 and UINT64 — against ONNX Runtime at 1 and 2 threads, in the graphs that carry
 * them: a 16-bit image (UINT16), PCM audio (INT16), 64-bit ids and hashes (UINT64) and a BF16
 * model's edges. Values span each type's whole range, wrap-around included; everything is exact.
 *
 * What ONNX Runtime's CPU provider lacks decides the operators: for UINT16 and INT16 no Max, Min,
 * Clip (its function body needs a 16-bit Where, which it has not either), Where, Pad or
 * reductions, so ONNX Runtime runs a twin whose Clip is an INT32 Clip between Casts (exact); for
 * UINT64 no Neg, Where or reductions; for BF16 no arithmetic at all, and onnxruntime-node cannot
 * feed or return BF16 tensors, so ONNX Runtime runs an FP32-edged twin of the BF16 model
 * (ort-agreement.ts) whose Casts to BF16 do its rounding.
 */
import { describe, it } from 'vitest';
import type { CpuTensor } from '../../../helpers/cpu-session.js';
import { fromBFloat16, truncateToBFloat16 } from '../../../helpers/half.js';
import { OnnxGraphBuilder, randomValues, seededRandom } from '../../../helpers/onnx-builder.js';
import { ortAgreement } from '../../../helpers/ort-agreement.js';

const agree = ortAgreement('gebe-ops-types-');

const FLT_MAX = 3.4028234663852886e38;

/**
 * Adds Clip(x, lo, hi) → y to `b`: the operator itself, or (for ONNX Runtime's twin, which has no
 * 16-bit Clip) the same through INT32, which cannot change the result.
 */
function clip(b: OnnxGraphBuilder, x: string, y: string, type: 'UINT16' | 'INT16', twin: boolean): OnnxGraphBuilder {
  if (!twin) return b.node('Clip', [x, 'lo', 'hi'], [y]);
  const to = type === 'UINT16' ? 4 : 5;
  return b.node('Cast', [x], [`${x}_32`], { to: 6 }).node('Cast', ['lo'], ['lo_32'], { to: 6 }).node('Cast', ['hi'], ['hi_32'], { to: 6 })
    .node('Clip', [`${x}_32`, 'lo_32', 'hi_32'], [`${y}_32`]).node('Cast', [`${y}_32`], [y], { to });
}

const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1);

/**
 * Each integer graph runs on a size no vector width divides and on one past the element-wise
 * kernels' parallel grain (32,768 values), so that two threads split it.
 */
const sizes = (...shapes: number[][]) => shapes.map((dims) => ({ dims }));

/** `n` seeded integers in [lo, hi], with `edges` written over the first ones. */
function integers(n: number, seed: number, lo: number, hi: number, edges: number[]): number[] {
  const rand = seededRandom(seed);
  const values = Array.from({ length: n }, () => lo + Math.floor(rand() * (hi - lo + 1)));
  edges.forEach((v, i) => { values[i] = v; });
  return values;
}

describe.each([1, 2])('cpu engine vs ONNX Runtime, element types (threads=%i)', (threads) => {
  it.each(sizes([1, 3, 17, 19], [1, 3, 113, 127]))('UINT16: a 16-bit image normalised, offset, scaled, masked, clipped, reordered to BGR and NHWC on $dims', async ({ dims }) => {
    const build = (twin: boolean) => {
      const b = new OnnxGraphBuilder('uint16', 18)
        .input('img', 'UINT16', dims).input('off', 'UINT16', [3, 1, 1])
        .initializer('scale', 'FLOAT', [], [1 / 65535]).initializer('half', 'FLOAT', [], [0.5])
        .initializer('three', 'UINT16', [], [3]).initializer('seven', 'UINT16', [], [7]).initializer('thousand', 'UINT16', [], [1000])
        .initializer('lo', 'UINT16', [], [1000]).initializer('hi', 'UINT16', [], [60000]).initializer('mask', 'UINT16', [], [0x0ff0])
        .initializer('bgr', 'INT64', [3], [2, 1, 0])
        .node('Cast', ['img'], ['f'], { to: 1 }).node('Mul', ['f', 'scale'], ['normalised'])
        .node('Mul', ['f', 'half'], ['halved_f']).node('Cast', ['halved_f'], ['halved'], { to: 4 })  // FP32 → UINT16 truncates x.5
        .node('Add', ['img', 'off'], ['sum']).node('Sub', ['img', 'off'], ['difference'])  // both wrap modulo 2^16
        .node('Mul', ['img', 'three'], ['tripled']).node('Div', ['img', 'seven'], ['quotient']).node('Mod', ['img', 'thousand'], ['remainder'])
        .node('Sign', ['img'], ['sign']).node('Abs', ['img'], ['abs']).node('BitwiseAnd', ['img', 'mask'], ['masked'])
        .node('Gather', ['img', 'bgr'], ['reordered'], { axis: 1 }).node('Transpose', ['img'], ['nhwc'], { perm: [0, 2, 3, 1] })
        .node('Concat', ['img', 'sum'], ['joined'], { axis: 1 });
      return clip(b, 'img', 'clipped', 'UINT16', twin)
        .output('normalised', 'FLOAT').output('halved', 'UINT16').output('sum', 'UINT16').output('difference', 'UINT16').output('tripled', 'UINT16')
        .output('quotient', 'UINT16').output('remainder', 'UINT16').output('sign', 'UINT16').output('abs', 'UINT16').output('clipped', 'UINT16')
        .output('masked', 'UINT16').output('reordered', 'UINT16').output('nhwc', 'UINT16').output('joined', 'UINT16')
        .encode();
    };
    const img = Uint16Array.from(integers(count(dims), 71, 0, 65535, [0, 65535, 65534, 1, 32768, 999, 1000, 60000, 60001]));
    const inputs: CpuTensor[] = [
      { name: 'img', datatype: 'UINT16', dims, data: img },
      { name: 'off', datatype: 'UINT16', dims: [3, 1, 1], data: Uint16Array.of(1, 1000, 65535) },
    ];
    await agree(build(false), inputs, threads, 0, { model: build(true), inputs });
  });

  it.each(sizes([2, 1001], [2, 20011]))('INT16: stereo PCM scaled to [-1, 1), gained, divided, rectified, clipped, decimated and interleaved on $dims', async ({ dims }) => {
    // Opset 14: Add, Sub, Mul and Div take 16-bit integers from there on.
    const build = (twin: boolean) => {
      const b = new OnnxGraphBuilder('int16', 14)
        .input('pcm', 'INT16', dims).input('gain', 'INT16', [2, 1])
        .initializer('scale', 'FLOAT', [], [1 / 32768]).initializer('fraction', 'FLOAT', [], [0.3]).initializer('three', 'INT16', [], [3]).initializer('minus_seven', 'INT16', [], [-7])
        .initializer('hundred', 'INT16', [], [100]).initializer('lo', 'INT16', [], [-1000]).initializer('hi', 'INT16', [], [1000])
        .initializer('starts', 'INT64', [1], [1]).initializer('ends', 'INT64', [1], [dims[1]]).initializer('axes', 'INT64', [1], [1]).initializer('steps', 'INT64', [1], [2])
        .node('Cast', ['pcm'], ['f'], { to: 1 }).node('Mul', ['f', 'scale'], ['audio'])
        .node('Mul', ['f', 'fraction'], ['attenuated']).node('Cast', ['attenuated'], ['truncated'], { to: 5 })  // FP32 → INT16 truncates towards 0
        .node('Add', ['pcm', 'gain'], ['sum']).node('Sub', ['pcm', 'gain'], ['difference']).node('Mul', ['pcm', 'three'], ['tripled'])  // all wrap modulo 2^16
        .node('Div', ['pcm', 'minus_seven'], ['quotient'])  // truncates towards 0
        .node('Mod', ['pcm', 'hundred'], ['mod']).node('Mod', ['pcm', 'minus_seven'], ['fmod'], { fmod: 1 })
        .node('Neg', ['pcm'], ['negated']).node('Abs', ['pcm'], ['rectified']).node('Sign', ['pcm'], ['sign'])  // Neg and Abs keep -32768
        .node('Slice', ['pcm', 'starts', 'ends', 'axes', 'steps'], ['decimated']).node('Transpose', ['pcm'], ['interleaved'], { perm: [1, 0] })
        .node('Cast', ['pcm'], ['widened'], { to: 6 });
      return clip(b, 'pcm', 'clipped', 'INT16', twin)
        .output('audio', 'FLOAT').output('truncated', 'INT16').output('sum', 'INT16').output('difference', 'INT16').output('tripled', 'INT16')
        .output('quotient', 'INT16').output('mod', 'INT16').output('fmod', 'INT16').output('negated', 'INT16').output('rectified', 'INT16')
        .output('sign', 'INT16').output('clipped', 'INT16').output('decimated', 'INT16').output('interleaved', 'INT16').output('widened', 'INT32')
        .encode();
    };
    const pcm = Int16Array.from(integers(count(dims), 72, -32768, 32767, [-32768, 32767, -1, 0, 1, -32767, -100, 100, -7, 7, -1000, 1000, -1001, 1001]));
    const inputs: CpuTensor[] = [
      { name: 'pcm', datatype: 'INT16', dims, data: pcm },
      { name: 'gain', datatype: 'INT16', dims: [2, 1], data: Int16Array.of(-32768, 32767) },
    ];
    await agree(build(false), inputs, threads, 0, { model: build(true), inputs });
  });

  it.each(sizes([997], [40009]))('UINT64: ids and hashes across the whole range, wrapped, divided, compared, shifted, masked, clipped and cast on $dims', async ({ dims }) => {
    const n = dims[0];
    const model = new OnnxGraphBuilder('uint64', 18)
      .input('ids', 'UINT64', [n]).input('small', 'UINT64', [n]).input('shift', 'UINT64', [n])
      .initializer('mask', 'UINT64', [], [0xffffffffn]).initializer('top', 'UINT64', [], [0xffffff0000000000n]).initializer('pick', 'INT64', [4], [0, n - 1, 5, 1])
      .initializer('lo', 'UINT64', [], [1n << 32n]).initializer('hi', 'UINT64', [], [(1n << 63n) + 12345n])
      .node('Add', ['ids', 'small'], ['sum']).node('Sub', ['small', 'ids'], ['difference']).node('Mul', ['ids', 'small'], ['product'])  // wrap modulo 2^64
      .node('Div', ['ids', 'small'], ['quotient']).node('Mod', ['ids', 'small'], ['remainder'])
      .node('Max', ['ids', 'small'], ['max']).node('Min', ['ids', 'small'], ['min'])
      .node('BitShift', ['ids', 'shift'], ['left'], { direction: 'LEFT' }).node('BitShift', ['ids', 'shift'], ['right'], { direction: 'RIGHT' })
      .node('BitwiseAnd', ['ids', 'mask'], ['low_half']).node('Clip', ['ids', 'lo', 'hi'], ['clipped']).node('Sign', ['ids'], ['sign'])
      .node('Cast', ['ids'], ['as_float'], { to: 1 }).node('Cast', ['ids'], ['as_int64'], { to: 7 })
      // The top 24 bits of each id are exact in FP32 and below 2^64, so FP32 → UINT64 is defined
      // for them, half of them at 2^63 or above.
      .node('BitwiseAnd', ['ids', 'top'], ['top_bits']).node('Cast', ['top_bits'], ['top_float'], { to: 1 }).node('Cast', ['top_float'], ['from_float'], { to: 13 })
      .node('Cast', ['as_int64'], ['round_trip'], { to: 13 })
      .node('Gather', ['ids', 'pick'], ['picked']).node('Concat', ['ids', 'small'], ['joined'], { axis: 0 })
      .output('sum', 'UINT64').output('difference', 'UINT64').output('product', 'UINT64').output('quotient', 'UINT64').output('remainder', 'UINT64')
      .output('max', 'UINT64').output('min', 'UINT64').output('left', 'UINT64').output('right', 'UINT64').output('low_half', 'UINT64')
      .output('clipped', 'UINT64').output('sign', 'UINT64').output('as_float', 'FLOAT').output('as_int64', 'INT64').output('round_trip', 'UINT64')
      .output('from_float', 'UINT64').output('picked', 'UINT64').output('joined', 'UINT64')
      .encode();
    // Ids from 64 random bits (half of them at 2^63 or above, where a signed reading goes wrong),
    // with 0, 2^64 - 1, 2^63 and its neighbours first.
    const rand = seededRandom(73);
    const word = () => BigInt(Math.floor(rand() * 2 ** 32));
    const ids = BigUint64Array.from({ length: n }, () => (word() << 32n) | word());
    [0n, (1n << 64n) - 1n, 1n << 63n, (1n << 63n) - 1n, (1n << 63n) + 1n, 1n, 1n << 32n].forEach((v, i) => { ids[i] = v; });
    const small = BigUint64Array.from(integers(n, 74, 1, 1_000_000, [1, 2, 3, 1_000_000]), BigInt);
    const shift = BigUint64Array.from(integers(n, 75, 0, 63, [0, 63, 1, 32]), BigInt);
    await agree(model, [
      { name: 'ids', datatype: 'UINT64', dims: [n], data: ids },
      { name: 'small', datatype: 'UINT64', dims: [n], data: small },
      { name: 'shift', datatype: 'UINT64', dims: [n], data: shift },
    ], threads, 0);
  });

  it.each([[7], [4, 333]].map((dims) => ({ dims })))('BF16 graph input and output: weights, Mul, Identity, Transpose, Concat, Casts from and to FP32 on $dims', async ({ dims }) => {
    const n = count(dims), cols = dims.at(-1)!;
    const perm = dims.length === 2 ? [1, 0] : [0];
    // The engine's model: BF16 in and out (it computes in FP32 inside and rounds at the outputs).
    const model = new OnnxGraphBuilder('bf16', 13)
      .input('x', 'BFLOAT16', dims).input('f', 'FLOAT', dims)
      .initializer('w', 'BFLOAT16', [cols], truncateToBFloat16(randomValues(cols, 81, 4)))
      .node('Mul', ['x', 'w'], ['product']).node('Identity', ['x'], ['same']).node('Transpose', ['x'], ['transposed'], { perm })
      .node('Concat', ['x', 'x'], ['joined'], { axis: 0 }).node('Cast', ['x'], ['widened'], { to: 1 }).node('Cast', ['f'], ['narrowed'], { to: 16 })
      .output('product', 'BFLOAT16').output('same', 'BFLOAT16').output('transposed', 'BFLOAT16').output('joined', 'BFLOAT16')
      .output('widened', 'FLOAT').output('narrowed', 'BFLOAT16')
      .encode();
    // ONNX Runtime's twin: FP32 edges, BF16 data movement (Identity, Transpose, Concat run on BF16
    // there), and its own Casts to BF16 for the rounding of the product and of f. The product of
    // two BF16 values is exact in FP32, so both round the same number once.
    const wTwin = fromBFloat16(truncateToBFloat16(randomValues(cols, 81, 4)));
    const twin = new OnnxGraphBuilder('bf16_twin', 13)
      .input('x', 'FLOAT', dims).input('f', 'FLOAT', dims)
      .initializer('w', 'FLOAT', [cols], wTwin)
      .node('Cast', ['x'], ['xb'], { to: 16 })
      .node('Mul', ['x', 'w'], ['p32']).node('Cast', ['p32'], ['pb'], { to: 16 }).node('Cast', ['pb'], ['product'], { to: 1 })
      .node('Identity', ['xb'], ['sb']).node('Cast', ['sb'], ['same'], { to: 1 })
      .node('Transpose', ['xb'], ['tb'], { perm }).node('Cast', ['tb'], ['transposed'], { to: 1 })
      .node('Concat', ['xb', 'xb'], ['jb'], { axis: 0 }).node('Cast', ['jb'], ['joined'], { to: 1 })
      .node('Cast', ['xb'], ['widened'], { to: 1 })
      .node('Cast', ['f'], ['fb'], { to: 16 }).node('Cast', ['fb'], ['narrowed'], { to: 1 })
      .output('product', 'FLOAT').output('same', 'FLOAT').output('transposed', 'FLOAT').output('joined', 'FLOAT')
      .output('widened', 'FLOAT').output('narrowed', 'FLOAT')
      .encode();
    // x: BF16 values (NaN and ±Inf among them); f: FP32 values whose rounding to BF16 is the
    // question — ties between two BF16 values (1 + 2^-8 rounds to even 1, 1 + 3·2^-8 up),
    // FLT_MAX (rounds up to +Inf), NaN, ±Inf, -0 and a subnormal, then random ones.
    const xs = randomValues(n, 82, 100);
    [NaN, Infinity, -Infinity, -0, 1e-39].forEach((v, i) => { if (i < n) xs[n - 1 - i] = v; });
    const xBits = truncateToBFloat16(xs);
    const f = randomValues(n, 83, 1000);
    [1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), FLT_MAX, NaN, -Infinity, -0, 1e-40].forEach((v, i) => { if (i < n) f[i] = v; });
    await agree(model, [{ name: 'x', datatype: 'BF16', dims, data: xBits }, { name: 'f', datatype: 'FP32', dims, data: f }], threads, 0, {
      model: twin,
      inputs: [{ name: 'x', datatype: 'FP32', dims, data: fromBFloat16(xBits) }, { name: 'f', datatype: 'FP32', dims, data: f }],
    });
  });
});
