/**
 * Runs one ONNX model on the cpu engine and on ONNX Runtime with the same inputs and thread count,
 * and asserts that every output agrees: same dims; floats within `rtol` relative (FP16 within its
 * rounding, 1e-3); integers and booleans exactly. Each test file gets its own temporary directory
 * for the model files, removed after the file's tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { CpuSession, type CpuTensor } from './cpu-session.js';
import { fromHalf } from './half.js';
import { maxRelativeError, runOrt } from './onnx-runtime.js';

export type Agree = (model: Uint8Array, inputs: CpuTensor[], threads: number, rtol?: number) => Promise<void>;

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
          expect(maxRelativeError(fromHalf(out.data as Uint16Array), fromHalf(ref.data as Uint16Array)), out.name).toBeLessThan(1e-3);
        } else if (out.datatype === 'FP32' || out.datatype === 'FP64') {
          expect(maxRelativeError(Array.from(out.data as Float32Array), Array.from(ref.data as Float32Array)), out.name).toBeLessThan(rtol);
        } else {
          expect(Array.from(out.data as Int32Array, String), out.name).toEqual(Array.from(ref.data as Int32Array, String));
        }
      }
    } finally {
      session.close();
    }
  };
}
