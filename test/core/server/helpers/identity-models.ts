/**
 * Identity models (each output a copy of the one input X) for the classification extension's
 * tests: a model repository entry (config, ONNX model, label file) for mnistRepository().
 */
import { OnnxGraphBuilder, type OnnxTypeName } from '../../../helpers/onnx-builder.js';

/** `labels`: the text of Y's label file; `batched`: max_batch_size 4 and a batch dimension. */
export function identityModel(name: string, type: OnnxTypeName, configType: string, dims: number[], batched: boolean, labels?: string, outputs = ['Y']) {
  const onnxDims = batched ? ['batch', ...dims] : dims;
  const graph = new OnnxGraphBuilder(name).input('X', type, onnxDims);
  for (const o of outputs) graph.output(o, type, onnxDims).node('Identity', ['X'], [o], undefined, `copy_${o}`);
  const tensor = (o: string) => `{ name: "${o}" data_type: TYPE_${configType} dims: [ ${dims.join(', ')} ]${o === 'Y' && labels !== undefined ? ' label_filename: "labels.txt"' : ''} }`;
  const config = `name: "${name}"\nbackend: "ge"\nmax_batch_size: ${batched ? 4 : 0}\ninput [ { name: "X" data_type: TYPE_${configType} dims: [ ${dims.join(', ')} ] } ]\noutput [ ${outputs.map(tensor).join(', ')} ]\n`;
  const files: Record<string, Uint8Array> = labels === undefined ? {} : { 'labels.txt': Buffer.from(labels) };
  return { config, model: graph.encode(), files };
}

/**
 * classes: batched FP32 [4] with labels "cat", "", "bird" on Y and a second output Z;
 * classes_int32 and classes_uint8: without batching, with labels; classes_fp64: batched, no labels;
 * classes_fp16: batched FP16, whose class results Triton refuses.
 */
export const CLASSES_MODELS = {
  classes: identityModel('classes', 'FLOAT', 'FP32', [4], true, 'cat\n\nbird\n', ['Y', 'Z']),
  classes_int32: identityModel('classes_int32', 'INT32', 'INT32', [5], false, 'zero\r\none\r\ntwo\r\nthr\u00e9e\r\nfour'),
  classes_fp64: identityModel('classes_fp64', 'DOUBLE', 'FP64', [3], true),
  classes_uint8: identityModel('classes_uint8', 'UINT8', 'UINT8', [4], false, 'a\nb\nc\nd\n'),
  classes_fp16: identityModel('classes_fp16', 'FLOAT16', 'FP16', [2], true),
};
