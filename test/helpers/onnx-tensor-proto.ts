/** Decodes ONNX TensorProto files (the conformance data's input_*.pb / output_*.pb) with protobufjs. */
import { readFileSync } from 'node:fs';
import { onnxRoot } from '../../src/core/model/onnx-builder.js';
import type { CpuDatatype, CpuTypedArray } from '../../src/core/executor/cpu-session.js';

export interface DecodedTensor {
  name: string;
  /** ONNX element type number. */
  onnxType: number;
  /** The cpu engine's datatype, or undefined when the engine has no such type. */
  datatype?: CpuDatatype;
  dims: number[];
  data?: CpuTypedArray;
}

const byOnnxType: Record<number, { datatype: CpuDatatype; bytes: number }> = {
  1: { datatype: 'FP32', bytes: 4 },
  6: { datatype: 'INT32', bytes: 4 },
  7: { datatype: 'INT64', bytes: 8 },
  9: { datatype: 'BOOL', bytes: 1 },
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
    const copy = new Uint8Array(raw).buffer;
    result.data = kind.datatype === 'FP32' ? new Float32Array(copy) : kind.datatype === 'INT32' ? new Int32Array(copy)
      : kind.datatype === 'INT64' ? new BigInt64Array(copy) : new Uint8Array(copy);
  } else if (kind.datatype === 'FP32') {
    result.data = Float32Array.from((t.floatData as number[]) ?? []);
  } else if (kind.datatype === 'INT64') {
    result.data = BigInt64Array.from(((t.int64Data as string[]) ?? []).map((v) => BigInt(v)));
  } else if (kind.datatype === 'INT32') {
    result.data = Int32Array.from((t.int32Data as number[]) ?? []);
  } else {
    result.data = Uint8Array.from(((t.int32Data as number[]) ?? []).map((v) => (v ? 1 : 0)));
  }
  if (result.data.length !== count) throw new Error(`${path}: ${result.data.length} values for dims [${dims.join(', ')}]`);
  return result;
}
