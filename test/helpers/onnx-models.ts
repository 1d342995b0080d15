/**
 * Generated ONNX models shaped like the networks the cpu engine must run: an MNIST CNN as PyTorch
 * exports it (Conv/Relu/MaxPool, the Shape→Gather→Unsqueeze→Concat→Reshape flatten chain, Gemm,
 * Softmax), a ResNet-18-shaped network, a MobileNetV2-shaped network and a small BERT-style
 * encoder, and a Whisper-style log-mel front end (STFT). Weights are seeded random values; widths are parameters so tests stay fast while the
 * benchmark uses full-size shapes.
 */
import { OnnxGraphBuilder, randomValues, type AttributeValue, type Dim } from './onnx-builder.js';
import { toHalf } from './half.js';

let seed = 1;
function weights(g: OnnxGraphBuilder, name: string, dims: number[], scale: number): string {
  const count = dims.reduce((a, b) => a * b, 1);
  g.initializer(name, 'FLOAT', dims, randomValues(count, seed++, scale));
  return name;
}

function ints(g: OnnxGraphBuilder, name: string, values: number[]): string {
  g.initializer(name, 'INT64', [values.length], values);
  return name;
}

/** He-style scale so activations stay O(1) through deep random networks. */
function heScale(fanIn: number): number {
  return Math.sqrt(6 / fanIn) / 2;
}

export interface MnistOptions {
  conv1?: number;
  conv2?: number;
  hidden?: number;
  batch?: Dim;
}

/** PyTorch's MNIST example network (defaults are the full-size 32/64/128 widths). */
export function mnistCnn(opts: MnistOptions = {}): Uint8Array {
  seed = 101;
  const c1 = opts.conv1 ?? 32, c2 = opts.conv2 ?? 64, hidden = opts.hidden ?? 128;
  const g = new OnnxGraphBuilder('mnist', 13);
  g.input('input', 'FLOAT', [opts.batch ?? 'batch', 1, 28, 28]);
  g.node('Conv', ['input', weights(g, 'conv1.weight', [c1, 1, 3, 3], heScale(9)), weights(g, 'conv1.bias', [c1], 0.1)], ['c1'],
    { kernel_shape: [3, 3], strides: [1, 1], pads: [0, 0, 0, 0], dilations: [1, 1], group: 1 }, '/conv1/Conv');
  g.node('Relu', ['c1'], ['r1'], {}, '/Relu');
  g.node('Conv', ['r1', weights(g, 'conv2.weight', [c2, c1, 3, 3], heScale(9 * c1)), weights(g, 'conv2.bias', [c2], 0.1)], ['c2'],
    { kernel_shape: [3, 3], strides: [1, 1], pads: [0, 0, 0, 0] }, '/conv2/Conv');
  g.node('Relu', ['c2'], ['r2'], {}, '/Relu_1');
  g.node('MaxPool', ['r2'], ['p'], { kernel_shape: [2, 2], strides: [2, 2], pads: [0, 0, 0, 0], ceil_mode: 0 }, '/MaxPool');
  // torch.flatten(x, 1) exported with dynamic batch: Shape → Gather(0) → Unsqueeze → Concat(-1) → Reshape.
  g.node('Shape', ['p'], ['shape'], {}, '/Shape');
  g.initializer('zero', 'INT64', [], [0]);
  g.node('Gather', ['shape', 'zero'], ['batch_dim'], { axis: 0 }, '/Gather');
  g.node('Unsqueeze', ['batch_dim', ints(g, 'axes0', [0])], ['batch_1d'], {}, '/Unsqueeze');
  g.node('Concat', ['batch_1d', ints(g, 'minus_one', [-1])], ['flat_shape'], { axis: 0 }, '/Concat');
  g.node('Reshape', ['p', 'flat_shape'], ['flat'], {}, '/Reshape');
  const flat = c2 * 12 * 12;
  g.node('Gemm', ['flat', weights(g, 'fc1.weight', [hidden, flat], heScale(flat)), weights(g, 'fc1.bias', [hidden], 0.1)], ['f1'],
    { alpha: { float: 1 }, beta: { float: 1 }, transB: 1 }, '/fc1/Gemm');
  g.node('Relu', ['f1'], ['r3'], {}, '/Relu_2');
  g.node('Gemm', ['r3', weights(g, 'fc2.weight', [10, hidden], heScale(hidden)), weights(g, 'fc2.bias', [10], 0.1)], ['logits'],
    { transB: 1 }, '/fc2/Gemm');
  g.node('Softmax', ['logits'], ['probabilities'], { axis: 1 }, '/Softmax');
  g.output('probabilities', 'FLOAT', [opts.batch ?? 'batch', 10]);
  return g.encode();
}

