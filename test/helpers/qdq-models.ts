import { OnnxGraphBuilder, randomValues } from './onnx-builder.js';
import { resnet18, resnet18Layers, resnetAttributes, type ResNetOptions } from './onnx-models.js';

export interface QdqCnnOptions {
  /** Activation element type: 'INT8' (the bench's, zero point 0) or 'UINT8' (quantize_static's default, zero point 128). */
  activation?: 'INT8' | 'UINT8';
  /** Spatial size of the square input (default 56). */
  size?: number;
  /** Also quantise the bias as quantize_static does (INT32 behind a DequantizeLinear with scale x_scale·w_scale). */
  int32Bias?: boolean;
  /**
   * Quantise each Relu's output over [0, max] (zero point = the type's minimum), as quantize_static
   * calibrates it: the Relu is then redundant and ONNX Runtime fuses DQ → Conv → Relu → Q into QLinearConv.
   */
  reluRange?: boolean;
  /** Channels of the input and each of the four convs (default [3, 32, 64, 64, 64]). */
  channels?: number[];
}

/**
 * An int8 CNN in the QDQ form `onnxruntime.quantization.quantize_static` writes (8-bit activations
 * and per-channel INT8 weights, each behind a DequantizeLinear; FP32 bias unless int32Bias): four
 * 3×3 convs + Relu, 3→32→64→64→64 channels (or `channels`), with a MaxPool after the second. ORT and gebe fuse the
 * DQ → Conv → Relu → Q chains into integer convolutions.
 */
export function qdqCnn(opts: QdqCnnOptions = {}): Uint8Array {
  const act = opts.activation ?? 'INT8';
  const size = opts.size ?? 56;
  const b = new OnnxGraphBuilder('qdq_cnn', 13).input('input', 'FLOAT', [1, 3, size, size]);
  b.initializer('act_scale', 'FLOAT', [], [0.05]).initializer('act_zp', act, [], [act === 'INT8' ? 0 : 128]);
  if (opts.reluRange) b.initializer('relu_scale', 'FLOAT', [], [0.025]).initializer('relu_zp', act, [], [act === 'INT8' ? -128 : 0]);
  const qdq = (x: string, name: string, relu = false) => {
    const [s, z] = relu && opts.reluRange ? ['relu_scale', 'relu_zp'] : ['act_scale', 'act_zp'];
    b.node('QuantizeLinear', [x, s, z], [`${name}_q`]).node('DequantizeLinear', [`${name}_q`, s, z], [`${name}_dq`]);
    return `${name}_dq`;
  };
  let x = qdq('input', 'in');
  const channels = opts.channels ?? [3, 32, 64, 64, 64];
  for (let i = 1; i < channels.length; i++) {
    const [c, m] = [channels[i - 1], channels[i]];
    const w = Array.from(randomValues(m * c * 9, 20 + i, 127), (v) => Math.round(v));
    const wScale = Array.from({ length: m }, () => 0.2 / (c * 9) ** 0.5 / 127 * 4);
    b.initializer(`w${i}`, 'INT8', [m, c, 3, 3], w).initializer(`w${i}_scale`, 'FLOAT', [m], wScale)
      .initializer(`w${i}_zp`, 'INT8', [m], new Array(m).fill(0))
      .node('DequantizeLinear', [`w${i}`, `w${i}_scale`, `w${i}_zp`], [`w${i}_dq`], { axis: 0 });
    const bias = randomValues(m, 30 + i, 0.1);
    let biasName = `b${i}`;
    if (opts.int32Bias) {
      const bScale = wScale.map((s) => Math.fround(s * (i === 1 || !opts.reluRange ? 0.05 : 0.025)));
      b.initializer(`b${i}_q`, 'INT32', [m], Array.from(bias, (v, j) => Math.round(v / bScale[j])))
        .initializer(`b${i}_scale`, 'FLOAT', [m], bScale).initializer(`b${i}_zp`, 'INT32', [m], new Array(m).fill(0))
        .node('DequantizeLinear', [`b${i}_q`, `b${i}_scale`, `b${i}_zp`], [`b${i}_dq`], { axis: 0 });
      biasName = `b${i}_dq`;
    } else {
      b.initializer(biasName, 'FLOAT', [m], bias);
    }
    b.node('Conv', [x, `w${i}_dq`, biasName], [`conv${i}`], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] })
      .node('Relu', [`conv${i}`], [`relu${i}`]);
    x = qdq(`relu${i}`, `r${i}`, true);
    if (i === 2) {
      b.node('MaxPool', [x], ['pool'], { kernel_shape: [2, 2], strides: [2, 2] });
      x = qdq('pool', 'pool', true);
    }
  }
  return b.output(x, 'FLOAT').encode();
}

