/**
 * Shapes the ONNX node tests do not use, against ONNX Runtime: each test's graph inputs are made
 * symbolic, and each dim of each FP32 input in turn grows by one (filled with fixed values in
 * (-0.9, 0.9)); where both answer, the engine's outputs must match ONNX Runtime's within 1e-3
 * relative (1e-4 absolute). Where only ONNX Runtime answers, the engine made a check ORT does not
 * (SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss with a target that no longer matches the
 * input) or met training mode; those are counted, not compared. Kernels with vector tails and blocked loops meet sizes here that the node tests'
 * fixed shapes never reach. Found this way: ConvTranspose took the odd unit of an output_shape's
 * padding off the wrong end.
 *
 * KNOWN lists the differences that are ONNX Runtime's or deliberate, each with its reason.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CpuSession, type CpuTensor } from '../../../helpers/cpu-session.js';
import { NODE_TESTS_DIR, nodeTests } from '../../../helpers/onnx-node-tests.js';
import { runOrt } from '../../../helpers/onnx-runtime.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gebe-grown-dims-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALIGN_CORNERS = 'align_corners with scales: the engine uses the real-valued resized length, as ONNX\'s reference does (onnx/onnx#2462); ONNX Runtime the integer one';
const KNOWN: Record<string, string> = {
  test_resize_downsample_scales_linear_align_corners: ALIGN_CORNERS,
  test_resize_downsample_scales_cubic_align_corners: ALIGN_CORNERS,
  test_onehot_with_axis: 'fractional negative FP32 indices: ONNX Runtime adds the depth before truncating, the engine truncates first (ONNX says neither)',
  test_onehot_with_negative_axis: 'fractional negative FP32 indices, as test_onehot_with_axis',
  test_stft_with_window: 'a complex signal (the last dim grown to 2): ONNX Runtime answers values such as 1e33',
  ...Object.fromEntries(['', '_double', '_seed'].flatMap((k) => [`test_bernoulli${k}`, `test_bernoulli${k}_expanded`])
    .map((t) => [t, 'random draws: the engine\'s generator is its own (random-operators.test.ts checks their distribution)'])),
};

function grown(t: CpuTensor, dims: number[]): CpuTensor {
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let q = 0; q < data.length; q++) data[q] = Math.sin(q * 12.9898 + 78.233) * 0.9;
  return { ...t, dims, data };
}

/** Where two outputs differ, or undefined. */
function difference(got: CpuTensor, want: { dims: readonly number[]; data: unknown }): string | undefined {
  if (String(got.dims) !== String(want.dims)) return `dims [${got.dims}] vs ONNX Runtime's [${want.dims}]`;
  const a = Array.from(got.data as ArrayLike<number | bigint>, Number), b = Array.from(want.data as ArrayLike<number | bigint>, Number);
  for (let i = 0; i < b.length; i++) {
    if (a[i] === b[i] || (Number.isNaN(a[i]) && Number.isNaN(b[i]))) continue;
    if (!(Math.abs(a[i] - b[i]) <= 1e-4 + 1e-3 * Math.abs(b[i]))) return `[${i}] ${a[i]} vs ONNX Runtime's ${b[i]}`;
  }
  return undefined;
}

describe.skipIf(!existsSync(NODE_TESTS_DIR))('grown dims on every ONNX node test, against ONNX Runtime', () => {
  it('answers as ONNX Runtime does with each FP32 input dim grown by one', async () => {
    let models = 0, compared = 0, refused = 0;
    const differences: string[] = [];
    for (const test of nodeTests()) {
      const file = path.join(dir, `${test.name}.onnx`);
      writeFileSync(file, test.model);
      let session: CpuSession;
      try {
        session = CpuSession.load(file, { intraOpThreads: 2, parameters: { allow_non_finite_inputs: 'true' } });
      } catch {
        continue;
      }
      try {
        const inputs = test.inputs(session.info().inputs);
        if (!inputs) continue;
        models++;
        for (let i = 0; i < inputs.length; i++) {
          if (inputs[i].datatype !== 'FP32') continue;
          for (let j = 0; j < inputs[i].dims.length; j++) {
            const dims = inputs[i].dims.slice();
            dims[j] += 1;
            const variant = inputs.map((t, q) => (q === i ? grown(t, dims) : t));
            let reference: Awaited<ReturnType<typeof runOrt>>;
            try {
              reference = await runOrt(file, variant);
            } catch {
              continue;  // ONNX Runtime refuses the shape: nothing to compare
            }
            let outputs: CpuTensor[];
            try {
              outputs = await session.run(variant);
            } catch {
              // Refused where ONNX Runtime answers: so far every such case was a check ORT does not
              // make (a loss whose target no longer matches its input, for one) or training mode.
              refused++;
              continue;
            }
            compared++;
            for (const out of outputs) {
              const want = reference[out.name];
              const problem = want ? difference(out, want) : undefined;
              if (problem && !KNOWN[test.name]) differences.push(`${test.name} input ${i} dim ${j}+1: ${out.name} ${problem}`);
            }
          }
        }
      } finally {
        session.close();
      }
    }
    console.log(`grown dims: ${compared} variants of ${models} node tests compared with ONNX Runtime, ${refused} refused where it answers`);
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(500);
  }, 600_000);
});
