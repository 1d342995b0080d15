/**
 * Datatype facts shared by validation and the native boundary: KServe names, the native enum
 * (Triton's inference.DataType numbers, as in native/src/engine/engine.h) and element sizes.
 */
import type { DataTypeName } from '../config/model-config.js';
import type { Datatype } from './types.js';

const byCode: Record<number, Datatype> = {
  1: 'BOOL', 2: 'UINT8', 3: 'UINT16', 4: 'UINT32', 5: 'UINT64', 6: 'INT8', 7: 'INT16', 8: 'INT32',
  9: 'INT64', 10: 'FP16', 11: 'FP32', 12: 'FP64', 13: 'BYTES', 14: 'BF16',
};


const sizes: Record<Datatype, number> = {
  BOOL: 1, UINT8: 1, INT8: 1, UINT16: 2, INT16: 2, FP16: 2, BF16: 2,
  UINT32: 4, INT32: 4, FP32: 4, UINT64: 8, INT64: 8, FP64: 8, BYTES: 0,
};

/** The KServe name of a native datatype code; undefined for an unknown code. */
export function datatypeFromCode(code: number): Datatype | undefined {
  return byCode[code];
}

/** Bytes per element; 0 for BYTES (variable length). */
export function elementSize(datatype: Datatype): number {
  return sizes[datatype];
}

/** config.pbtxt TYPE_FP32 → FP32; TYPE_STRING travels as BYTES. */
export function datatypeFromConfig(type: DataTypeName): Datatype | undefined {
  if (type === 'TYPE_STRING') return 'BYTES';
  if (type === 'TYPE_INVALID') return undefined;
  const name = type.slice('TYPE_'.length) as Datatype;
  return name in sizes ? name : undefined;
}
