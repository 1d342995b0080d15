/**
 * Pairs config tensors with the ONNX model Triton would load, for the config↔model rules.
 */
import type { OnnxModelInfo, OnnxTensorInfo } from '../model/onnx.js';
import type { ConfigContext } from './rule.js';

export interface LoadedOnnx {
  path: string;
  info: OnnxModelInfo;
}

/** The readable ONNX models the config's selected versions load (none for a config alone). */
export function onnxModels(ctx: ConfigContext): LoadedOnnx[] {
  const out: LoadedOnnx[] = [];
  for (const f of ctx.modelFiles()) if (f.kind === 'onnx') out.push({ path: f.path, info: f.info });
  return out;
}

export function modelTensor(model: OnnxModelInfo, io: 'input' | 'output', name: string): OnnxTensorInfo | undefined {
  return (io === 'input' ? model.inputs : model.outputs).find((t) => t.name === name);
}

/** The dims the model sees for a config tensor: the reshape when present (`shape: [ ]` is a scalar), else dims. */
export function modelFacingDims(tensor: { dims?: number[]; reshape?: { shape?: number[] } }): number[] {
  return (tensor.reshape ? tensor.reshape.shape ?? [] : tensor.dims ?? []).map(Number);
}