export interface ResNetOptions {
  width?: number;       // channels of the first stage (64 in ResNet-18)
  size?: number;        // input height/width (224)
  classes?: number;
  /**
   * `model.half()` as torch.onnx.export writes it in eval mode: each BatchNormalization folded into
   * its Conv (weights and bias), and every tensor — input, weights, output — FP16.
   */
  half?: boolean;
  /** BatchNormalization folded into each Conv as torch.onnx.export does in eval mode (implied by half). */
  foldBatchNorm?: boolean;
  /** Every layer's output also a graph output: the tensors quantize_static's calibration reads. */
  allOutputs?: boolean;
}

/** One layer of {@link resnet18Layers}, with its weights as values. */
export type ResNetLayer =
  | { op: 'Conv'; name: string; input: string; output: string; cin: number; cout: number; k: number; stride: number; relu: boolean;
      weight: Float32Array; bias?: Float32Array; bn?: { scale: Float32Array; bias: Float32Array; mean: Float32Array; variance: Float32Array } }
  | { op: 'MaxPool' | 'GlobalAveragePool' | 'Flatten'; name: string; input: string; output: string }
  | { op: 'Add'; name: string; inputs: [string, string]; output: string }
  | { op: 'Gemm'; name: string; input: string; output: string; weight: Float32Array; bias: Float32Array; cin: number; cout: number };

const BN_EPSILON = 1e-5;

/**
 * ResNet-18's topology as a list of layers: 7×7 stem + BN + ReLU + MaxPool, 4 stages × 2 basic
 * blocks (each residual Add followed by a ReLU), GlobalAveragePool, Flatten, Gemm. Each Conv
 * carries its BatchNormalization, or (foldBatchNorm) a bias with the BN folded into its weights.
 * resnet18() writes it as a float model, qdqResnet18() (qdq-models.ts) as quantize_static would.
 */
export function resnet18Layers(opts: ResNetOptions = {}): ResNetLayer[] {
  seed = 202;
  let counter = 0;
  const fresh = (prefix: string) => `${prefix}_${counter++}`;
  const w = opts.width ?? 64, classes = opts.classes ?? 1000, fold = opts.foldBatchNorm || opts.half;
  const layers: ResNetLayer[] = [];
  const convBn = (x: string, cin: number, cout: number, k: number, stride: number, relu: boolean): string => {
    const name = fresh('conv');
    const weight = randomValues(cout * cin * k * k, seed++, heScale(cin * k * k));
    const bn = { scale: variance(cout), bias: randomValues(cout, seed++, 0.1), mean: randomValues(cout, seed++, 0.1), variance: variance(cout) };
    const output = relu ? `${name}.bn.r` : `${name}.bn.y`;
    if (!fold) layers.push({ op: 'Conv', name, input: x, output, cin, cout, k, stride, relu, weight, bn });
    else {
      const bias = new Float32Array(cout);
      for (let o = 0; o < cout; o++) {
        const factor = bn.scale[o] / Math.sqrt(bn.variance[o] + BN_EPSILON);
        for (let i = o * cin * k * k; i < (o + 1) * cin * k * k; i++) weight[i] *= factor;
        bias[o] = bn.bias[o] - bn.mean[o] * factor;
      }
      layers.push({ op: 'Conv', name, input: x, output, cin, cout, k, stride, relu, weight, bias });
    }
    return output;
  };
  let x = convBn('input', 3, w, 7, 2, true);
  layers.push({ op: 'MaxPool', name: 'maxpool', input: x, output: 'pool' });
  x = 'pool';
  let cin = w;
  for (let stage = 0; stage < 4; stage++) {
    const cout = w << stage;
    for (let block = 0; block < 2; block++) {
      const stride = stage > 0 && block === 0 ? 2 : 1;
      const a = convBn(x, cin, cout, 3, stride, true);
      const b = convBn(a, cout, cout, 3, 1, false);
      const shortcut = stride !== 1 || cin !== cout ? convBn(x, cin, cout, 1, stride, false) : x;
      const sum = fresh('add');
      layers.push({ op: 'Add', name: sum, inputs: [b, shortcut], output: `${sum}.r` });
      x = `${sum}.r`;
      cin = cout;
    }
  }
  layers.push({ op: 'GlobalAveragePool', name: 'gap', input: x, output: 'gap' });
  layers.push({ op: 'Flatten', name: 'flatten', input: 'gap', output: 'flat' });
  layers.push({ op: 'Gemm', name: 'fc', input: 'flat', output: 'logits', cin, cout: classes,
    weight: randomValues(classes * cin, seed++, heScale(cin)), bias: randomValues(classes, seed++, 0.1) });
  return layers;
}

