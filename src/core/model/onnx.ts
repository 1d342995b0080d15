/**
 * ONNX model inspection: graph inputs (minus initializers), outputs, element types, dims, opset and
 * operators. The ModelProto is walked field by field so that weights (initializer raw_data,
 * attribute tensors) are skipped as byte ranges and never become JS objects. In memory the walk
 * uses protobufjs's Reader; on disk (onnx-file.ts) a windowed reader with the same interface skips
 * weights without even reading them, so inspecting a 2 GB model reads kilobytes.
 */
import protobuf from 'protobufjs';

/** The part of protobufjs's Reader the walk uses; FileWireReader implements it over a file. */
export interface WireReader {
  pos: number;
  readonly len: number;
  uint32(): number;
  int32(): number;
  int64(): number | { toString(): string };
  string(): string;
  skipType(wire: number): unknown;
}

/** A dim is a number, a symbolic name ('batch'), or null when the model leaves it unknown. */
export type OnnxDim = number | string | null;

export interface OnnxTensorInfo {
  name: string;
  /** ONNX TensorProto.DataType number (1 FLOAT, 7 INT64, ...); 0 when the model does not say. */
  elemType: number;
  /** undefined when the model declares no shape at all (rank unknown). */
  dims: OnnxDim[] | undefined;
}

export interface OnnxModelInfo {
  irVersion: number;
  /** Default-domain opset version (0 when absent). */
  opset: number;
  /** Every opset import, by domain ('' is the default ONNX domain). */
  opsetImports: Array<{ domain: string; version: number }>;
  producerName: string;
  /** Graph inputs that are not initializers: what a client must feed. */
  inputs: OnnxTensorInfo[];
  outputs: OnnxTensorInfo[];
  /** Distinct operator types in first-use order, domain-qualified when not the default domain. */
  operators: string[];
  nodeCount: number;
}

/** ONNX element type number → name (TensorProto.DataType). */
export const ONNX_TYPE_NAMES: Record<number, string> = {
  0: 'UNDEFINED', 1: 'FLOAT', 2: 'UINT8', 3: 'INT8', 4: 'UINT16', 5: 'INT16', 6: 'INT32', 7: 'INT64',
  8: 'STRING', 9: 'BOOL', 10: 'FLOAT16', 11: 'DOUBLE', 12: 'UINT32', 13: 'UINT64', 14: 'COMPLEX64',
  15: 'COMPLEX128', 16: 'BFLOAT16',
};

/** Triton TYPE_* for an ONNX element type, as Triton's ONNX Runtime backend maps them. */
export const ONNX_TO_TRITON: Record<number, string> = {
  1: 'TYPE_FP32', 2: 'TYPE_UINT8', 3: 'TYPE_INT8', 4: 'TYPE_UINT16', 5: 'TYPE_INT16', 6: 'TYPE_INT32',
  7: 'TYPE_INT64', 8: 'TYPE_STRING', 9: 'TYPE_BOOL', 10: 'TYPE_FP16', 11: 'TYPE_FP64', 12: 'TYPE_UINT32',
  13: 'TYPE_UINT64', 16: 'TYPE_BF16',
};

export class OnnxParseError extends Error {
  override name = 'OnnxParseError';
}

const WIRE_LEN = 2;

/** Reads every field of the message between reader.pos and end, handing each to visit. */
function forEachField(reader: WireReader, end: number, visit: (field: number, wire: number) => boolean): void {
  while (reader.pos < end) {
    const tag = reader.uint32();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) throw new OnnxParseError(`invalid field number 0 at byte ${reader.pos}`);
    if (!visit(field, wire)) reader.skipType(wire);
  }
  if (reader.pos !== end) throw new OnnxParseError(`a message overruns its declared length at byte ${end}`);
}

/** Opens a length-delimited sub-message; returns its end offset. */
function openMessage(reader: WireReader, wire: number): number {
  if (wire !== WIRE_LEN) throw new OnnxParseError(`expected a length-delimited field, got wire type ${wire}`);
  const length = reader.uint32();
  const end = reader.pos + length;
  if (end > reader.len) throw new OnnxParseError(`a field of ${length} bytes runs past the end of the file`);
  return end;
}

function int64(reader: WireReader): number {
  const v = reader.int64();
  return typeof v === 'number' ? v : Number(v.toString());
}

