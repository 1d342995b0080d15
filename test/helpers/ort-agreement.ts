/**
 * Runs one ONNX model on the cpu engine and on ONNX Runtime with the same inputs and thread count,
 * and asserts that every output agrees: same dims; floats within `rtol` relative (FP16 within its
 * rounding, 1e-3), or exactly when `rtol` is 0; integers and booleans exactly. NaN and ±Inf must
 * sit at the same elements in both (operators that propagate them are checked for it). Each test
 * file gets its own temporary directory for the model files, removed after the file's tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { CpuSession, type CpuTensor } from './cpu-session.js';
import { fromHalf } from './half.js';
import { maxRelativeError, runOrt } from './onnx-runtime.js';

export type Agree = (model: Uint8Array, inputs: CpuTensor[], threads: number, rtol?: number) => Promise<void>;

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
  return async (model, inputs, threads, rtol = 1e-4) => {
    const file = path.join(dir, `m${counter++}.onnx`);
    writeFileSync(file, model);
    const session = CpuSession.load(file, { intraOpThreads: threads });
    try {
      const outputs = await session.run(inputs);
      const reference = await runOrt(file, inputs, threads);
      for (const out of outputs) {
        const ref = reference[out.name];
        expect(out.dims, out.name).toEqual(ref.dims.map(Number));
        if (out.datatype === 'FP16') {
          expectFloatsAgree(fromHalf(out.data as Uint16Array), fromHalf(ref.data as Uint16Array), 1e-3, out.name);
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