/** Attributes of a ResNet layer's node (the same in the float and the QDQ form). */
export function resnetAttributes(l: ResNetLayer): Record<string, AttributeValue> {
  if (l.op === 'Conv') return { kernel_shape: [l.k, l.k], strides: [l.stride, l.stride], pads: Array(4).fill((l.k - 1) >> 1) };
  if (l.op === 'MaxPool') return { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] };
  if (l.op === 'Flatten') return { axis: 1 };
  if (l.op === 'Gemm') return { transB: 1 };
  return {};
}

/** ResNet-18 (resnet18Layers) as a float model: FP32 with BatchNormalization nodes, or FP16 with them folded (half). */
export function resnet18(opts: ResNetOptions = {}): Uint8Array {
  const size = opts.size ?? 224, type = opts.half ? 'FLOAT16' : 'FLOAT';
  const g = new OnnxGraphBuilder('resnet18', 13);
  const init = (name: string, dims: number[], values: Float32Array) => {
    g.initializer(name, type, dims, opts.half ? toHalf(values) : values);
    return name;
  };
  g.input('input', type, ['batch', 3, size, size]);
  let classes = 0;
  for (const l of resnet18Layers(opts)) {
    const attrs = resnetAttributes(l);
    if (l.op === 'Conv') {
      const y = l.bn ? `${l.name}.y` : l.relu ? `${l.name}.bn.y` : l.output;
      const inputs = [l.input, init(`${l.name}.w`, [l.cout, l.cin, l.k, l.k], l.weight)];
      if (l.bias) inputs.push(init(`${l.name}.b`, [l.cout], l.bias));
      g.node('Conv', inputs, [y], attrs, l.name);
      if (l.bn) {
        const bn = `${l.name}.bn`;
        g.node('BatchNormalization', [y, init(`${bn}.s`, [l.cout], l.bn.scale), init(`${bn}.b`, [l.cout], l.bn.bias),
          init(`${bn}.m`, [l.cout], l.bn.mean), init(`${bn}.v`, [l.cout], l.bn.variance)], [`${bn}.y`], { epsilon: { float: BN_EPSILON } }, bn);
      }
      if (l.relu) g.node('Relu', [`${l.name}.bn.y`], [l.output], {}, `${l.name}.bn.relu`);
    } else if (l.op === 'Add') {
      g.node('Add', l.inputs, [l.name], {}, l.name);
      g.node('Relu', [l.name], [l.output], {}, `${l.name}.relu`);
    } else if (l.op === 'Gemm') {
      g.node('Gemm', [l.input, init(`${l.name}.w`, [l.cout, l.cin], l.weight), init(`${l.name}.b`, [l.cout], l.bias)], [l.output], attrs, l.name);
      classes = l.cout;
    } else {
      g.node(l.op, [l.input], [l.output], attrs, l.name);
    }
  }
  g.output('logits', type, ['batch', classes]);
  if (opts.allOutputs) for (const l of resnet18Layers(opts)) if (l.output !== 'logits') g.output(l.output, type);
  return g.encode();
}

function variance(n: number): Float32Array {
  return randomValues(n, seed++, 0.5).map((x) => 1 + x);
}