function readShape(reader: WireReader, end: number): OnnxDim[] {
  const dims: OnnxDim[] = [];
  forEachField(reader, end, (field, wire) => {
    if (field !== 1) return false;
    const dimEnd = openMessage(reader, wire);
    let dim: OnnxDim = null;
    forEachField(reader, dimEnd, (f) => {
      if (f === 1) dim = int64(reader);
      else if (f === 2) dim = reader.string() || null;
      else return false;
      return true;
    });
    dims.push(dim);
    return true;
  });
  return dims;
}

function readValueInfo(reader: WireReader, end: number): OnnxTensorInfo {
  const info: OnnxTensorInfo = { name: '', elemType: 0, dims: undefined };
  forEachField(reader, end, (field, wire) => {
    if (field === 1) info.name = reader.string();
    else if (field === 2) {
      const typeEnd = openMessage(reader, wire);
      forEachField(reader, typeEnd, (tf, tw) => {
        if (tf !== 1) return false; // only tensor_type; sequences and maps keep elemType 0
        const tensorEnd = openMessage(reader, tw);
        forEachField(reader, tensorEnd, (f, w) => {
          if (f === 1) info.elemType = reader.int32();
          else if (f === 2) info.dims = readShape(reader, openMessage(reader, w));
          else return false;
          return true;
        });
        return true;
      });
    } else return false;
    return true;
  });
  return info;
}

/** Reads only the name of an initializer (TensorProto field 8); its data is skipped. */
function readTensorName(reader: WireReader, end: number): string {
  let name = '';
  forEachField(reader, end, (field) => {
    if (field !== 8) return false;
    name = reader.string();
    return true;
  });
  return name;
}

function readNodeOp(reader: WireReader, end: number): string {
  let op = '';
  let domain = '';
  forEachField(reader, end, (field) => {
    if (field === 4) op = reader.string();
    else if (field === 7) domain = reader.string();
    else return false; // inputs, outputs, attributes (which may hold tensors) are skipped
    return true;
  });
  return domain && domain !== 'ai.onnx' ? `${domain}.${op}` : op;
}

/** Inspects an encoded ModelProto. Throws OnnxParseError when the bytes are not a valid ONNX model. */
export function inspectOnnx(bytes: Uint8Array): OnnxModelInfo {
  return inspectModelProto(protobuf.Reader.create(bytes));
}

/** Walks a ModelProto from a reader positioned at its start and spanning all of it. */
export function inspectModelProto(reader: WireReader): OnnxModelInfo {
  const info: OnnxModelInfo = {
    irVersion: 0, opset: 0, opsetImports: [], producerName: '', inputs: [], outputs: [], operators: [], nodeCount: 0,
  };
  let sawGraph = false;
  const initializers = new Set<string>();
  const declaredInputs: OnnxTensorInfo[] = [];
  const ops = new Set<string>();
  try {
    forEachField(reader, reader.len, (field, wire) => {
      if (field === 1 && wire === 0) info.irVersion = int64(reader);
      else if (field === 2 && wire === WIRE_LEN) info.producerName = reader.string();
      else if (field === 8) {
        const end = openMessage(reader, wire);
        const entry = { domain: '', version: 0 };
        forEachField(reader, end, (f) => {
          if (f === 1) entry.domain = reader.string();
          else if (f === 2) entry.version = int64(reader);
          else return false;
          return true;
        });
        info.opsetImports.push(entry);
      } else if (field === 7) {
        sawGraph = true;
        const graphEnd = openMessage(reader, wire);
        forEachField(reader, graphEnd, (f, w) => {
          if (f === 1) {
            info.nodeCount++;
            ops.add(readNodeOp(reader, openMessage(reader, w)));
          } else if (f === 5) initializers.add(readTensorName(reader, openMessage(reader, w)));
          else if (f === 11) declaredInputs.push(readValueInfo(reader, openMessage(reader, w)));
          else if (f === 12) info.outputs.push(readValueInfo(reader, openMessage(reader, w)));
          else return false;
          return true;
        });
      } else return false;
      return true;
    });
  } catch (err) {
    if (err instanceof OnnxParseError) throw err;
    // protobufjs throws RangeError ("index out of range") on truncated input.
    throw new OnnxParseError(`not a valid ONNX protobuf (${(err as Error).message})`);
  }
  if (!sawGraph) throw new OnnxParseError('the file has no graph: it is not an ONNX ModelProto');
  info.inputs = declaredInputs.filter((i) => !initializers.has(i.name));
  info.operators = [...ops];
  info.opset = info.opsetImports.find((o) => o.domain === '' || o.domain === 'ai.onnx')?.version ?? 0;
  return info;
}
