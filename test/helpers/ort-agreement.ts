/**
 * Runs one ONNX model on the cpu engine and on ONNX Runtime with the same inputs and thread count,
 * and asserts that every output agrees: same dims; floats within `rtol` relative (FP16 within its
 * rounding, 1e-3), or exactly when `rtol` is 0; integers and booleans exactly. NaN and ±Inf must
 * sit at the same elements in both (operators that propagate them are checked for it). Each test
 * file gets its own temporary directory for the model files, removed after the file's tests.
 *
 * Where ONNX Runtime cannot run the engine's graph as it is, `twin` gives it an equivalent one
 * with the same output names instead: onnxruntime-node cannot feed or return BF16 tensors (a
 * model with a BF16 graph input or output fails to load: "Unsupported data type: 16"), although
 * ONNX Runtime runs BF16 inside a graph, so a BF16 model's twin has FP32 edges with Casts to and
 * from BF16 just inside them, and the engine's BF16 outputs are compared as numbers with the
 * twin's FP32 ones; an operator its CPU provider lacks for a type can run on a wider one between
 * Casts where that cannot change the result.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { CpuSession, type CpuTensor } from './cpu-session.js';
import { fromBFloat16, fromHalf } from './half.js';
import { maxRelativeError, runOrt } from './onnx-runtime.js';

/** The model and inputs ONNX Runtime runs instead of the engine's (see the file comment). */
export interface OrtTwin {
  model: Uint8Array;
  inputs: CpuTensor[];
}

export type Agree = (model: Uint8Array, inputs: CpuTensor[], threads: number, rtol?: number, twin?: OrtTwin) => Promise<void>;

/**
 * Expects two float arrays to agree: the same non-finite values (NaN, +Inf, -Inf) at the same
 * elements, and the finite rest within `rtol` by maxRelativeError, or identical (signed zeros
 * included) when `rtol` is 0. The finite elements are compared on their own because one infinite
 * reference value would otherwise make maxRelativeError's floor infinite and hide every error.
 */
export function expectFloatsAgree(got: ArrayLike<number>, want: ArrayLike<number>, rtol: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  if (rtol === 0) {
    expect(Array.from(got), what).toEqual(Array.from(want));
    return;
  }
  const nonFinite = (a: ArrayLike<number>) => Array.from(a).flatMap((v, i) => (Number.isFinite(v) ? [] : [[i, v]]));
  expect(nonFinite(got), `${what}: non-finite elements`).toEqual(nonFinite(want));
  const finite = Array.from(want).flatMap((_, i) => (Number.isFinite(want[i]) ? [i] : []));
  expect(maxRelativeError(finite.map((i) => got[i]), finite.map((i) => want[i])), what).toBeLessThan(rtol);
}

/** Call at a test file's top level; returns `agree` for that file's tests. */
export function ortAgreement(prefix: string): Agree {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let counter = 0;
  const save = (model: Uint8Array) => {
    const file = path.join(dir, `m${counter++}.onnx`);
    writeFileSync(file, model);
    return file;
  };
  return async (model, inputs, threads, rtol = 1e-4, twin) => {
    const file = save(model);
    const session = CpuSession.load(file, { intraOpThreads: threads });
    try {
      const outputs = await session.run(inputs);
      const reference = twin ? await runOrt(save(twin.model), twin.inputs, threads) : await runOrt(file, inputs, threads);
      for (const out of outputs) {
        const ref = reference[out.name];
        expect(ref, `ONNX Runtime's output ${out.name}`).toBeDefined();
        expect(out.dims, out.name).toEqual(ref.dims.map(Number));
        if (out.datatype === 'FP16') {
          expectFloatsAgree(fromHalf(out.data as Uint16Array), fromHalf(ref.data as Uint16Array), 1e-3, out.name);
        } else if (out.datatype === 'BF16') {
          expect(ref.type, `${out.name}: the twin's output`).toBe('float32');
          expectFloatsAgree(fromBFloat16(out.data as Uint16Array), ref.data as Float32Array, rtol, out.name);
        } else if (out.datatype === 'FP32' || out.datatype === 'FP64') {
          expectFloatsAgree(out.data as Float32Array, ref.data as Float32Array, rtol, out.name);
        } else {
          expect(Array.from(out.data as Int32Array, String), out.name).toEqual(Array.from(ref.data as Int32Array, String));
        }
      }
    } finally {
      session.close();
    }
  };
}
