/**
 * Turns an ONNX model's signature into config tensors: names and datatypes as the model declares
 * them, the batch dimension split off when every tensor has a variable first dim, symbolic dims as -1.
 */
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { TensorSpec } from './render-config.js';
import { tritonType, type OnnxDim, type OnnxSignature, type OnnxTensorSignature } from './onnx-signature.js';

export interface OnnxConfigTensors {
  inputs: TensorSpec[];
  outputs: TensorSpec[];
  /** Every input and output has a variable first dimension, so it can be Triton's batch dim. */
  batchable: boolean;
  /** Input dims the model leaves free (written as -1): ATC needs a size or gears for each. */
  freeInputDims: FreeDim[];
}

export interface FreeDim {
  input: string;
  /** Index into the config's dims. */
  axis: number;
  /** The model's name for the dim ("seq"), when it has one. */
  symbol?: string;
}

const isVariable = (d: OnnxDim): boolean => d === null || typeof d === 'string' || d < 0;

export function configTensorsFromOnnx(signature: OnnxSignature, file: string): OnnxConfigTensors {
  const all = [...signature.inputs, ...signature.outputs];
  for (const t of all) checkTensor(t, file);
  const batchable = all.every((t) => t.dims!.length > 0 && isVariable(t.dims![0]!));
  const toSpec = (t: OnnxTensorSignature): TensorSpec => {
    const dims = (batchable ? t.dims!.slice(1) : t.dims!).map((d) => (isVariable(d) ? -1 : (d as number)));
    const spec: TensorSpec = { name: t.name, data_type: tritonType(t.elemType)!, dims };
    // Triton needs non-empty dims: a scalar per item is dims [1] reshaped to [].
    if (dims.length === 0) return { ...spec, dims: [1], reshape: [] };
    return spec;
  };
  const freeInputDims: FreeDim[] = [];
  for (const t of signature.inputs) {
    (batchable ? t.dims!.slice(1) : t.dims!).forEach((d, axis) => {
      if (isVariable(d)) freeInputDims.push({ input: t.name, axis, ...(typeof d === 'string' && d !== '' ? { symbol: d } : {}) });
    });
  }
  return { inputs: signature.inputs.map(toSpec), outputs: signature.outputs.map(toSpec), batchable, freeInputDims };
}

function checkTensor(t: OnnxTensorSignature, file: string): void {
  const where = `${path.basename(file)}: tensor "${t.name}"`;
  if (!t.name) throw new GebeError(`${path.basename(file)} has a graph input or output without a name`);
  if (tritonType(t.elemType) === undefined) {
    throw new GebeError(`${where} has ONNX element type ${t.elemType}, which Triton has no datatype for`, {
      hint: 'cast it to a supported type (float, int, bool, string) when exporting the model',
    });
  }
  if (t.dims === null) {
    throw new GebeError(`${where} declares no shape, so its dims cannot be written`, {
      hint: 'export the model with shapes (e.g. run onnx.shape_inference), or write the config by hand with --template blank',
    });
  }
}