export interface MobileNetOptions {
  widthMultiplier?: number;
  size?: number;
  classes?: number;
}

/** MobileNetV2 topology: inverted residual blocks (1×1 expand, 3×3 depthwise, 1×1 project) with ReLU6 as Clip. */
export function mobilenetV2(opts: MobileNetOptions = {}): Uint8Array {
  seed = 303;
  const alpha = opts.widthMultiplier ?? 1, size = opts.size ?? 224, classes = opts.classes ?? 1000;
  const ch = (c: number) => Math.max(8, Math.round((c * alpha) / 8) * 8);
  const g = new OnnxGraphBuilder('mobilenetv2', 13);
  g.input('input', 'FLOAT', ['batch', 3, size, size]);
  g.initializer('relu6_min', 'FLOAT', [], [0]);
  g.initializer('relu6_max', 'FLOAT', [], [6]);
  const conv = (x: string, cin: number, cout: number, k: number, stride: number, group: number, relu6: boolean): string => {
    const name = g.fresh('conv');
    g.node('Conv', [x, weights(g, `${name}.w`, [cout, cin / group, k, k], heScale((cin / group) * k * k)), weights(g, `${name}.b`, [cout], 0.05)],
      [`${name}.y`], { kernel_shape: [k, k], strides: [stride, stride], pads: Array(4).fill((k - 1) >> 1), group }, name);
    if (!relu6) return `${name}.y`;
    g.node('Clip', [`${name}.y`, 'relu6_min', 'relu6_max'], [`${name}.r`], {}, `${name}.relu6`);
    return `${name}.r`;
  };
  let x = conv('input', 3, ch(32), 3, 2, 1, true);
  let cin = ch(32);
  const settings: Array<[number, number, number, number]> = [
    [1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2], [6, 320, 1, 1],
  ];
  for (const [t, c, n, s] of settings) {
    const cout = ch(c);
    for (let i = 0; i < n; i++) {
      const stride = i === 0 ? s : 1;
      const hidden = cin * t;
      let y = t === 1 ? x : conv(x, cin, hidden, 1, 1, 1, true);
      y = conv(y, hidden, hidden, 3, stride, hidden, true);
      y = conv(y, hidden, cout, 1, 1, 1, false);
      if (stride === 1 && cin === cout) {
        const sum = g.fresh('add');
        g.node('Add', [x, y], [sum], {}, sum);
        y = sum;
      }
      x = y;
      cin = cout;
    }
  }
  const last = ch(1280);
  x = conv(x, cin, last, 1, 1, 1, true);
  g.node('GlobalAveragePool', [x], ['gap'], {}, 'gap');
  g.node('Flatten', ['gap'], ['flat'], { axis: 1 }, 'flatten');
  g.node('Gemm', ['flat', weights(g, 'fc.w', [classes, last], heScale(last)), weights(g, 'fc.b', [classes], 0.05)], ['logits'], { transB: 1 }, 'fc');
  g.output('logits', 'FLOAT', ['batch', classes]);
  return g.encode();
}

export interface BertOptions {
  layers?: number;
  hidden?: number;
  heads?: number;
  intermediate?: number;
  vocab?: number;
  maxPositions?: number;
}

/**
 * A BERT-style encoder: token + position embeddings (Gather), LayerNormalization, multi-head
 * self-attention (MatMul + Add bias, Reshape/Transpose to heads, scaled scores, Softmax) and a
 * GELU (Erf form) feed-forward block, as transformer exporters emit it.
 */