export interface QdqResNetOptions extends Omit<ResNetOptions, 'half' | 'foldBatchNorm' | 'allOutputs'> {
  /** Activation element type: quantize_static's default QInt8 (onnxruntime 1.30), or QUInt8. */
  activation?: 'INT8' | 'UINT8';
  /** The calibration inputs (default: two seeded uniform [-1, 1) images). */
  calibration?: Float32Array[];
}

/**
 * ResNet-18 (resnet18Layers, BatchNormalization folded as torch.onnx.export writes it) quantized as
 * onnxruntime.quantization.quantize_static does with its defaults (QDQ format, MinMax calibration,
 * per-tensor, activation and weight type QInt8, symmetric weights): the FP32 model runs in ONNX
 * Runtime over the calibration inputs with every activation as an output, each activation gets
 * Q → DQ with scale (max − min) / 255 over [min(0, lo), max(0, hi)], each Relu is dropped (its
 * output range, zero point = the type's minimum, does the clipping), weights become INT8 with
 * scale max|w| / 127, biases INT32 with scale x_scale · w_scale; MaxPool and Flatten reuse their
 * input's scale; the Adds, the GlobalAveragePool and the Gemm are quantized like the Convs, and the
 * logits come out through a last DequantizeLinear. Checked against real quantize_static
 * (onnxruntime 1.30, Python) on this FP32 model with these two calibration inputs: node for node the
 * same graph (33 QuantizeLinear, 75 DequantizeLinear, 20 Conv, 8 Add, MaxPool, GlobalAveragePool,
 * Flatten, Gemm, no Relu; the same tensor names and edges), the same initializer names, types and
 * shapes (weight scales scalars, bias scales of shape [1]), every zero point equal, activation
 * scales equal to 4e-7 (relative), a few weights one step apart (FP32 vs FP64 rounding of w / scale).
 */
