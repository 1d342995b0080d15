/**
 * Triton's classification extension: an output requested with `classification: k` (HTTP) or
 * `class_count: k` (gRPC) comes back as BYTES, per batch entry the k largest values in descending
 * order, each "value:index" or "value:index:label" with the label from the output's
 * label_filename (one label per line). Values print as Triton prints them (std::fixed with 9
 * digits for floating point, plain integers otherwise); ties keep the lower index first.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ModelConfig } from '../config/model-config.js';
import type { Datatype, InferTensor } from '../executor/types.js';
import { resolveInside } from '../repository/inside.js';
import { elementSize } from '../kserve/datatypes.js';
import { ProtocolError } from '../kserve/protocol-error.js';

/** The most bytes a label file may have (it is read whole, at load). */
export const MAX_LABEL_FILE_BYTES = 16 * 1024 * 1024;

/** Per output name, its labels (index → label), for the outputs whose config has a label_filename. */
export type OutputLabels = Map<string, string[]>;

/** Reads the label files a config names, relative to the model directory; throws naming the file. */
export function readOutputLabels(modelDir: string, config: ModelConfig): OutputLabels {
  const labels: OutputLabels = new Map();
  for (const output of config.output ?? []) {
    if (!output.label_filename) continue;
    const where = `output '${output.name}' label_filename "${output.label_filename}"`;
    const inside = resolveInside(modelDir, modelDir, output.label_filename);
    if (!inside.ok) throw new Error(`${where} is ${inside.reason === 'outside' ? 'outside the model directory' : 'missing'}`);
    const file = path.join(modelDir, output.label_filename);
    const size = fs.statSync(file).size;
    if (size > MAX_LABEL_FILE_BYTES) throw new Error(`${where} has ${size} bytes, more than the ${MAX_LABEL_FILE_BYTES} a label file may have`);
    labels.set(output.name, fs.readFileSync(file, 'utf8').split(/\r?\n/).filter((line, i, all) => i < all.length - 1 || line !== ''));
  }
  return labels;
}

const READERS: Partial<Record<Datatype, (view: DataView, offset: number) => number | bigint>> = {
  UINT8: (v, o) => v.getUint8(o), UINT16: (v, o) => v.getUint16(o, true), UINT32: (v, o) => v.getUint32(o, true), UINT64: (v, o) => v.getBigUint64(o, true),
  INT8: (v, o) => v.getInt8(o), INT16: (v, o) => v.getInt16(o, true), INT32: (v, o) => v.getInt32(o, true), INT64: (v, o) => v.getBigInt64(o, true),
  FP32: (v, o) => v.getFloat32(o, true), FP64: (v, o) => v.getFloat64(o, true),
};

/** The classification of one output tensor; `batched`: its first dimension is the batch. */
export function classify(tensor: InferTensor, k: number, labels: string[] | undefined, batched: boolean): InferTensor {
  const read = READERS[tensor.datatype];
  if (!read) throw ProtocolError.badRequest(`class result not available for output '${tensor.name}' due to unsupported type '${tensor.datatype}'`);
  const size = elementSize(tensor.datatype);
  const batch = batched ? (tensor.shape[0] ?? 1) : 1;
  const total = tensor.data.byteLength / size;
  const perEntry = batch > 0 ? total / batch : 0;
  const count = Math.min(k, perEntry);
  const view = new DataView(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  const float = tensor.datatype === 'FP32' || tensor.datatype === 'FP64';
  const strings: Buffer[] = [];
  for (let b = 0; b < batch; b++) {
    const values = Array.from({ length: perEntry }, (_, i) => read(view, (b * perEntry + i) * size));
    const order = values.map((_, i) => i).sort((x, y) => (values[y]! > values[x]! ? 1 : values[y]! < values[x]! ? -1 : x - y));
    for (const index of order.slice(0, count)) {
      const v = values[index]!;
      const label = labels?.[index];
      const text = `${float ? fixed9(v as number) : String(v)}:${index}${label ? `:${label}` : ''}`;
      const bytes = Buffer.from(text, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.byteLength);
      strings.push(length, bytes);
    }
  }
  const data = Buffer.concat(strings);
  return { name: tensor.name, datatype: 'BYTES', shape: batched ? [batch, count] : [count], data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** std::fixed with precision 9, as Triton's to_string_with_precision prints (nan, inf, -inf). */
function fixed9(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return v.toFixed(9);
}