export function bertEncoder(opts: BertOptions = {}): Uint8Array {
  seed = 404;
  const layers = opts.layers ?? 2, hidden = opts.hidden ?? 128, heads = opts.heads ?? 2;
  const inter = opts.intermediate ?? hidden * 4, vocab = opts.vocab ?? 1000, maxPos = opts.maxPositions ?? 512;
  const headDim = hidden / heads;
  const g = new OnnxGraphBuilder('bert', 17);
  g.input('input_ids', 'INT64', ['batch', 'sequence']);
  g.input('attention_mask', 'FLOAT', ['batch', 'sequence']);
  g.node('Gather', [weights(g, 'word_embeddings', [vocab, hidden], 0.5), 'input_ids'], ['tok'], { axis: 0 }, 'embeddings/word');
  // Position ids from the runtime sequence length: Shape → Gather(1) → Range(0, seq, 1).
  g.node('Shape', ['input_ids'], ['ids_shape'], {}, 'embeddings/shape');
  g.initializer('one_scalar', 'INT64', [], [1]);
  g.initializer('zero_scalar', 'INT64', [], [0]);
  g.node('Gather', ['ids_shape', 'one_scalar'], ['seq_len'], { axis: 0 }, 'embeddings/seq_len');
  g.node('Range', ['zero_scalar', 'seq_len', 'one_scalar'], ['positions'], {}, 'embeddings/range');
  g.node('Gather', [weights(g, 'position_embeddings', [maxPos, hidden], 0.5), 'positions'], ['pos'], { axis: 0 }, 'embeddings/position');
  g.node('Add', ['tok', 'pos'], ['emb'], {}, 'embeddings/add');
  const layerNorm = (x: string, name: string): string => {
    const s = randomValues(hidden, seed++, 0.2).map((v) => 1 + v);
    g.initializer(`${name}.gamma`, 'FLOAT', [hidden], s);
    weights(g, `${name}.beta`, [hidden], 0.1);
    g.node('LayerNormalization', [x, `${name}.gamma`, `${name}.beta`], [`${name}.y`], { axis: -1, epsilon: { float: 1e-12 } }, name);
    return `${name}.y`;
  };
  const linear = (x: string, cin: number, cout: number, name: string): string => {
    g.node('MatMul', [x, weights(g, `${name}.w`, [cin, cout], heScale(cin))], [`${name}.mm`], {}, `${name}/MatMul`);
    g.node('Add', [`${name}.mm`, weights(g, `${name}.b`, [cout], 0.05)], [`${name}.y`], {}, `${name}/Add`);
    return `${name}.y`;
  };
  let x = layerNorm('emb', 'embeddings/LayerNorm');
  // Mask [batch, seq] → additive bias [batch, 1, 1, seq]: (1 - mask) * -10000.
  g.node('Unsqueeze', ['attention_mask', ints(g, 'mask_axes', [1, 2])], ['mask4'], {}, 'mask/unsqueeze');
  g.initializer('one_f', 'FLOAT', [], [1]);
  g.initializer('neg_big', 'FLOAT', [], [-10000]);
  g.node('Sub', ['one_f', 'mask4'], ['inv_mask'], {}, 'mask/sub');
  g.node('Mul', ['inv_mask', 'neg_big'], ['mask_bias'], {}, 'mask/mul');
  g.initializer('heads_shape', 'INT64', [4], [0, 0, heads, headDim]);
  g.initializer('merge_shape', 'INT64', [3], [0, 0, hidden]);
  g.initializer('scale', 'FLOAT', [], [1 / Math.sqrt(headDim)]);
  g.initializer('sqrt2', 'FLOAT', [], [Math.SQRT2]);
  g.initializer('half', 'FLOAT', [], [0.5]);
  for (let l = 0; l < layers; l++) {
    const p = `layer.${l}`;
    const split = (t: string, name: string, perm: number[]): string => {
      g.node('Reshape', [t, 'heads_shape'], [`${name}.r`], {}, `${name}/Reshape`);
      g.node('Transpose', [`${name}.r`], [`${name}.t`], { perm }, `${name}/Transpose`);
      return `${name}.t`;
    };
    const q = split(linear(x, hidden, hidden, `${p}/query`), `${p}/q`, [0, 2, 1, 3]);
    const k = split(linear(x, hidden, hidden, `${p}/key`), `${p}/k`, [0, 2, 3, 1]);
    const v = split(linear(x, hidden, hidden, `${p}/value`), `${p}/v`, [0, 2, 1, 3]);
    g.node('MatMul', [q, k], [`${p}.scores`], {}, `${p}/scores`);
    g.node('Mul', [`${p}.scores`, 'scale'], [`${p}.scaled`], {}, `${p}/scale`);
    g.node('Add', [`${p}.scaled`, 'mask_bias'], [`${p}.masked`], {}, `${p}/mask`);
    g.node('Softmax', [`${p}.masked`], [`${p}.probs`], { axis: -1 }, `${p}/Softmax`);
    g.node('MatMul', [`${p}.probs`, v], [`${p}.ctx`], {}, `${p}/context`);
    g.node('Transpose', [`${p}.ctx`], [`${p}.ctx_t`], { perm: [0, 2, 1, 3] }, `${p}/merge/Transpose`);
    g.node('Reshape', [`${p}.ctx_t`, 'merge_shape'], [`${p}.merged`], {}, `${p}/merge/Reshape`);
    const attn = linear(`${p}.merged`, hidden, hidden, `${p}/attention_output`);
    g.node('Add', [attn, x], [`${p}.res1`], {}, `${p}/residual1`);
    const h = layerNorm(`${p}.res1`, `${p}/attention_LayerNorm`);
    const up = linear(h, hidden, inter, `${p}/intermediate`);
    // GELU, erf form: 0.5 * x * (1 + erf(x / sqrt(2))).
    g.node('Div', [up, 'sqrt2'], [`${p}.g1`], {}, `${p}/gelu/Div`);
    g.node('Erf', [`${p}.g1`], [`${p}.g2`], {}, `${p}/gelu/Erf`);
    g.node('Add', [`${p}.g2`, 'one_f'], [`${p}.g3`], {}, `${p}/gelu/Add`);
    g.node('Mul', [up, `${p}.g3`], [`${p}.g4`], {}, `${p}/gelu/Mul`);
    g.node('Mul', [`${p}.g4`, 'half'], [`${p}.gelu`], {}, `${p}/gelu/Mul_1`);
    const down = linear(`${p}.gelu`, inter, hidden, `${p}/output`);
    g.node('Add', [down, h], [`${p}.res2`], {}, `${p}/residual2`);
    x = layerNorm(`${p}.res2`, `${p}/output_LayerNorm`);
  }
  g.node('Identity', [x], ['last_hidden_state'], {}, 'output');
  g.output('last_hidden_state', 'FLOAT', ['batch', 'sequence', hidden]);
  return g.encode();
}

