import { OnnxGraphBuilder, randomValues } from './onnx-builder.js';

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
}

/**
 * An int8 CNN in the QDQ form `onnxruntime.quantization.quantize_static` writes (8-bit activations
 * and per-channel INT8 weights, each behind a DequantizeLinear; FP32 bias unless int32Bias): four
 * 3×3 convs + Relu, 3→32→64→64→64 channels, with a MaxPool after the second. ORT and gebe fuse the
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
  const channels = [3, 32, 64, 64, 64];
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
