/**
 * KServe v2 datatypes, the one table: names, element sizes, the native enum's codes (Triton's
 * inference.DataType numbers, as in native/src/engine/engine.h), config.pbtxt names, and the
 * typed-array views the codecs use to read and write tensor bytes without per-element work where
 * the wire already carries raw little-endian bytes. Shared by the executor, the server's codecs
 * and the clients of perf, infer and warmup.
 */
/** KServe v2 datatype names (TYPE_STRING in config.pbtxt travels as BYTES). */
export type Datatype =
  | 'BOOL' | 'UINT8' | 'UINT16' | 'UINT32' | 'UINT64'
  | 'INT8' | 'INT16' | 'INT32' | 'INT64'
  | 'FP16' | 'BF16' | 'FP32' | 'FP64' | 'BYTES';

/** Bytes per element; BYTES is variable-length (0 here). */
export const DATATYPE_SIZE: Readonly<Record<Datatype, number>> = {
  BOOL: 1, UINT8: 1, UINT16: 2, UINT32: 4, UINT64: 8,
  INT8: 1, INT16: 2, INT32: 4, INT64: 8,
  FP16: 2, BF16: 2, FP32: 4, FP64: 8, BYTES: 0,
};

export const DATATYPES = Object.keys(DATATYPE_SIZE) as Datatype[];

const BY_CODE: Readonly<Record<number, Datatype>> = {
  1: 'BOOL', 2: 'UINT8', 3: 'UINT16', 4: 'UINT32', 5: 'UINT64', 6: 'INT8', 7: 'INT16', 8: 'INT32',
  9: 'INT64', 10: 'FP16', 11: 'FP32', 12: 'FP64', 13: 'BYTES', 14: 'BF16',
};

/** The KServe name of a native datatype code; undefined for an unknown code. */
export function datatypeFromCode(code: number): Datatype | undefined {
  return BY_CODE[code];
}

/** Bytes per element; 0 for BYTES (variable length). */
export function elementSize(datatype: Datatype): number {
  return DATATYPE_SIZE[datatype];
}

export function isDatatype(value: unknown): value is Datatype {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(DATATYPE_SIZE, value);
}

/** IEEE half (or bfloat16) bits → number (JSON and text have no 16-bit floats). */
export function halfToNumber(bits: number, bf16: boolean): number {
  if (bf16) return new Float32Array(new Uint32Array([bits << 16]).buffer)[0]!;
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

/** Datatypes that JSON cannot carry (no JSON number maps to them exactly). */
export function isBinaryOnly(datatype: Datatype): boolean {
  return datatype === 'FP16' || datatype === 'BF16';
}

const CODE_OF = Object.fromEntries(Object.entries(BY_CODE).map(([code, name]) => [name, Number(code)])) as Readonly<Record<Datatype, number>>;

/** The native datatype code of a config.pbtxt TYPE_* name; undefined for TYPE_INVALID or an unknown name. */
export function configTypeCode(type: string): number | undefined {
  const datatype = datatypeFromConfig(type);
  return datatype === undefined ? undefined : CODE_OF[datatype];
}

/** config.pbtxt TYPE_* name → KServe datatype (TYPE_STRING travels as BYTES). */
export function datatypeFromConfig(type: string): Datatype | undefined {
  if (type === 'TYPE_STRING') return 'BYTES';
  const name = type.startsWith('TYPE_') ? type.slice(5) : type;
  return isDatatype(name) && name !== 'BYTES' ? name : undefined;
}

export type NumericArray =
  | Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array
  | Float32Array | Float64Array | BigInt64Array | BigUint64Array;

/**
 * A typed array over `bytes` for a fixed-size datatype (FP16/BF16 as their raw Uint16 bits).
 * A view when the bytes are aligned (the usual case), otherwise an aligned copy.
 */
export function typedView(datatype: Exclude<Datatype, 'BYTES'>, bytes: Uint8Array): NumericArray {
  const size = DATATYPE_SIZE[datatype];
  let src = bytes;
  // Uint8Array's slice copies (Buffer's would not).
  if (size > 1 && bytes.byteOffset % size !== 0) src = Uint8Array.prototype.slice.call(bytes);
  const { buffer, byteOffset } = src;
  const n = src.byteLength / size;
  switch (datatype) {
    case 'BOOL': case 'UINT8': return new Uint8Array(buffer, byteOffset, n);
    case 'INT8': return new Int8Array(buffer, byteOffset, n);
    case 'UINT16': case 'FP16': case 'BF16': return new Uint16Array(buffer, byteOffset, n);
    case 'INT16': return new Int16Array(buffer, byteOffset, n);
    case 'UINT32': return new Uint32Array(buffer, byteOffset, n);
    case 'INT32': return new Int32Array(buffer, byteOffset, n);
    case 'UINT64': return new BigUint64Array(buffer, byteOffset, n);
    case 'INT64': return new BigInt64Array(buffer, byteOffset, n);
    case 'FP32': return new Float32Array(buffer, byteOffset, n);
    case 'FP64': return new Float64Array(buffer, byteOffset, n);
  }
}

/** A fresh zeroed typed array of `count` elements. */
export function allocTyped(datatype: Exclude<Datatype, 'BYTES'>, count: number): NumericArray {
  return typedView(datatype, new Uint8Array(count * DATATYPE_SIZE[datatype]));
}

export function bytesOf(array: NumericArray): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}