/**
 * A Whisper-style log-mel front end as opset 17 spells it: 16 kHz audio [batch, samples] →
 * STFT of 400-sample Hann frames at hop 160 → power (re² + im²) → 80 mel bins (MelWeightMatrix,
 * 0-8 kHz) → natural log, [batch, frames, 80]. 30 s of audio is 2998 frames.
 */
export function logMelSpectrogram(): Uint8Array {
  const hann = Array.from({ length: 400 }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / 400));
  const g = new OnnxGraphBuilder('log_mel', 17);
  g.input('audio', 'FLOAT', ['batch', 'samples']);
  g.initializer('last_axis', 'INT64', [1], [-1]);
  g.initializer('hop', 'INT64', [], [160]).initializer('window', 'FLOAT', [400], hann);
  g.initializer('mel_bins', 'INT64', [], [80]).initializer('dft_length', 'INT64', [], [400]).initializer('rate', 'INT64', [], [16000]);
  g.initializer('low_hz', 'FLOAT', [], [0]).initializer('high_hz', 'FLOAT', [], [8000]).initializer('floor', 'FLOAT', [], [1e-10]);
  g.node('Unsqueeze', ['audio', 'last_axis'], ['signal'], {}, 'frontend/unsqueeze');
  g.node('STFT', ['signal', 'hop', 'window'], ['spectrum'], {}, 'frontend/stft');
  g.node('Mul', ['spectrum', 'spectrum'], ['squares'], {}, 'frontend/square');
  g.node('ReduceSum', ['squares', 'last_axis'], ['power'], { keepdims: 0 }, 'frontend/power');
  g.node('MelWeightMatrix', ['mel_bins', 'dft_length', 'rate', 'low_hz', 'high_hz'], ['filters'], {}, 'frontend/filters');
  g.node('MatMul', ['power', 'filters'], ['mel'], {}, 'frontend/mel');
  g.node('Max', ['mel', 'floor'], ['clamped'], {}, 'frontend/clamp');
  g.node('Log', ['clamped'], ['log_mel'], {}, 'frontend/log');
  g.output('log_mel', 'FLOAT');
  return g.encode();
}
