/** IEEE FP16 and BF16 bit patterns ↔ numbers, for building FP16/BF16 inputs and reading such outputs in tests. */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Rounds to nearest even, like F16C's vcvtps2ph (finite, normal-range inputs; enough for test data). */
export function toHalf(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    f32[0] = values[i];
    const x = u32[0], sign = (x >>> 16) & 0x8000, exp = ((x >>> 23) & 0xff) - 112, mant = x & 0x7fffff;
    if (exp <= 0) { out[i] = sign; continue; }
    let h = (exp << 10) | (mant >>> 13);
    const rest = mant & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++;
    out[i] = sign | h;
  }
  return out;
}

export function fromHalf(bits: ArrayLike<number>): Float32Array {
  return Float32Array.from(bits, (h) => {
    const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp === 0x1f) return mant ? NaN : sign * Infinity;
    return exp === 0 ? sign * mant * 2 ** -24 : sign * (1 + mant / 1024) * 2 ** (exp - 15);
  });
}

/** BF16 bit patterns of `values`, truncated (the high half of each FP32): exact BF16 inputs for tests. */
export function truncateToBFloat16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    f32[0] = values[i];
    out[i] = u32[0] >>> 16;
  }
  return out;
}

/** BF16 bit patterns → numbers (exact: a BF16 is the high half of an FP32). */
export function fromBFloat16(bits: ArrayLike<number>): Float32Array {
  return Float32Array.from(bits, (b) => {
    u32[0] = b << 16;
    return f32[0];
  });
}
