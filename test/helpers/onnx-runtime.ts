/** Runs a model through onnxruntime-node (the reference) and compares results. */
import * as ort from 'onnxruntime-node';
import { expect } from 'vitest';
import { CpuSession, type CpuTensor } from './cpu-session.js';
import { ortTypes } from './ort-types.js';



export async function runOrt(model: string | Uint8Array, inputs: CpuTensor[], threads = 1): Promise<Record<string, ort.Tensor>> {
  const session = await ort.InferenceSession.create(model as string, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const feeds: Record<string, ort.Tensor> = {};
  for (const t of inputs) feeds[t.name] = new ort.Tensor(ortTypes[t.datatype] as 'float32', t.data as Float32Array, t.dims);
  const result = await session.run(feeds);
  await session.release();
  return result;
}

/**
 * Largest |a - b| / max(|b|, floor) over two float arrays; throws when lengths differ. The floor
 * defaults to 1e-3 × the reference's largest magnitude: elements a thousand times smaller than
 * the tensor's scale carry rounding noise from the rest of the network, not a relative signal.
 */
export function maxRelativeError(a: ArrayLike<number>, b: ArrayLike<number>, floor?: number): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  if (floor === undefined) {
    let scale = 0;
    for (let i = 0; i < b.length; i++) scale = Math.max(scale, Math.abs(b[i]));
    floor = Math.max(1e-3 * scale, 1e-12);
  }
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const err = Math.abs(a[i] - b[i]) / Math.max(Math.abs(b[i]), floor);
    if (!(err <= worst)) worst = Number.isNaN(err) ? Infinity : err;
  }
  return worst;
}

/**
 * Runs a one-input, one-output model (output named "output") on gebe's cpu engine with `threads`
 * intra-op threads and on ONNX Runtime, and expects the same dims and a largest relative error
 * below `rtol`.
 */
export async function expectCpuMatchesOrt(model: string, input: CpuTensor, threads: number, rtol: number): Promise<void> {
  const session = CpuSession.load(model, { intraOpThreads: threads });
  try {
    const [out] = await session.run([input]);
    const ref = (await runOrt(model, [input])).output;
    expect(out.dims).toEqual(ref.dims.map(Number));
    expect(maxRelativeError(out.data as Float32Array, ref.data as Float32Array)).toBeLessThan(rtol);
  } finally {
    session.close();
  }
}
