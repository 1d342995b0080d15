/**
 * Pieces the fusion tests share (conv-pool-fusion.test.ts, conv-residual-fusion.test.ts): a seed
 * taken from a case's name, so a fused model and its unfused twin hold the same weights; one run
 * of a model with its optimised operator counts; and an exact comparison of two FP32 tensors.
 */
import { CpuSession, type CpuTensor } from './cpu-session.js';

/** A weight seed from a name: the same name, the same weights. */
export function seedOf(name: string): number {
  let seed = 0;
  for (const ch of name) seed = (seed * 31 + ch.charCodeAt(0)) % 100_000;
  return seed;
}

/** The optimised program's operator counts and the output named 'output' of one run. */
export async function outputOf(model: string, feeds: CpuTensor[], threads: number): Promise<{ ops: Record<string, number>; out: CpuTensor }> {
  const session = CpuSession.load(model, { intraOpThreads: threads });
  try {
    const outputs = await session.run(feeds);
    return { ops: session.info().optimizedOperators, out: outputs.find((o) => o.name === 'output')! };
  } finally {
    session.close();
  }
}

/**
 * Where two FP32 tensors differ bit for bit: the count and the first index (a whole-array toEqual
 * would have vitest diff thousands of elements).
 */
export function bitDifferences(a: CpuTensor, b: CpuTensor): { count: number; first: number } {
  const fa = a.data as Float32Array, fb = b.data as Float32Array;
  const x = new Uint32Array(fa.buffer, fa.byteOffset, fa.length), y = new Uint32Array(fb.buffer, fb.byteOffset, fb.length);
  let count = Math.abs(x.length - y.length), first = count ? Math.min(x.length, y.length) : -1;
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    if (first < 0) first = i;
    count++;
  }
  return { count, first };
}
