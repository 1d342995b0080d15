/**
 * Real PyTorch exports (scripts/make-torch-fixtures.py writes them: torch.onnx.export's
 * TorchScript exporter at opset 17, and the *_dynamo files from the exporter it uses by default
 * since torch 2.9, at its opset 20, or at 23 where a file's name says so) through the cpu engine and
 * ONNX Runtime: the everyday models a new user tries first.
 */
import { describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { randomValues } from '../../../helpers/onnx-builder.js';
import { fromHalf, toHalf } from '../../../helpers/half.js';
import { fixtureModelPath } from '../../../helpers/onnx-fixtures.js';
import { maxRelativeError, runOrt } from '../../../helpers/onnx-runtime.js';

const model = (name: string) => fixtureModelPath(`torch/${name}.onnx`);

async function agree(file: string, input: CpuTensor | CpuTensor[], threads: number, rtol: number): Promise<void> {
  const inputs = Array.isArray(input) ? input : [input];
  const session = CpuSession.load(file, { intraOpThreads: threads });
  try {
    const [out] = await session.run(inputs);
    const ref = (await runOrt(file, inputs, threads)).y;
    expect(out.dims).toEqual(ref.dims.map(Number));
    expect(out.datatype).toBe(inputs[0].datatype === 'INT64' ? 'FP32' : inputs[0].datatype);
    const got = out.datatype === 'FP16' ? fromHalf(out.data as Uint16Array) : (out.data as Float32Array);
    const want = out.datatype === 'FP16' ? fromHalf(ref.data as Uint16Array) : (ref.data as Float32Array);
    expect(maxRelativeError(got, want)).toBeLessThan(rtol);
  } finally {
    session.close();
  }
}

describe('PyTorch exports vs ONNX Runtime', () => {
  it.each([1, 2])('nn.TransformerEncoder, seq 32, d 64 (its Mod of two constants folds away) (threads=%i)', async (threads) => {
    const session = CpuSession.load(model('transformer_encoder'));
    expect(session.info().operators.Mod).toBe(2);
    expect(session.info().optimizedOperators.Mod).toBeUndefined();
    // Every shape computation of the attention reshapes folds for a concrete input shape.
    expect(session.compile({ x: [1, 32, 64] }).steps.dynamic).toBe(0);
    session.close();
    await agree(model('transformer_encoder'), { name: 'x', datatype: 'FP32', dims: [1, 32, 64], data: randomValues(32 * 64, 5, 1) }, threads, 1e-4);
  });

  it.each([1, 2])('model.half() CNN: FP16 input, weights and output (threads=%i)', async (threads) => {
    const x = toHalf(randomValues(2 * 3 * 32 * 32, 6, 1));
    // ORT computes these operators in FP32 between FP16 casts too; what differs is FP16 rounding of the output.
    await agree(model('cnn_fp16'), { name: 'x', datatype: 'FP16', dims: [2, 3, 32, 32], data: x }, threads, 2e-3);
  });

  it.each([1, 2])('nn.LSTM + bidirectional nn.GRU (threads=%i)', async (threads) => {
    await agree(model('lstm_gru'), { name: 'x', datatype: 'FP32', dims: [10, 2, 16], data: randomValues(10 * 2 * 16, 7, 1) }, threads, 1e-4);
    await agree(model('lstm_gru'), { name: 'x', datatype: 'FP32', dims: [3, 4, 16], data: randomValues(3 * 4 * 16, 8, 1) }, threads, 1e-4);
  });

  it.each([1, 2])('dynamo export: EfficientNet blocks (5×5 depthwise, squeeze-and-excitation, SiLU) (threads=%i)', async (threads) => {
    const session = CpuSession.load(model('efficient_mini_dynamo'));
    // Every SiLU (Sigmoid, then Mul by its input) and the excitation's Sigmoid go into the Conv
    // before them; the two Muls left are the excitations' scales.
    expect(session.info().operators).toMatchObject({ Sigmoid: 9, Mul: 9 });
    expect(session.info().optimizedOperators.Sigmoid).toBeUndefined();
    expect(session.info().optimizedOperators.Mul).toBe(2);
    session.close();
    await agree(model('efficient_mini_dynamo'), { name: 'x', datatype: 'FP32', dims: [1, 3, 32, 32], data: randomValues(3 * 32 * 32, 12, 1) }, threads, 1e-4);
  });

  it.each([1, 2])('dynamo export: a GPT-2-style decoder (causal attention, Gelu with approximate=tanh) (threads=%i)', async (threads) => {
    const ids = BigInt64Array.from({ length: 32 }, (_, i) => BigInt((i * 37) % 100));
    await agree(model('gpt_mini_dynamo'), { name: 'x', datatype: 'INT64', dims: [2, 16], data: ids }, threads, 1e-4);
  });

  it.each([1, 2])('dynamo export at opset 23: a Llama block (RMSNormalization, RotaryEmbedding, grouped-query causal Attention) (threads=%i)', async (threads) => {
    const session = CpuSession.load(model('llama_mini_opset23'));
    expect(session.info().operators).toMatchObject({ Attention: 1, RMSNormalization: 2, RotaryEmbedding: 2 });
    session.close();
    const ids = BigInt64Array.from({ length: 32 }, (_, i) => BigInt((i * 37) % 100));
    // Positions 0-15 for the first sequence and 5-20 for the second (a continued one).
    const pos = BigInt64Array.from({ length: 32 }, (_, i) => BigInt((i % 16) + (i < 16 ? 0 : 5)));
    await agree(model('llama_mini_opset23'), [{ name: 'ids', datatype: 'INT64', dims: [2, 16], data: ids },
      { name: 'pos', datatype: 'INT64', dims: [2, 16], data: pos }], threads, 1e-4);
  });

  it.each([1, 2])('dynamo export: a spatial transformer (affine_grid, grid_sample) then nn.Unfold/nn.Fold (Col2Im) and nn.LPPool2d (threads=%i)', async (threads) => {
    const session = CpuSession.load(model('spatial_transformer_dynamo'));
    expect(session.info().operators).toMatchObject({ Col2Im: 1, GridSample: 1 });
    session.close();
    // grid_sample scales the last bit of a sampling position to about 2e-6 of a value (vision-ops.test.ts).
    await agree(model('spatial_transformer_dynamo'), { name: 'x', datatype: 'FP32', dims: [2, 1, 28, 28], data: randomValues(1568, 14, 1) }, threads, 1e-3);
  });

  it.each([1, 2])('dynamo export: MaxViT-style window attention written with torch.einsum (threads=%i)', async (threads) => {
    await agree(model('window_attention_dynamo'), { name: 'x', datatype: 'FP32', dims: [1, 4, 16, 32], data: randomValues(4 * 16 * 32, 13, 1) }, threads, 1e-4);
  });

  it.each([1, 2])('a 3-D conv net: Conv3d, MaxPool3d, ConvTranspose3d, AvgPool3d (threads=%i)', async (threads) => {
    await agree(model('conv3d'), { name: 'x', datatype: 'FP32', dims: [1, 1, 8, 8, 8], data: randomValues(512, 9, 1) }, threads, 1e-4);
  });
});
