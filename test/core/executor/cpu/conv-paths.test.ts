/**
 * The convolution paths the cpu engine picks by shape and thread count, each against ONNX Runtime:
 * a batch spread over threads image by image (batch 3 and 4 on 2 threads), one image's GEMM split by
 * column blocks (a wide output) or by row blocks (a narrow one), pointwise convs read in place,
 * grouped convs, 1-D convs, stride/padding borders in the on-the-fly im2col, and a fused
 * bias + Relu/Clip epilogue. test/core/executor/cpu/isa-*.test.ts run it again on every other ISA the CPU
 * runs. Channel counts are not multiples of the micro-kernel's 6×16 tile so
 * the edges are exercised too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CpuTensor } from '../../../helpers/cpu-session.js';
import { CpuSession } from '../../../helpers/cpu-session.js';
import { OnnxGraphBuilder, randomValues } from '../../../helpers/onnx-builder.js';
import { expectCpuMatchesOrt, maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-conv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ConvCase {
  name: string;
  input: number[];         // N, C, spatial...
  out: number;             // output channels
  kernel: number[];
  strides?: number[];
  pads?: number[];
  group?: number;
  dilations?: number[];
  activation?: 'Relu' | 'Clip' | 'LeakyRelu' | 'Silu' | 'HardSwish';
  bias?: false;            // no bias input
}

let seed = 500;
function convModel(c: ConvCase): string {
  const g = new OnnxGraphBuilder('conv', c.activation === 'HardSwish' ? 14 : 13);
  const spatial = c.input.slice(2);
  g.input('input', 'FLOAT', ['batch', c.input[1], ...spatial]);
  const cin = c.input[1] / (c.group ?? 1);
  const wdims = [c.out, cin, ...c.kernel];
  g.initializer('w', 'FLOAT', wdims, randomValues(wdims.reduce((a, b) => a * b, 1), seed++, 0.3));
  if (c.bias !== false) g.initializer('b', 'FLOAT', [c.out], randomValues(c.out, seed++, 0.5));
  const attrs = { kernel_shape: c.kernel, strides: c.strides ?? c.kernel.map(() => 1), pads: c.pads ?? c.kernel.map(() => 0).concat(c.kernel.map(() => 0)), group: c.group ?? 1, ...(c.dilations ? { dilations: c.dilations } : {}) };
  g.node('Conv', ['input', 'w', ...(c.bias === false ? [] : ['b'])], [c.activation ? 'y' : 'output'], attrs, 'conv');
  if (c.activation === 'Relu') g.node('Relu', ['y'], ['output'], {}, 'relu');
  if (c.activation === 'LeakyRelu') g.node('LeakyRelu', ['y'], ['output'], { alpha: 0.1 }, 'leaky');
  if (c.activation === 'HardSwish') g.node('HardSwish', ['y'], ['output'], {}, 'hard_swish');
  // SiLU as exporters write it: the Conv applies it (fusion.cc), so the two steps go.
  if (c.activation === 'Silu') g.node('Sigmoid', ['y'], ['gate'], {}, 'sigmoid').node('Mul', ['y', 'gate'], ['output'], {}, 'silu');
  if (c.activation === 'Clip') {
    g.initializer('lo', 'FLOAT', [], [0]);
    g.initializer('hi', 'FLOAT', [], [6]);
    g.node('Clip', ['y', 'lo', 'hi'], ['output'], {}, 'clip');
  }
  g.output('output', 'FLOAT', undefined);
  const file = path.join(dir, `${c.name.replace(/\W+/g, '_')}.onnx`);
  writeFileSync(file, g.encode());
  return file;
}

const cases: ConvCase[] = [
  // 3×3 pad 1 over 96×96 with 20 output channels: 9216 output columns, many column blocks.
  { name: 'wide 3x3 pad 1 + Relu', input: [1, 7, 96, 96], out: 20, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'Relu' },
  // 7×7 stride 2 pad 3 (a ResNet stem): strided im2col with borders on both sides.
  { name: 'stem 7x7 stride 2 pad 3', input: [1, 3, 61, 61], out: 16, kernel: [7, 7], strides: [2, 2], pads: [3, 3, 3, 3] },
  // At most 16 output channels: implicit im2col for any k (27 here) and up to a fifth of throw-away
  // columns (16 of 18 here), a batch of two images.
  { name: 'few channels shallow k 3x3 pad 1 + Relu', input: [2, 3, 32, 32], out: 8, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'Relu' },
  { name: 'few channels 3x3 pad 1 on 16x16', input: [2, 8, 16, 16], out: 16, kernel: [3, 3], pads: [1, 1, 1, 1] },
  // Few output columns, deep k: split by row blocks over a B packed whole; k spans several blocks.
  { name: 'narrow deep 3x3 + Clip', input: [1, 70, 7, 7], out: 130, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'Clip' },
  // Pointwise with few output channels reads B in place (only a partial last panel is packed).
  { name: 'pointwise 1x1', input: [1, 40, 30, 30], out: 33, kernel: [1, 1], activation: 'Relu' },
  { name: 'pointwise 1x1, 16 channels, whole panels', input: [1, 24, 16, 16], out: 16, kernel: [1, 1], activation: 'Clip' },
  { name: 'pointwise 1x1, deep k', input: [1, 300, 10, 10], out: 20, kernel: [1, 1] },
  { name: 'pointwise 1x1, 16 -> 90 channels + SiLU (an EfficientNet expansion)', input: [1, 16, 30, 30], out: 90, kernel: [1, 1], activation: 'Silu' },
  { name: 'pointwise 1x1, 96 channels, whole input within half an L2 (read in place)', input: [1, 384, 14, 14], out: 96, kernel: [1, 1], activation: 'Relu' },
  { name: 'pointwise 1x1, 96 channels, input past half an L2 (packed)', input: [1, 700, 14, 14], out: 96, kernel: [1, 1] },
  { name: 'strided 1x1', input: [1, 24, 15, 15], out: 12, kernel: [1, 1], strides: [2, 2] },
  // Stride 1 without pads: the GEMM reads the input through the taps' offsets (implicit im2col).
  { name: 'no pads 3x3 + Relu', input: [1, 7, 30, 33], out: 20, kernel: [3, 3], activation: 'Relu' },
  { name: 'no pads 3x3 dilation 2, grouped', input: [1, 6, 40, 40], out: 10, kernel: [3, 3], dilations: [2, 2], group: 2 },
  { name: 'no pads 5x5, two input channels', input: [1, 2, 70, 90], out: 9, kernel: [5, 5] },
  // Compact implicit im2col where the ISA has it (AVX-512: vectors put together from two output
  // rows): rows of 24 (the MNIST conv2, 12-row tiles and a 4-row edge), 56 and 38, padded and
  // not, and a stride-2 5×5 over the parity sub-planes.
  { name: 'rows of 24, 64 channels, deep k + Relu', input: [1, 32, 26, 26], out: 64, kernel: [3, 3], activation: 'Relu' },
  { name: 'rows of 26, one input channel (k = 9), 32 channels + Relu', input: [1, 1, 28, 28], out: 32, kernel: [3, 3], activation: 'Relu' },
  { name: 'rows of 56, pad 1 + Clip', input: [1, 9, 56, 56], out: 30, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'Clip' },
  { name: 'rows of 38, few channels + LeakyRelu', input: [1, 5, 40, 40], out: 10, kernel: [3, 3], activation: 'LeakyRelu' },
  { name: 'rows of 24, stride 2 5x5 pad 2', input: [1, 6, 48, 48], out: 20, kernel: [5, 5], strides: [2, 2], pads: [2, 2, 2, 2] },
  // Stride 2: big kernels through the four parity sub-planes (implicit im2col), small ones packed.
  { name: 'stride 2 5x5 pad 2, dilation 1', input: [1, 4, 41, 38], out: 11, kernel: [5, 5], strides: [2, 2], pads: [2, 2, 2, 2] },
  { name: 'stride 2 3x3 pad 1 + Relu', input: [1, 8, 40, 40], out: 12, kernel: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], activation: 'Relu' },
  { name: 'stride 2 1x1, 40 channels', input: [1, 40, 20, 19], out: 10, kernel: [1, 1], strides: [2, 2] },
  { name: 'stride 2 odd sizes asymmetric pads', input: [1, 6, 33, 29], out: 7, kernel: [3, 3], strides: [2, 2], pads: [0, 1, 1, 0] },
  { name: 'asymmetric pads', input: [1, 5, 20, 17], out: 14, kernel: [3, 2], pads: [0, 1, 2, 1] },
  { name: 'grouped', input: [1, 12, 20, 20], out: 18, kernel: [3, 3], pads: [1, 1, 1, 1], group: 3 },
  { name: '1-D', input: [1, 8, 200], out: 10, kernel: [5], pads: [2, 2] },
  // Depthwise 3×3 (zero-bordered copy, Plane9): pads, stride 2, asymmetric pads, dilation, no pads,
  // tiny planes, a channel multiplier of 2.
  { name: 'depthwise pad 1 + Clip', input: [1, 6, 15, 15], out: 6, kernel: [3, 3], pads: [1, 1, 1, 1], group: 6, activation: 'Clip' },
  { name: 'depthwise stride 2 asymmetric pads', input: [1, 5, 16, 13], out: 5, kernel: [3, 3], strides: [2, 2], pads: [0, 1, 1, 0], group: 5 },
  { name: 'depthwise dilation 2 + LeakyRelu', input: [1, 4, 12, 12], out: 4, kernel: [3, 3], pads: [2, 2, 2, 2], dilations: [2, 2], group: 4, activation: 'LeakyRelu' },
  { name: 'depthwise stride 2 dilation 2 odd sizes', input: [1, 3, 17, 15], out: 3, kernel: [3, 3], strides: [2, 2], pads: [1, 2, 2, 1], dilations: [2, 2], group: 3 },
  { name: 'depthwise no pads', input: [1, 3, 9, 10], out: 3, kernel: [3, 3], group: 3 },
  { name: 'depthwise same-padded on 3x4 planes', input: [1, 5, 3, 4], out: 5, kernel: [3, 3], pads: [1, 1, 1, 1], group: 5, activation: 'Relu' },
  { name: 'depthwise 3x3 on 3x3 planes', input: [1, 8, 3, 3], out: 8, kernel: [3, 3], pads: [1, 1, 1, 1], strides: [2, 2], group: 8 },
  { name: 'depthwise multiplier 2', input: [1, 4, 10, 10], out: 8, kernel: [3, 3], pads: [1, 1, 1, 1], group: 4 },
  // Same-padded 3×3 over rows that are not whole vectors (masked AVX-512 tails), and 5×5 depthwise
  // (MobileNetV3 and EfficientNet) at stride 1 and 2 (PlaneK over the zero-bordered copy).
  { name: 'depthwise same-padded on 37x29 planes + Relu', input: [1, 7, 37, 29], out: 7, kernel: [3, 3], pads: [1, 1, 1, 1], group: 7, activation: 'Relu' },
  // Stride 2 over rows longer than one vector (a whole and a masked step per row) with the clamp in
  // registers, batched with the dilation of the padded copy.
  { name: 'depthwise stride 2 on 2x6x40x37 + Clip', input: [2, 6, 40, 37], out: 6, kernel: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], group: 6, activation: 'Clip' },
  { name: 'depthwise 5x5 pad 2', input: [1, 6, 23, 19], out: 6, kernel: [5, 5], pads: [2, 2, 2, 2], group: 6 },
  { name: 'depthwise 5x5 stride 2 pad 2 + Clip', input: [1, 5, 28, 28], out: 5, kernel: [5, 5], strides: [2, 2], pads: [2, 2, 2, 2], group: 5, activation: 'Clip' },
  // PlaneK: ConvNeXt's 7×7 (four-row groups and the rows left over, rows off the vector width), a
  // dilated 5×5 as DeepLab's MobileNetV3 has, a 3×5 kernel at stride 2 with asymmetric pads, a
  // channel multiplier. Then the row-by-row path: a dilation that would make the copy mostly
  // padding (DeepLab's rates over a small map), and stride 3.
  { name: 'depthwise 7x7 pad 3 + Relu', input: [1, 6, 21, 23], out: 6, kernel: [7, 7], pads: [3, 3, 3, 3], group: 6, activation: 'Relu' },
  { name: 'depthwise 5x5 dilation 2 pad 4 + SiLU', input: [2, 5, 14, 14], out: 5, kernel: [5, 5], pads: [4, 4, 4, 4], dilations: [2, 2], group: 5, activation: 'Silu' },
  { name: 'depthwise 3x5 stride 2 asymmetric pads', input: [1, 4, 19, 22], out: 4, kernel: [3, 5], strides: [2, 2], pads: [1, 0, 2, 3], group: 4 },
  { name: 'depthwise 5x5 multiplier 2 + Clip', input: [1, 3, 12, 12], out: 6, kernel: [5, 5], pads: [2, 2, 2, 2], group: 3, activation: 'Clip' },
  { name: 'depthwise 5x5 dilation 24 on 14x14 (row by row)', input: [1, 4, 14, 14], out: 4, kernel: [5, 5], pads: [48, 48, 48, 48], dilations: [24, 24], group: 4 },
  { name: 'depthwise 5x5 stride 3 (row by row; channels last on AVX-512)', input: [1, 4, 20, 17], out: 4, kernel: [5, 5], strides: [3, 3], pads: [2, 2, 2, 2], group: 4 },
  // Channels last on AVX-512 (conv_depthwise_channels_last.cc: kernels larger than 3×3, bordered
  // planes up to 4096 positions), elsewhere the paths above: blocks of 16 channels and a partial
  // one, several images, odd sizes and asymmetric pads at stride 2, a dilation with a stride,
  // ConvNeXt's 7×7 at 56×56 (3844 bordered positions), and one just past the limit (4356).
  { name: 'depthwise 5x5 on 7x7, 40 channels + HardSwish', input: [2, 40, 7, 7], out: 40, kernel: [5, 5], pads: [2, 2, 2, 2], group: 40, activation: 'HardSwish' },
  { name: 'depthwise 7x7 on 14x14, 48 channels + Relu', input: [1, 48, 14, 14], out: 48, kernel: [7, 7], pads: [3, 3, 3, 3], group: 48, activation: 'Relu' },
  { name: 'depthwise 5x5 stride 2 on 15x15, 33 channels, asymmetric pads + Clip', input: [1, 33, 15, 15], out: 33, kernel: [5, 5], strides: [2, 2], pads: [1, 2, 2, 1], group: 33, activation: 'Clip' },
  { name: 'depthwise 5x5 dilation 2 stride 2, 20 channels + SiLU', input: [2, 20, 19, 17], out: 20, kernel: [5, 5], strides: [2, 2], pads: [4, 3, 4, 3], dilations: [2, 2], group: 20, activation: 'Silu' },
  { name: 'depthwise 5x5 stride 2 on 40x40, 20 channels (rows of 20 outputs)', input: [1, 20, 40, 40], out: 20, kernel: [5, 5], strides: [2, 2], pads: [2, 2, 2, 2], group: 20 },
  { name: 'depthwise 7x7 on 56x56, 17 channels', input: [1, 17, 56, 56], out: 17, kernel: [7, 7], pads: [3, 3, 3, 3], group: 17 },
  { name: 'depthwise 7x7 on 60x60, 18 channels (past the channels-last limit)', input: [1, 18, 60, 60], out: 18, kernel: [7, 7], pads: [3, 3, 3, 3], group: 18 },
  // Stride 2 with few taps (at most 144) into rows of 28 or more outputs, 16 (or a last 8) output
  // channels at a time (conv_strided.h, AVX-512; elsewhere the paths above): a mobile net's stem with its Relu,
  // rows of 30 (a masked last vector) and of 64, odd heights, asymmetric pads, no pads (the last
  // loads end at the row's end), a 3×2 kernel, dilation, two groups of 16, a batch of two, no
  // bias, and an activation applied after the rows (SiLU).
  { name: 'strided direct: stem 3 -> 16, rows of 30 + Relu', input: [1, 3, 41, 59], out: 16, kernel: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], activation: 'Relu' },
  { name: 'strided direct: 3 -> 32 rows of 64, asymmetric pads + Clip', input: [2, 3, 37, 128], out: 32, kernel: [3, 3], strides: [2, 2], pads: [0, 1, 1, 0], activation: 'Clip' },
  { name: 'strided direct: 16 -> 16 no pads, no bias', input: [1, 16, 23, 64], out: 16, kernel: [3, 3], strides: [2, 2], bias: false },
  { name: 'strided direct: 5 -> 48, 3x2 kernel, dilation 2 + SiLU', input: [1, 5, 30, 62], out: 48, kernel: [3, 2], strides: [2, 2], pads: [2, 1, 1, 2], dilations: [2, 2], activation: 'Silu' },
  { name: 'strided direct: two groups of 16 -> 16, 5x5 kernel of 4 channels', input: [1, 8, 29, 61], out: 32, kernel: [5, 5], strides: [2, 2], pads: [2, 2, 2, 2], group: 2 },
  // A block of 16 channels and a last one of 8 (a ShuffleNet stem), and groups of 8.
  { name: 'strided direct: 3 -> 24 (blocks of 16 and 8) + Relu', input: [1, 3, 33, 62], out: 24, kernel: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], activation: 'Relu' },
  { name: 'strided direct: two groups of 4 -> 8 + Clip', input: [1, 8, 20, 64], out: 16, kernel: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], group: 2, activation: 'Clip' },
  // Kernel rows and columns that read only padding are dropped (conv.cc's TapWindow): DeepLab's
  // ASPP at rate 36 over a 14×14 map becomes a 1×1 conv; at rate 8 over a 6×10 map only the
  // columns shrink; a window past the map on one side only (asymmetric pads); a stride-2 conv
  // whose last kernel row reaches only the bottom pad; every tap outside the image (the bias).
  { name: 'ASPP rate 36 on 14x14 (3x3 -> 1x1) + Relu', input: [1, 40, 14, 14], out: 24, kernel: [3, 3], pads: [36, 36, 36, 36], dilations: [36, 36], activation: 'Relu' },
  { name: 'rate 8 on a 10x6 map (rows kept, columns 3 -> 1)', input: [1, 20, 10, 6], out: 18, kernel: [3, 3], pads: [8, 8, 8, 8], dilations: [8, 8] },
  { name: 'window past the map on one side (asymmetric pads)', input: [1, 16, 9, 9], out: 20, kernel: [3, 3], pads: [0, 0, 12, 12], dilations: [6, 6] },
  { name: 'stride 2 whose last kernel row reads only the bottom pad', input: [1, 12, 8, 8], out: 14, kernel: [3, 3], strides: [2, 2], pads: [0, 0, 8, 8], dilations: [4, 4] },
  { name: 'every tap in the padding (the bias alone)', input: [1, 12, 4, 4], out: 14, kernel: [3, 3], pads: [11, 11, 11, 11], dilations: [10, 10], strides: [9, 9] },
  // Tap by tap (conv_tap_products.h) where, after that crop, the taps still read the image for at
  // most a third of im2col's positions: DeepLab's ASPP at rate 12 over 14×14 (324 of 1764), a
  // rate over an odd map with SiLU, stride 2 with a Clip, two groups.
  { name: 'ASPP rate 12 on 14x14, tap by tap + Relu', input: [1, 40, 14, 14], out: 24, kernel: [3, 3], pads: [12, 12, 12, 12], dilations: [12, 12], activation: 'Relu' },
  { name: 'rate 7 on 9x11, tap by tap + SiLU', input: [1, 24, 9, 11], out: 20, kernel: [3, 3], pads: [7, 7, 7, 7], dilations: [7, 7], activation: 'Silu' },
  { name: 'rate 14 stride 2 on 20x18, tap by tap + Clip', input: [1, 32, 20, 18], out: 16, kernel: [3, 3], strides: [2, 2], pads: [14, 14, 14, 14], dilations: [14, 14], activation: 'Clip' },
  { name: 'rate 12, two groups of 32 -> 24, tap by tap', input: [1, 64, 14, 14], out: 48, kernel: [3, 3], pads: [12, 12, 12, 12], dilations: [12, 12], group: 2 },
  // The 5×5 padded stride-1 conv: implicit im2col over a zero-padded copy.
  { name: '5x5 pad 2, 16 channels + Relu', input: [1, 16, 27, 27], out: 23, kernel: [5, 5], pads: [2, 2, 2, 2], activation: 'Relu' },
  // Small output planes (at most 196 positions, 3136 on AVX-512; conv_small_plane.h): positions as GEMM rows, channels
  // as its columns, from a channels-last copy. Channel counts off the 16-column and 8-channel
  // steps, the 196-position limit and one past it, stride 2 into 7×7, dilation with asymmetric
  // pads, a kernel of one column, groups, and each epilogue (the narrow deep case above goes this way too).
  { name: 'small plane 7x7 3x3 pad 1 + Relu', input: [1, 96, 7, 7], out: 40, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'Relu' },
  { name: 'small plane 14x14 (196 positions) + LeakyRelu', input: [1, 20, 14, 14], out: 33, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'LeakyRelu' },
  { name: 'small plane limit: 15x14 (210 positions) goes the default way except on AVX-512', input: [1, 20, 15, 14], out: 33, kernel: [3, 3], pads: [1, 1, 1, 1] },
  // On AVX-512 the A rows are read in place (no packed panels) and the small-plane path takes
  // planes up to 56×56 (3136 positions): position counts off the six-row tiles and the 16-position
  // transposes, channel counts off the 16-channel blocks, the limit and one past it.
  { name: 'small plane 28x28, 35 -> 70 channels + Relu', input: [1, 35, 28, 28], out: 70, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'Relu' },
  { name: 'small plane 56x56 (3136 positions, the AVX-512 limit) + Clip', input: [1, 17, 56, 56], out: 32, kernel: [3, 3], pads: [1, 1, 1, 1], activation: 'Clip' },
  { name: 'small plane 57x56 goes the default way', input: [1, 17, 57, 56], out: 32, kernel: [3, 3], pads: [1, 1, 1, 1] },
  { name: 'small plane stride 2 45x45 -> 23x23, 5x5 kernel', input: [1, 9, 45, 45], out: 49, kernel: [5, 5], strides: [2, 2], pads: [2, 2, 2, 2] },
  { name: 'small plane stride 2 13x13 -> 7x7 + Clip', input: [1, 24, 13, 13], out: 48, kernel: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], activation: 'Clip' },
  { name: 'small plane dilation 2, asymmetric pads', input: [1, 10, 9, 11], out: 34, kernel: [3, 3], dilations: [2, 2], pads: [2, 1, 0, 2] },
  { name: 'small plane 3x1 kernel, 25 channels (8-channel steps and one)', input: [1, 25, 5, 6], out: 36, kernel: [3, 1], pads: [1, 0, 1, 0] },
  { name: 'small plane grouped', input: [1, 16, 8, 8], out: 64, kernel: [3, 3], pads: [1, 1, 1, 1], group: 2 },
  // Pointwise convs into planes up to 7×7 where the A rows are read in place (AVX-512): a
  // MobileNetV3 expansion, 5×5 with channels off the 16-channel steps, ResNet's stride-2 1×1 into
  // 7×7 with its residual-free Relu, and an 8×8 plane that goes the default way.
  { name: 'small plane pointwise 7x7, 96 -> 576 + HardSwish', input: [1, 96, 7, 7], out: 576, kernel: [1, 1], activation: 'HardSwish' },
  { name: 'small plane pointwise 5x5, 64 -> 40', input: [1, 64, 5, 5], out: 40, kernel: [1, 1] },
  { name: 'small plane pointwise stride 2 13x13 -> 7x7, 72 -> 48 + Relu', input: [1, 72, 13, 13], out: 48, kernel: [1, 1], strides: [2, 2], activation: 'Relu' },
  { name: 'pointwise 8x8 (64 positions) goes the default way', input: [1, 64, 8, 8], out: 48, kernel: [1, 1] },
  // Grouped convs take it from 16 channels a group (RegNetX's), stride 1 and 2.
  { name: 'small plane grouped, 16 channels a group + Relu', input: [1, 48, 7, 7], out: 48, kernel: [3, 3], pads: [1, 1, 1, 1], group: 3, activation: 'Relu' },
  { name: 'small plane grouped, 16 -> 24 channels a group, stride 2', input: [1, 32, 14, 14], out: 48, kernel: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], group: 2 },
  // Groups under kSingleThreadMacs each, more than one a thread, over a million multiply-adds in
  // all: at 2 threads shared out whole (conv_prepacked.cc), through the small-plane path (16
  // channels a group) and the default one (ResNeXt's 8).
  { name: 'grouped, 10 groups of 16 shared out by group (small plane)', input: [1, 160, 7, 7], out: 160, kernel: [3, 3], pads: [1, 1, 1, 1], group: 10 },
  { name: 'grouped, 32 groups of 8 shared out by group + Relu', input: [1, 256, 14, 14], out: 256, kernel: [3, 3], pads: [1, 1, 1, 1], group: 32, activation: 'Relu' },
];

// 3×3 depthwise on small planes, read in place on AVX-512 (conv_depthwise_rows.h): flat9 (stride 1,
// output as wide as the input, up to 4096 outputs: one flat run of vectors across rows) and rows9
// (rows of up to 32 inputs and 16 outputs: two output rows a vector up to 16 inputs / 8 outputs,
// else one) and wide2 (column stride 2, longer rows of up to 256 outputs, 16 a vector). Planes 1×1 .. 16×16, the size limits either side, odd and non-square sizes, asymmetric
// pads, dilation, mixed strides, a channel multiplier and each activation; the other ISAs run the
// same cases through their own paths.
const dw = (name: string, input: number[], extra: Partial<ConvCase>): ConvCase => ({ name: `small depthwise ${name}`, input, out: input[1], kernel: [3, 3], group: input[1], ...extra });
const same = [1, 1, 1, 1];
const smallDepthwiseCases: ConvCase[] = [
  ...[1, 2, 3, 4, 5, 7, 8, 13, 14, 16].map((s) => dw(`same ${s}x${s}`, [1, 6, s, s], { pads: same })),
  dw('same 13x11 + Clip', [1, 9, 13, 11], { pads: same, activation: 'Clip' }),
  dw('same 32x32 + Relu', [1, 3, 32, 32], { pads: same, activation: 'Relu' }),
  dw('same 64x64 (4096 outputs, the flat limit) + Clip', [1, 2, 64, 64], { pads: same, activation: 'Clip' }),
  dw('same 33x32 (one output row a vector)', [1, 3, 33, 32], { pads: same }),
  dw('same 65x64 (past the flat limit)', [1, 2, 65, 64], { pads: same }),
  dw('same, rows shifted (pads 0 top, 2 bottom)', [1, 5, 9, 6], { pads: [0, 1, 2, 1] }),
  dw('same, dilation 2 + LeakyRelu', [1, 5, 9, 10], { pads: [2, 2, 2, 2], dilations: [2, 2], activation: 'LeakyRelu' }),
  dw('same, multiplier 2', [1, 4, 7, 7], { out: 8, pads: same }),
  ...[1, 2, 3, 5, 7, 14, 15, 16].map((s) => dw(`stride 2 ${s}x${s}`, [1, 6, s, s], { strides: [2, 2], pads: same })),
  dw('stride 2 14x14 + Clip (MobileNetV2 14 -> 7)', [1, 12, 14, 14], { strides: [2, 2], pads: same, activation: 'Clip' }),
  dw('stride 2 asymmetric pads 11x13', [1, 5, 11, 13], { strides: [2, 2], pads: [0, 1, 1, 0] }),
  dw('stride 2 dilation 2 pads 2 on 12x9', [1, 4, 12, 9], { strides: [2, 2], pads: [2, 2, 2, 2], dilations: [2, 2] }),
  dw('strides 1 x 2 on 9x15', [1, 4, 9, 15], { strides: [1, 2], pads: same }),
  dw('strides 2 x 1, no pads, on 10x9', [1, 4, 10, 9], { strides: [2, 1] }),
  dw('stride 1 no pads 9x10 + Relu', [1, 5, 9, 10], { activation: 'Relu' }),
  dw('stride 1 no pads 6x18 (one output row of 16 a vector)', [1, 5, 6, 18], {}),
  dw('stride 2 28x28 (one row a vector) + Clip', [1, 7, 28, 28], { strides: [2, 2], pads: same, activation: 'Clip' }),
  dw('stride 2 17x17, no pads (8 outputs, inputs past 16)', [1, 4, 17, 17], { strides: [2, 2] }),
  dw('stride 2 31x32 (32 inputs, 16 outputs)', [1, 3, 31, 32], { strides: [2, 2], pads: same }),
  dw('stride 2 33x33 (past the row limit: 16 outputs of a row a vector)', [1, 3, 33, 33], { strides: [2, 2], pads: same }),
  dw('stride 2 rows of 64 (two whole blocks) + Relu', [1, 4, 9, 64], { strides: [2, 2], pads: same, activation: 'Relu' }),
  dw('stride 2 rows of 35 -> 17, asymmetric pads', [1, 4, 11, 35], { strides: [2, 2], pads: [1, 0, 0, 2] }),
  dw('stride 2 dilation 2 on 14x50', [1, 3, 14, 50], { strides: [2, 2], pads: [2, 2, 2, 2], dilations: [2, 2] }),
  dw('strides 1 x 2 on 7x70 + Clip', [1, 3, 7, 70], { strides: [1, 2], pads: same, activation: 'Clip' }),
  dw('stride 2 112x112, 3 channels (MobileNetV2 112 -> 56)', [1, 3, 112, 112], { strides: [2, 2], pads: same }),
  dw('stride 2 rows of 515 -> 258 (past the wide limit)', [1, 2, 4, 515], { strides: [2, 2], pads: same }),
];

describe('small-plane depthwise convolutions vs ONNX Runtime', () => {
  for (const c of smallDepthwiseCases) {
    it.each([[1, 1], [3, 2]])(`${c.name} (batch %i, threads %i)`, async (batch, threads) => {
      const model = convModel(c);
      const dims = [batch, ...c.input.slice(1)];
      const input: CpuTensor = { name: 'input', datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1) };
      await expectCpuMatchesOrt(model, input, threads, 1e-3);
    });
  }
  // A NaN in the input reaches exactly the outputs whose taps cover it, as in ORT: the lanes the
  // in-place kernels load from outside a tap's window (other rows, other columns) never add in.
  it.each([
    dw('same 7x7', [1, 4, 7, 7], { pads: same }),
    dw('stride 2 14x14', [1, 4, 14, 14], { strides: [2, 2], pads: same }),
    dw('stride 2 rows of 64', [1, 4, 6, 64], { strides: [2, 2], pads: same }),
  ])('NaN inputs: $name', async (c) => {
    const model = convModel(c);
    const data = randomValues(c.input.reduce((a, b) => a * b, 1), seed++, 1);
    for (let i = 5; i < data.length; i += 37) data[i] = Number.NaN;
    const input: CpuTensor = { name: 'input', datatype: 'FP32', dims: c.input, data };
    const session = CpuSession.load(model, { intraOpThreads: 1 });
    try {
      const out = (await session.run([input]))[0].data as Float32Array;
      const ref = (await runOrt(model, [input])).output.data as Float32Array;
      const nan = (a: Float32Array) => Array.from(a, (v) => Number.isNaN(v));
      expect(nan(out)).toEqual(nan(ref));
      expect(nan(ref)).toContain(false);
      expect(maxRelativeError(out.map((v) => (Number.isNaN(v) ? 0 : v)), ref.map((v) => (Number.isNaN(v) ? 0 : v)))).toBeLessThan(1e-3);
    } finally {
      session.close();
    }
  });
});

// One session whose spatial size changes between runs: a small plane (the transposed form, which
// releases the GEMM panels), a large one (the panels packed again), then the small one again (both
// kept), each against ORT.
describe('convolution weights packed per path', () => {
  it('switch between the small-plane form and the GEMM panels as the input size changes', async () => {
    const g = new OnnxGraphBuilder('conv', 13);
    g.input('input', 'FLOAT', ['batch', 40, 'h', 'w']);
    g.initializer('w', 'FLOAT', [48, 40, 3, 3], randomValues(48 * 40 * 9, seed++, 0.3));
    g.initializer('b', 'FLOAT', [48], randomValues(48, seed++, 0.5));
    g.node('Conv', ['input', 'w', 'b'], ['y'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] }, 'conv');
    g.node('Relu', ['y'], ['output'], {}, 'relu');
    g.output('output', 'FLOAT', undefined);
    const model = path.join(dir, 'size_switch.onnx');
    writeFileSync(model, g.encode());
    const session = CpuSession.load(model, { intraOpThreads: 2 });
    try {
      for (const size of [7, 30, 7, 30]) {
        const dims = [1, 40, size, size];
        const input: CpuTensor = { name: 'input', datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1) };
        const out = (await session.run([input]))[0].data as Float32Array;
        const ref = (await runOrt(model, [input])).output.data as Float32Array;
        expect(maxRelativeError(out, ref), `${size}x${size}`).toBeLessThan(1e-3);
      }
    } finally {
      session.close();
    }
  });
});

describe('convolution paths vs ONNX Runtime', () => {
  for (const c of cases) {
    // At 2 threads images under about a million multiply-adds (op_util.h's kSingleThreadMacs)
    // each run on one thread: batch 1 on the caller, batch 3 and 4 shared image
    // by image. Larger ones: batch 1 across both threads, batch 4 image by image, batch 3 two
    // images by image and the third across both threads.
    it.each([[1, 1], [1, 2], [3, 2], [4, 2]])(`${c.name} (batch %i, threads %i)`, async (batch, threads) => {
      const model = convModel(c);
      const dims = [batch, ...c.input.slice(1)];
      const input: CpuTensor = { name: 'input', datatype: 'FP32', dims, data: randomValues(dims.reduce((a, b) => a * b, 1), seed++, 1) };
      // ONNX's own rtol: one deep conv of uniform random data has many outputs near zero whose
      // relative error against ORT (which sums in another order) is rounding noise around 1e-4;
      // an indexing or epilogue mistake is off by far more than this.
      await expectCpuMatchesOrt(model, input, threads, 1e-3);
    });
  }

  it('a Conv followed by Sigmoid and Mul (SiLU) applies it itself: both steps go', () => {
    const c = cases.find((k) => k.activation === 'Silu')!;
    const session = CpuSession.load(convModel(c));
    try {
      expect(session.info().operators).toMatchObject({ Conv: 1, Sigmoid: 1, Mul: 1 });
      expect(session.info().optimizedOperators).toEqual({ Conv: 1 });
    } finally {
      session.close();
    }
  });
});
