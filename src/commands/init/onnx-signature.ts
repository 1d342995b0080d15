/**
 * Reads an ONNX model's graph inputs and outputs for `init --from`, through the model inspection
 * in src/core/model, turning its errors into messages that name the file and the fix.
 */
import fs from 'node:fs';
import { GebeError } from '../../errors.js';
import type { DataTypeName } from '../../core/config/model-config.js';
import { inspectOnnx, OnnxParseError, type OnnxDim } from '../../core/model/index.js';

export type { OnnxDim };

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
  try {
    const info = inspectOnnx(bytes);
    if (info.outputs.length === 0) throw new OnnxParseError('the graph has no outputs');
    const toSignature = (t: { name: string; elemType: number; dims: OnnxDim[] | undefined }): OnnxTensorSignature => ({
      name: t.name, elemType: t.elemType, dims: t.dims ?? null,
    });
    return { inputs: info.inputs.map(toSignature), outputs: info.outputs.map(toSignature) };
  } catch (err) {
    if (!(err instanceof OnnxParseError)) throw err;
    throw new GebeError(`${file} is not a valid ONNX model: ${err.message}`, {
      hint: 'export the model again (e.g. torch.onnx.export) and pass the .onnx file to --from',
      cause: err,
    });
  }
}
