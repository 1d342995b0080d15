/** Decodes ONNX TensorProto files (the conformance data's input_*.pb / output_*.pb) with protobufjs. */
import { readFileSync } from 'node:fs';
import { onnxRoot } from './onnx-builder.js';
import type { CpuDatatype, CpuTypedArray } from './cpu-session.js';

export interface DecodedTensor {
  name: string;
  /** ONNX element type number. */
  onnxType: number;
  /** The cpu engine's datatype, or undefined when the engine has no such type. */
  datatype?: CpuDatatype;
  dims: number[];
  data?: CpuTypedArray;
}

type ArrayCtor = { new (buffer: ArrayBuffer): CpuTypedArray; from(values: ArrayLike<unknown>): CpuTypedArray };

// Where each type's values sit when they are not in raw_data (TensorProto's field rules).
const byOnnxType: Record<number, { datatype: CpuDatatype; ctor: ArrayCtor; field: 'floatData' | 'int32Data' | 'int64Data' | 'doubleData' | 'uint64Data' }> = {
  1: { datatype: 'FP32', ctor: Float32Array as unknown as ArrayCtor, field: 'floatData' },
  2: { datatype: 'UINT8', ctor: Uint8Array as unknown as ArrayCtor, field: 'int32Data' },
  3: { datatype: 'INT8', ctor: Int8Array as unknown as ArrayCtor, field: 'int32Data' },
  4: { datatype: 'UINT16', ctor: Uint16Array as unknown as ArrayCtor, field: 'int32Data' },
  5: { datatype: 'INT16', ctor: Int16Array as unknown as ArrayCtor, field: 'int32Data' },
  6: { datatype: 'INT32', ctor: Int32Array as unknown as ArrayCtor, field: 'int32Data' },
  7: { datatype: 'INT64', ctor: BigInt64Array as unknown as ArrayCtor, field: 'int64Data' },
  9: { datatype: 'BOOL', ctor: Uint8Array as unknown as ArrayCtor, field: 'int32Data' },
  10: { datatype: 'FP16', ctor: Uint16Array as unknown as ArrayCtor, field: 'int32Data' },
  11: { datatype: 'FP64', ctor: Float64Array as unknown as ArrayCtor, field: 'doubleData' },
  12: { datatype: 'UINT32', ctor: Uint32Array as unknown as ArrayCtor, field: 'uint64Data' },
  13: { datatype: 'UINT64', ctor: BigUint64Array as unknown as ArrayCtor, field: 'uint64Data' },
  16: { datatype: 'BF16', ctor: Uint16Array as unknown as ArrayCtor, field: 'int32Data' },
};

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v && typeof v === 'object' && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return Number(v);
}

export function readTensorProto(path: string): DecodedTensor {
  const TensorProto = onnxRoot().lookupType('onnx.TensorProto');
  const t = TensorProto.toObject(TensorProto.decode(readFileSync(path)), { longs: String, bytes: Buffer }) as Record<string, unknown>;
  const dims = ((t.dims as unknown[]) ?? []).map(toNumber);
  const onnxType = toNumber(t.dataType ?? 0);
  const kind = byOnnxType[onnxType];
  const result: DecodedTensor = { name: (t.name as string) ?? '', onnxType, dims };
  if (!kind) return result;
  result.datatype = kind.datatype;
  const count = dims.reduce((a, b) => a * b, 1);
  const raw = t.rawData as Buffer | undefined;
  if (raw && raw.length > 0) {
    result.data = new kind.ctor(new Uint8Array(raw).buffer);
  } else {
    const values = ((t[kind.field] as unknown[]) ?? []);
    const big = kind.datatype === 'INT64' || kind.datatype === 'UINT64';
    result.data = kind.ctor.from(values.map((v) => (big ? BigInt(v as string) : kind.datatype === 'BOOL' ? (v ? 1 : 0) : Number(v))));
  }
  if (result.data.length !== count) throw new Error(`${path}: ${result.data.length} values for dims [${dims.join(', ')}]`);
  return result;
}