export async function qdqResnet18(opts: QdqResNetOptions = {}): Promise<Uint8Array> {
  const act = opts.activation ?? 'INT8';
  const size = opts.size ?? 224;
  const [qmin, qmax] = act === 'INT8' ? [-128, 127] : [0, 255];
  const floatOpts = { ...opts, foldBatchNorm: true };
  const layers = resnet18Layers(floatOpts);
  const calibration = opts.calibration ?? [1, 2].map((s) => randomValues(3 * size * size, 500 + s, 1));
  // MinMax calibration, as quantize_static's default calibrator: the range of each tensor over all inputs.
  const ranges = new Map<string, [number, number]>();
  const widen = (name: string, values: ArrayLike<number>) => {
    let [lo, hi] = ranges.get(name) ?? [Infinity, -Infinity];
    for (let i = 0; i < values.length; i++) {
      lo = Math.min(lo, values[i]);
      hi = Math.max(hi, values[i]);
    }
    ranges.set(name, [lo, hi]);
  };
  // Loaded here, not at the top: the benchmark's RSS child measuring gebe must not map ONNX Runtime.
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(resnet18({ ...floatOpts, allOutputs: true }), { intraOpNumThreads: 1 });
  for (const data of calibration) {
    widen('input', data);
    const outputs = await session.run({ input: new ort.Tensor('float32', data, [1, 3, size, size]) });
    for (const [name, t] of Object.entries(outputs)) widen(name, t.data as Float32Array);
  }
  await session.release();

  const g = new OnnxGraphBuilder('resnet18_qdq', 13).input('input', 'FLOAT', ['batch', 3, size, size]);
  const scales = new Map<string, number>();
  const paramsOf = new Map<string, string>();  // activation → the one whose scale and zero point it uses
  const dequantized = new Map<string, string>();  // activation → its DequantizeLinear's output
  /** Q → DQ of activation `x` with its own range, or with the parameters of `shareWith` (MaxPool, Flatten). */
  const quantize = (x: string, shareWith?: string, dq = `${x}_DequantizeLinear_Output`, q = x) => {
    const base = shareWith ? paramsOf.get(shareWith) ?? shareWith : x;
    if (!scales.has(base)) {
      const [lo, hi] = ranges.get(base) ?? [0, 0];
      const rmin = Math.min(0, lo), rmax = Math.max(0, hi);
      const scale = rmax > rmin ? Math.fround((rmax - rmin) / (qmax - qmin)) : 1;
      g.initializer(`${base}_scale`, 'FLOAT', [], [scale]).initializer(`${base}_zero_point`, act, [], [Math.round(qmin - rmin / scale)]);
      scales.set(base, scale);
    }
    paramsOf.set(x, base);
    g.node('QuantizeLinear', [q, `${base}_scale`, `${base}_zero_point`], [`${x}_QuantizeLinear_Output`])
      .node('DequantizeLinear', [`${x}_QuantizeLinear_Output`, `${base}_scale`, `${base}_zero_point`], [dq]);
    dequantized.set(x, dq);
  };
  const scaleOf = (x: string) => scales.get(paramsOf.get(x) ?? x) ?? 1;
  /** INT8 symmetric weights and INT32 bias (scale x_scale · w_scale) behind DequantizeLinears. */
  const weights = (name: string, dims: number[], w: Float32Array, bias: Float32Array, xScale: number): [string, string] => {
    let absmax = 0;
    for (const v of w) absmax = Math.max(absmax, Math.abs(v));
    const wScale = Math.fround(absmax / 127), bScale = Math.fround(xScale * wScale);
    g.initializer(`${name}.w_quantized`, 'INT8', dims, Array.from(w, (v) => Math.max(-127, Math.min(127, Math.round(v / wScale)))))
      .initializer(`${name}.w_scale`, 'FLOAT', [], [wScale]).initializer(`${name}.w_zero_point`, 'INT8', [], [0])
      .node('DequantizeLinear', [`${name}.w_quantized`, `${name}.w_scale`, `${name}.w_zero_point`], [`${name}.w_DequantizeLinear_Output`]);
    g.initializer(`${name}.b_quantized`, 'INT32', [bias.length], Array.from(bias, (v) => Math.round(v / bScale)))
      .initializer(`${name}.b_quantized_scale`, 'FLOAT', [1], [bScale]).initializer(`${name}.b_quantized_zero_point`, 'INT32', [], [0])
      .node('DequantizeLinear', [`${name}.b_quantized`, `${name}.b_quantized_scale`, `${name}.b_quantized_zero_point`], [`${name}.b`]);
    return [`${name}.w_DequantizeLinear_Output`, `${name}.b`];
  };
  const dqOf = (x: string) => dequantized.get(x) ?? x;
  quantize('input');
  for (const l of layers) {
    const attrs = resnetAttributes(l);
    if (l.op === 'Conv' || l.op === 'Gemm') {
      const dims = l.op === 'Conv' ? [l.cout, l.cin, l.k, l.k] : [l.cout, l.cin];
      const [w, b] = weights(l.name, dims, l.weight, l.bias ?? new Float32Array(l.cout), scaleOf(l.input));
      if (l.op === 'Conv') {
        g.node('Conv', [dqOf(l.input), w, b], [l.output], attrs, l.name);
        quantize(l.output);
      } else {
        // The graph output itself is the last DequantizeLinear's.
        g.node('Gemm', [dqOf(l.input), w, b], [`${l.output}_QuantizeLinear_Input`], attrs, l.name);
        quantize(l.output, undefined, l.output, `${l.output}_QuantizeLinear_Input`);
      }
    } else if (l.op === 'Add') {
      g.node('Add', l.inputs.map(dqOf), [l.output], {}, l.name);
      quantize(l.output);
    } else {
      g.node(l.op, [dqOf(l.input)], [l.output], attrs, l.name);
      quantize(l.output, l.op === 'GlobalAveragePool' ? undefined : l.input);
    }
  }
  return g.output('logits', 'FLOAT', ['batch', opts.classes ?? 1000]).encode();
}
