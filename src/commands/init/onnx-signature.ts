/**
 * Reads an ONNX model's graph inputs and outputs (names, element types, dims) for `init --from`.
 * A minimal read over the project's onnx.proto; the model inspection in src/core/model is the
 * general tool, this only needs the signature.
 */
import fs from 'node:fs';
import { GebeError } from '../../errors.js';
import type { DataTypeName } from '../../core/config/model-config.js';
import { onnxRoot } from '../../core/model/onnx-builder.js';

/** A dim: a size, a symbolic name ('batch'), or null when the model leaves it unknown. */
export type OnnxDim = number | string | null;

export interface OnnxTensorSignature {
  name: string;
  /** ONNX TensorProto.DataType number. */
  elemType: number;
  /** null when the model declares no shape at all. */
  dims: OnnxDim[] | null;
}

export interface OnnxSignature {
  inputs: OnnxTensorSignature[];
  outputs: OnnxTensorSignature[];
}

const TRITON_TYPES: Record<number, DataTypeName> = {
  1: 'TYPE_FP32', 2: 'TYPE_UINT8', 3: 'TYPE_INT8', 4: 'TYPE_UINT16', 5: 'TYPE_INT16', 6: 'TYPE_INT32',
  7: 'TYPE_INT64', 8: 'TYPE_STRING', 9: 'TYPE_BOOL', 10: 'TYPE_FP16', 11: 'TYPE_FP64', 12: 'TYPE_UINT32',
  13: 'TYPE_UINT64', 16: 'TYPE_BF16',
};

export function tritonType(elemType: number): DataTypeName | undefined {
  return TRITON_TYPES[elemType];
}

interface ValueInfoObject {
  name?: string;
  type?: { tensorType?: { elemType?: number; shape?: { dim?: Array<{ dimValue?: number; dimParam?: string }> } } };
}

export function readOnnxSignature(file: string): OnnxSignature {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    throw new GebeError(`cannot read ONNX model ${file}: ${(err as Error).message}`, {
      hint: 'pass the path of an existing .onnx file to --from',
      cause: err,
    });
  }
  const ModelProto = onnxRoot().lookupType('onnx.ModelProto');
  let model: { graph?: { input?: ValueInfoObject[]; output?: ValueInfoObject[]; initializer?: Array<{ name?: string }> } };
  try {
    model = ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, defaults: false }) as typeof model;
  } catch (err) {
    throw new GebeError(`${file} is not a valid ONNX model: ${(err as Error).message}`, {
      hint: 'export the model again (e.g. torch.onnx.export) and pass the .onnx file to --from',
      cause: err,
    });
  }
  if (!model.graph || !model.graph.output?.length) {
    throw new GebeError(`${file} has no graph outputs: it is not an ONNX model`, {
      hint: 'pass the .onnx file of a model to --from',
    });
  }
  // Before IR version 4, initializers were also listed as graph inputs: they are weights, not inputs.
  const weights = new Set((model.graph.initializer ?? []).map((t) => t.name));
  const inputs = (model.graph.input ?? []).filter((v) => !weights.has(v.name));
  return { inputs: inputs.map(toSignature), outputs: model.graph.output.map(toSignature) };
}

function toSignature(info: ValueInfoObject): OnnxTensorSignature {
  const tensor = info.type?.tensorType;
  const dims = tensor?.shape
    ? (tensor.shape.dim ?? []).map((d): OnnxDim => (d.dimValue !== undefined ? d.dimValue : d.dimParam ? d.dimParam : null))
    : null;
  return { name: info.name ?? '', elemType: tensor?.elemType ?? 0, dims };
}
